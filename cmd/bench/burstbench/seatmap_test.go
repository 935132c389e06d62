package burstbench

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/marquee-tickets/marquee/internal/demo"
)

func TestParseSeatMap(t *testing.T) {
	body := []byte(`{"show_id":51,"seats":[
  {"id":"A1","row":"A","number":1,"grid_row":0,"grid_col":0,"accessible":false,
   "category":"STANDARD","price_minor":25000,"currency":"INR","status":"AVAILABLE"},
  {"id":"H5","row":"H","number":5,"grid_row":7,"grid_col":14,"accessible":false,
   "category":"PREMIUM","price_minor":45000,"currency":"INR","status":"HELD","mine":true}]}`)
	seats, err := parseSeatMap(body)
	if err != nil {
		t.Fatal(err)
	}
	want := []seat{{id: "A1", row: 0, col: 0, available: true}, {id: "H5", row: 7, col: 14}}
	if !slices.Equal(seats, want) {
		t.Errorf("parseSeatMap = %+v, want %+v", seats, want)
	}
	for _, bad := range []string{
		`{"error":"not_found"}`,
		`{"show_id":1,"seats":[]}`,
		`{"show_id":1,"seats":[{"id":"A1","grid_row":0,"status":"AVAILABLE"}]}`, // no grid_col
		`{"show_id":1,"seats":[{"id":"A1","grid_row":0,"grid_col":0,"status":"AVAILABLE"`,
	} {
		if _, err := parseSeatMap([]byte(bad)); err == nil {
			t.Errorf("parseSeatMap(%s): no error", bad)
		}
	}
}

// row is a row of seats at the grid columns given, free unless taken.
func row(cols []int, taken ...int) []seat {
	var seats []seat
	for _, c := range cols {
		seats = append(seats, seat{id: fmt.Sprint(c), col: c, available: !slices.Contains(taken, c)})
	}
	return seats
}

func span(from, to int) []int {
	var s []int
	for c := from; c <= to; c++ {
		s = append(s, c)
	}
	return s
}

func TestPickPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// picks returns every pair picked in 500 tries.
	picks := func(seats []seat) map[[2]string]bool {
		out := map[[2]string]bool{}
		for range 500 {
			p, ok := pickPair(seats, rng)
			if !ok {
				t.Fatalf("no pair picked from %+v", seats)
			}
			out[p] = true
		}
		return out
	}
	pairs := func(ps ...[2]int) map[[2]string]bool {
		out := map[[2]string]bool{}
		for _, p := range ps {
			out[[2]string{fmt.Sprint(p[0]), fmt.Sprint(p[1])}] = true
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		seats []seat
		want  map[[2]string]bool
	}{
		{"a free stretch of 6 splits into even parts only", row(span(0, 5)), pairs([2]int{0, 1}, [2]int{2, 3}, [2]int{4, 5})},
		{"a taken pair moves the stretch on", row(span(0, 5), 0, 1), pairs([2]int{2, 3}, [2]int{4, 5})},
		{"never across an aisle", row([]int{0, 1, 3, 4}), pairs([2]int{0, 1}, [2]int{3, 4})},
		{"a stretch of odd length offers every pair", row(span(0, 2)), pairs([2]int{0, 1}, [2]int{1, 2})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := picks(tc.seats); !maps.Equal(got, tc.want) {
				t.Errorf("picked %v, want each of %v", got, tc.want)
			}
		})
	}
	t.Run("no two seats side by side: none", func(t *testing.T) {
		if p, ok := pickPair(row([]int{0, 2, 4}), rng); ok {
			t.Errorf("picked %v from seats with gaps between", p)
		}
		if p, ok := pickPair(row(span(0, 3), 1, 2), rng); ok {
			t.Errorf("picked %v from two seats apart", p)
		}
	})
	t.Run("people picking this way sell the mega hall out", func(t *testing.T) {
		var seats []seat
		for _, s := range demo.MegaHall() {
			seats = append(seats, seat{id: s.ID, row: s.GridRow, col: s.GridCol, available: true})
		}
		sold := 0
		for {
			p, ok := pickPair(seats, rng)
			if !ok {
				break
			}
			for i := range seats {
				if seats[i].id == p[0] || seats[i].id == p[1] {
					if !seats[i].available {
						t.Fatalf("picked %v, taken already", p)
					}
					seats[i].available = false
					sold++
				}
			}
		}
		if sold != 1000 {
			t.Errorf("%d seats sold before no pair was left, want all 1000", sold)
		}
	})
}

func TestPageShows(t *testing.T) {
	html := []byte(`<span class="seat legend-seat" data-status="held" aria-hidden="true">1</span>
		<template data-seat-rows><div data-row>
		<button type="button" id="seat-A1" class="seat" data-seat="A1" data-status="available" data-r="0">1</button>
		<button type="button" id="seat-A2" class="seat" data-seat="A2" data-status="booked" data-r="0">2</button>
		<button type="button" id="seat-A3" class="seat" data-seat="A3" data-status="held" data-r="0">3</button>
		</div></template>`)
	shown, ok := pageShows(html)
	if !ok || len(shown) != 2 || shown["A2"] != "booked" || shown["A3"] != "held" {
		t.Errorf("pageShows = %v, %v; want A2 booked, A3 held (the legend is no seat)", shown, ok)
	}
	if _, ok := pageShows([]byte(`<p>Marquee is very busy</p>`)); ok {
		t.Error("a page without seats shows seats")
	}
}
