package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/names"
)

// FuzzLayout: a layout as the editor and the API send it, JSON seats, is
// refused as a *catalog.FieldError for "seats" (a *SeatError naming the
// first bad seat, every seat before it fine), or it is one the database
// stores as it is, and encoded and decoded again it is the same layout.
// hiddenLabel reports whether row label s holds a hidden character.
func hiddenLabel(s string) bool {
	_, hidden := names.HiddenInLabel(s)
	return hidden
}

func FuzzLayout(f *testing.F) {
	f.Add([]byte(`[{"id":"A1","row":"A","number":1,"category":"STANDARD","grid_row":0,"grid_col":0}]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		specs, ok := decodeLayout(raw)
		if !ok {
			return
		}
		err := checkLayout(specs)
		if err != nil {
			var (
				field *catalog.FieldError
				seat  *SeatError
			)
			if !errors.As(err, &field) || field.Field != "seats" || field.Message == "" {
				t.Fatalf("checkLayout(%s) = %v: not a field error for seats", raw, err)
			}
			if errors.As(err, &seat) {
				if seat.Index < 0 || seat.Index >= len(specs) || seat.Seat != specs[seat.Index].ID {
					t.Fatalf("checkLayout(%s) = %+v: names no seat of the layout", raw, seat)
				}
				if seat.Index > 0 && checkLayout(specs[:seat.Index]) != nil {
					t.Fatalf("checkLayout(%s) = %v: a seat before it is bad too", raw, err)
				}
			}
			return
		}
		if len(specs) == 0 || len(specs) > MaxSeats {
			t.Fatalf("accepted %d seats", len(specs))
		}
		ids, cells := map[string]bool{}, map[[2]int]bool{}
		rows, cols := 0, 0
		for _, s := range specs {
			cell := [2]int{s.GridRow, s.GridCol}
			rows, cols = max(rows, s.GridRow+1), max(cols, s.GridCol+1)
			switch {
			case hiddenLabel(s.Row):
				t.Fatalf("accepted the row %q, with a hidden character", s.Row)
			case !seatIDPattern.MatchString(s.ID) || ids[s.ID]:
				t.Fatalf("accepted the seat id %q (again?)", s.ID)
			case !categoryPattern.MatchString(s.Category):
				t.Fatalf("accepted the category %q", s.Category)
			case !utf8.ValidString(s.Row) || strings.IndexFunc(s.Row, unicode.IsControl) >= 0 || s.Row == "" || utf8.RuneCountInString(s.Row) > 8:
				t.Fatalf("accepted the row %q", s.Row)
			case s.Number < 1 || s.Number > maxNumber || s.GridRow < 0 || s.GridCol < 0 || s.GridRow > maxGrid || s.GridCol > maxGrid:
				t.Fatalf("accepted %+v", s)
			case cells[cell]:
				t.Fatalf("accepted two seats in the cell %v", cell)
			}
			ids[s.ID], cells[cell] = true, true
		}
		if rows*cols > MaxGridCells {
			t.Fatalf("accepted a grid of %d x %d cells", rows, cols)
		}
		encoded, err := json.Marshal(specs)
		if err != nil {
			t.Fatal(err)
		}
		again, ok := decodeLayout(encoded)
		if !ok || !reflect.DeepEqual(again, specs) || checkLayout(again) != nil {
			t.Fatalf("%s encoded as %s decodes to %+v", raw, encoded, again)
		}
	})
}

// decodeLayout reads a list of seats as the layout editor's form does.
func decodeLayout(raw []byte) ([]catalog.SeatSpec, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var specs []catalog.SeatSpec
	if err := dec.Decode(&specs); err != nil || dec.More() {
		return nil, false
	}
	return specs, true
}

// FuzzTemplateSeats: a layout template is refused as a *catalog.FieldError
// for the template, rows or seats per row, or it makes a layout
// checkLayout accepts, of rows times seats for the plain grid.
func FuzzTemplateSeats(f *testing.F) {
	f.Add("grid", 10, 12)
	f.Add("aisles-12x20", 0, 0)
	f.Fuzz(func(t *testing.T, key string, rows, seats int) {
		specs, err := TemplateSeats(key, rows, seats)
		if err != nil {
			var field *catalog.FieldError
			if !errors.As(err, &field) || !slices.Contains([]string{"template", "rows", "seats_per_row"}, field.Field) || field.Message == "" {
				t.Fatalf("TemplateSeats(%q, %d, %d) = %v: not a documented refusal", key, rows, seats, err)
			}
			return
		}
		if err := checkLayout(specs); err != nil {
			t.Fatalf("TemplateSeats(%q, %d, %d) makes a layout checkLayout refuses: %v", key, rows, seats, err)
		}
		if key == "grid" && len(specs) != rows*seats {
			t.Fatalf("a grid of %d by %d has %d seats", rows, seats, len(specs))
		}
	})
}
