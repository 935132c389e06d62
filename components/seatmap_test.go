package components_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// Two rows given out of order, a gap in the first, a blocked seat: the map
// has the rows in grid order, a nil cell for the gap, the counts, and the
// legend cheapest first.
func TestView(t *testing.T) {
	seat := func(id, row string, n, r, c int, cat string, price int64, st booking.SeatStatus) booking.Seat {
		return booking.Seat{ID: id, Row: row, Number: n, GridRow: r, GridCol: c, Category: cat,
			PriceMinor: price, Currency: "INR", Status: st}
	}
	v := components.SeatMapOf([]booking.Seat{
		seat("B1", "B", 1, 1, 0, "PREMIUM", 45000, booking.SeatAvailable),
		seat("A2", "A", 2, 0, 2, "STANDARD", 25000, booking.SeatBlocked),
		seat("A1", "A", 1, 0, 0, "STANDARD", 25000, booking.SeatAvailable),
	}, "INR", map[string]bool{"A1": true}, nil)
	if v.Cols != 3 || len(v.Rows) != 2 || v.Rows[0].Label != "A" || v.Rows[1].Label != "B" {
		t.Fatalf("grid = %d columns, rows %+v; want 3 columns, rows A then B", v.Cols, v.Rows)
	}
	if a := v.Rows[0].Cells; a[0] == nil || a[0].ID != "A1" || a[1] != nil || a[2] == nil || a[2].ID != "A2" {
		t.Errorf("row A cells = %v, want A1, a gap, A2", a)
	}
	if !v.Rows[0].Cells[0].Selected || v.Rows[0].Cells[2].Status != "blocked" {
		t.Errorf("A1 selected %v, A2 %q; want the pick selected and A2 blocked", v.Rows[0].Cells[0].Selected, v.Rows[0].Cells[2].Status)
	}
	if v.Available != 2 || v.Blocked != 1 {
		t.Errorf("counts = %d available, %d blocked; want 2 and 1", v.Available, v.Blocked)
	}
	if len(v.Legend) != 2 || v.Legend[0].Category != "STANDARD" || v.Legend[0].Price == "" {
		t.Errorf("legend = %+v, want STANDARD (cheaper, with its price) first", v.Legend)
	}
	// A drafted layout: no currency, so no prices anywhere.
	draft := components.SeatMapOf([]booking.Seat{{ID: "A1", Row: "A", Number: 1, Category: "STANDARD", Status: booking.SeatAvailable}}, "", nil, nil)
	if draft.Legend[0].Price != "" || draft.Money.Prefix != "" {
		t.Errorf("draft legend %+v, money pattern %+v: want no price", draft.Legend, draft.Money)
	}
}
