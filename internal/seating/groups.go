package seating

import (
	"cmp"
	"slices"
)

// GroupsOf returns where the seats of pick are in the hall of seats: in
// groups of seats side by side in one row, the largest first (then front
// to back, left to right), one group when they are all together. Seats of
// pick the hall does not have are ignored. It says where a party sits that
// is held already: best available's choice, read again from the hold.
func GroupsOf(seats []Seat, pick []string) []Group {
	h := newHall(seats)
	picked := h.indexes(pick)
	var groups []window
	for r, run := range h.runs {
		for at := 0; at < len(run); at++ {
			if !picked[run[at]] {
				continue
			}
			n := 1
			for at+n < len(run) && picked[run[at+n]] {
				n++
			}
			groups = append(groups, window{r: r, at: at, n: n})
			at += n - 1
		}
	}
	// The runs are in grid order already: a stable sort by size keeps it
	// among equals.
	slices.SortStableFunc(groups, func(a, b window) int { return cmp.Compare(b.n, a.n) })
	return h.choice(groups, len(groups) == 1).Groups
}
