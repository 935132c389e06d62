package admin

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/marquee-tickets/marquee/internal/catalog"
)

// LayoutTemplate is a ready-made seat layout a new screen can start from:
// rows of seats with aisles (gap columns) after some seat numbers, and the
// back rows in another category. The plain grid takes its size from the
// admin (Sized).
type LayoutTemplate struct {
	Key         string
	Name        string
	Description string
	Rows, Seats int   // rows, and seats per row
	AislesAfter []int // an aisle after these seat numbers
	BackRows    int   // the last rows are BackCategory
	Sized       bool  // rows and seats are the admin's
}

// The category of a template's seats, and of its back rows.
const (
	StandardCategory = "STANDARD"
	BackCategory     = "PREMIUM"
)

// Limits of a plain grid's size.
const (
	MaxTemplateRows  = 60
	MaxTemplateSeats = 60
)

var layoutTemplates = []LayoutTemplate{
	{Key: "aisles-12x20", Name: "12 rows of 20 with two aisles", Rows: 12, Seats: 20, AislesAfter: []int{6, 14}, BackRows: 3,
		Description: "Rows A to L of 20 seats, aisles after seats 6 and 14; the back three rows premium."},
	{Key: "small-8x14", Name: "8 rows of 14", Rows: 8, Seats: 14, AislesAfter: []int{7}, BackRows: 2,
		Description: "Rows A to H of 14 seats, one aisle after seat 7; the back two rows premium."},
	{Key: "grid", Name: "Plain grid", Sized: true,
		Description: "Rows of standard seats without aisles, of the size you choose: draw the rest in the editor."},
}

// LayoutTemplates are the layouts a new screen can start from.
func LayoutTemplates() []LayoutTemplate { return slices.Clone(layoutTemplates) }

// TemplateSeats is the layout of the template named key; rows and seats
// size a Sized template and are ignored otherwise. An unknown template or a
// bad size is a *catalog.FieldError ("template", "rows" or "seats_per_row").
func TemplateSeats(key string, rows, seats int) ([]catalog.SeatSpec, error) {
	i := slices.IndexFunc(layoutTemplates, func(t LayoutTemplate) bool { return t.Key == key })
	if i < 0 {
		return nil, &catalog.FieldError{Field: "template", Message: "Pick a layout to start from."}
	}
	t := layoutTemplates[i]
	if t.Sized {
		if rows < 1 || rows > MaxTemplateRows {
			return nil, &catalog.FieldError{Field: "rows", Message: fmt.Sprintf("A grid has 1 to %d rows.", MaxTemplateRows)}
		}
		if seats < 1 || seats > MaxTemplateSeats {
			return nil, &catalog.FieldError{Field: "seats_per_row", Message: fmt.Sprintf("A row has 1 to %d seats.", MaxTemplateSeats)}
		}
		if rows*seats > MaxSeats {
			return nil, &catalog.FieldError{Field: "rows", Message: fmt.Sprintf("A layout has at most %d seats; %d rows of %d is %d.", MaxSeats, rows, seats, rows*seats)}
		}
		t.Rows, t.Seats = rows, seats
	}
	return GridSeats(t.Rows, t.Seats, t.AislesAfter, t.BackRows), nil
}

// GridSeats lays out rows of seats, labelled A, B, ... from the front and
// numbered 1 to seats from the left, with a gap column after each seat
// number in aislesAfter; the last backRows rows are BackCategory, the
// others StandardCategory.
func GridSeats(rows, seats int, aislesAfter []int, backRows int) []catalog.SeatSpec {
	out := make([]catalog.SeatSpec, 0, rows*seats)
	for r := range rows {
		label := RowLabel(r)
		cat := StandardCategory
		if r >= rows-backRows {
			cat = BackCategory
		}
		col := 0
		for n := 1; n <= seats; n++ {
			out = append(out, catalog.SeatSpec{
				ID: label + strconv.Itoa(n), Row: label, Number: n, Category: cat, GridRow: r, GridCol: col,
			})
			col++
			if slices.Contains(aislesAfter, n) && n < seats {
				col++
			}
		}
	}
	return out
}

// RowLabel is the label of the i-th row from the front (from 0): A to Z,
// then AA, AB, ...
func RowLabel(i int) string {
	label := ""
	for i++; i > 0; i = (i - 1) / 26 {
		label = string(rune('A'+(i-1)%26)) + label
	}
	return label
}
