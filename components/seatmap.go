package components

// A show's seats laid out as SeatMap draws them: one row of cells per grid
// row, from the leftmost to the rightmost column of the screen, gaps where
// there is no seat, and a legend of the seat categories, cheapest first.
// The moviegoer's show page, the admin's show page and the layout editor's
// preview draw the same map. It lives beside the template that draws it, so
// a new kind of seat (a companion seat, say) is laid out and drawn here.

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/money"
)

// SeatMapOf lays out seats priced in currency ("" for seats without prices
// yet: the legend then shows none). picked marks the viewer's picks (shown
// selected while available), taken the picks someone else took; both may
// be nil. The caller sets the map's show and what the viewer may do.
func SeatMapOf(seats []booking.Seat, currency string, picked, taken map[string]bool) SeatMapView {
	v := SeatMapView{Currency: currency}
	if currency != "" {
		v.Money = money.PatternOf(currency)
	}
	if len(seats) == 0 {
		return v
	}
	seats = slices.Clone(seats)
	slices.SortFunc(seats, func(a, b booking.Seat) int {
		return cmp.Or(cmp.Compare(a.GridRow, b.GridRow), cmp.Compare(a.GridCol, b.GridCol))
	})
	minCol, maxCol := math.MaxInt, 0
	for _, seat := range seats {
		minCol, maxCol = min(minCol, seat.GridCol), max(maxCol, seat.GridCol)
	}
	v.Cols = maxCol - minCol + 1
	rowIndex := map[int]int{}
	prices := map[string]int64{}
	for _, seat := range seats {
		if _, ok := rowIndex[seat.GridRow]; !ok {
			rowIndex[seat.GridRow] = len(v.Rows)
			v.Rows = append(v.Rows, SeatRow{Label: seat.Row, Cells: make([]*SeatView, v.Cols)})
		}
		status := format.SeatStatus(seat)
		switch status {
		case "available":
			v.Available++
		case "blocked":
			v.Blocked++
		}
		if seat.Companion {
			v.Companions++
		}
		prices[seat.Category] = seat.PriceMinor
		v.Rows[rowIndex[seat.GridRow]].Cells[seat.GridCol-minCol] = &SeatView{
			ID: seat.ID, Number: seat.Number, Category: seat.Category, PriceMinor: seat.PriceMinor,
			Status: status, Label: format.SeatLabel(seat, status), Accessible: seat.Accessible, Companion: seat.Companion,
			Selected: picked[seat.ID] && status == "available", Taken: taken[seat.ID],
			R: seat.GridRow, C: seat.GridCol,
		}
	}
	categories := make([]string, 0, len(prices))
	for cat := range prices {
		categories = append(categories, cat)
	}
	// Cheapest first: the order a shopper compares prices in.
	slices.SortFunc(categories, func(a, b string) int {
		return cmp.Or(cmp.Compare(prices[a], prices[b]), strings.Compare(a, b))
	})
	for _, cat := range categories {
		item := LegendItem{Category: cat, Name: format.CategoryName(cat)}
		if currency != "" {
			item.Price = format.Money(prices[cat], currency)
		}
		v.Legend = append(v.Legend, item)
	}
	return v
}
