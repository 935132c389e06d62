package admin_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

func TestTemplateSeatsAisles(t *testing.T) {
	seats, err := admin.TemplateSeats("aisles-12x20", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(seats) != 12*20 {
		t.Fatalf("%d seats, want 240", len(seats))
	}
	// Row A: 1..20 in order, columns 0-5, a gap, 7-14, a gap, 16-21.
	wantCol := func(n int) int {
		switch {
		case n <= 6:
			return n - 1
		case n <= 14:
			return n
		}
		return n + 1
	}
	perRow := map[string]int{}
	for _, st := range seats {
		perRow[st.Row]++
		if st.Row == "A" {
			if st.ID != "A"+strconv.Itoa(st.Number) || st.GridRow != 0 || st.GridCol != wantCol(st.Number) || st.Category != "STANDARD" {
				t.Errorf("seat %+v, want column %d", st, wantCol(st.Number))
			}
		}
		if st.Row == "L" && st.Category != "PREMIUM" || st.Row == "I" && st.Category != "STANDARD" {
			t.Errorf("seat %s is %s", st.ID, st.Category)
		}
	}
	if len(perRow) != 12 || perRow["A"] != 20 || perRow["L"] != 20 {
		t.Errorf("rows %v", perRow)
	}
	first, last := seats[0], seats[19]
	if first.Number != 1 || last.Number != 20 || last.GridCol != 21 {
		t.Errorf("row A from %+v to %+v", first, last)
	}
}

func TestTemplateSeatsGrid(t *testing.T) {
	seats, err := admin.TemplateSeats("grid", 3, 4)
	if err != nil || len(seats) != 12 || seats[11].ID != "C4" || seats[11].GridCol != 3 || seats[11].Category != "STANDARD" {
		t.Fatalf("%v %+v", err, seats)
	}
	for _, bad := range []struct {
		key         string
		rows, seats int
		field       string
	}{{"nope", 1, 1, "template"}, {"grid", 0, 5, "rows"}, {"grid", 5, 61, "seats_per_row"}, {"grid", 60, 60, "rows"}} {
		_, err := admin.TemplateSeats(bad.key, bad.rows, bad.seats)
		var fe *catalog.FieldError
		if !errors.As(err, &fe) || fe.Field != bad.field {
			t.Errorf("%+v: %v, want a %s error", bad, err, bad.field)
		}
	}
}

func TestRowLabel(t *testing.T) {
	for i, want := range map[int]string{0: "A", 25: "Z", 26: "AA", 27: "AB", 51: "AZ", 52: "BA"} {
		if got := admin.RowLabel(i); got != want {
			t.Errorf("RowLabel(%d) = %q, want %q", i, got, want)
		}
	}
}
