package burstbench

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/marquee-tickets/marquee/cmd/bench/wsclient"
)

// seat is what a person reads of a seat from the seat map's JSON.
type seat struct {
	id        string
	row, col  int // grid_row, grid_col: seats of a row are side by side when their columns are
	available bool
}

// parseSeatMap reads the seats of GET /api/v1/shows/{id}/seats. Thousands
// of people read a 1,000-seat map several times each: a scan for the four
// fields needed, rather than a JSON decoder, keeps the clients' CPU off the
// cores the app and Postgres are measured on. Each seat is a flat object
// (no object inside it), so the fields are looked for between its braces.
func parseSeatMap(b []byte) ([]seat, error) {
	i := bytes.Index(b, []byte(`"seats":[`))
	if i < 0 {
		return nil, errors.New("the seat map has no seats")
	}
	b = b[i+len(`"seats":[`):]
	seats := make([]seat, 0, 1000)
	for {
		open := bytes.IndexByte(b, '{')
		if open < 0 {
			break
		}
		end := bytes.IndexByte(b[open:], '}')
		if end < 0 {
			return nil, errors.New("the seat map ends inside a seat")
		}
		obj := b[open : open+end]
		b = b[open+end+1:]
		id, ok1 := stringField(obj, `"id":"`)
		row, ok2 := intField(obj, `"grid_row":`)
		col, ok3 := intField(obj, `"grid_col":`)
		status, ok4 := stringField(obj, `"status":"`)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, fmt.Errorf("a seat of the seat map lacks id, grid_row, grid_col or status: %.200s", obj)
		}
		seats = append(seats, seat{id: id, row: row, col: col, available: status == "AVAILABLE"})
	}
	if len(seats) == 0 {
		return nil, errors.New("the seat map has no seats")
	}
	return seats, nil
}

// stringField is the value of a string field that starts with key (its
// name, the colon and the opening quote); seat ids and statuses have no
// escapes.
func stringField(obj []byte, key string) (string, bool) {
	i := bytes.Index(obj, []byte(key))
	if i < 0 {
		return "", false
	}
	v := obj[i+len(key):]
	j := bytes.IndexByte(v, '"')
	if j < 0 {
		return "", false
	}
	return string(v[:j]), true
}

// intField is the value of a whole-number field that starts with key.
func intField(obj []byte, key string) (int, bool) {
	i := bytes.Index(obj, []byte(key))
	if i < 0 {
		return 0, false
	}
	v := obj[i+len(key):]
	j := 0
	for j < len(v) && v[j] >= '0' && v[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(string(v[:j]))
	return n, err == nil
}

// pickPair picks two available seats side by side (the same grid row,
// neighbouring columns) at random, or reports that no two are left.
//
// A person takes a pair that leaves no seat alone: in a stretch of free
// seats of even length, only pairs at an even offset from its start,
// which split it into even stretches. Each block of the mega hall has an
// even number of seats, so everyone choosing this way can sell the hall
// out; people picking any pair would strand about one seat in seven
// (random pairs on a line fill only 1 - 1/e^2 of it), and "time to sell
// out" would never come. A stretch of odd length (none, unless seats free
// up one by one) offers all its pairs.
func pickPair(seats []seat, rng *rand.Rand) ([2]string, bool) {
	slices.SortFunc(seats, func(a, b seat) int {
		return cmp.Or(cmp.Compare(a.row, b.row), cmp.Compare(a.col, b.col))
	})
	var pick [2]string
	found := 0
	// stretch offers the pairs of the free seats seats[from:to], one
	// chance in found each (reservoir sampling: one pass, no list).
	stretch := func(from, to int) {
		n := to - from
		for a := 0; a+1 < n; a++ {
			if n%2 == 0 && a%2 == 1 {
				continue
			}
			found++
			if rng.IntN(found) == 0 {
				pick = [2]string{seats[from+a].id, seats[from+a+1].id}
			}
		}
	}
	start := -1
	for i, s := range seats {
		if start >= 0 && (!s.available || s.row != seats[i-1].row || s.col != seats[i-1].col+1) {
			stretch(start, i)
			start = -1
		}
		if s.available && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		stretch(start, len(seats))
	}
	return pick, found > 0
}

// pageShows is what the show page shows of its seats: the status of every
// seat it does not show as available, as the page's script tells the live
// seat map on connecting (?diff=1). ok is false when the page has no seats.
func pageShows(html []byte) (shown map[string]string, ok bool) {
	shown = map[string]string{}
	seen := 0
	wsclient.ScanSeats(html, func(seat, status string) {
		seen++
		if status != "available" {
			shown[seat] = status
		}
	})
	return shown, seen > 0
}
