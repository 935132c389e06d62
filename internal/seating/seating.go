// Package seating chooses seats for a party: the best free seats of a show
// (best available), and the orphan rule, which refuses a choice that would
// leave one empty seat alone in its row, offering the nearest choice of the
// same size that leaves none.
//
// It knows a hall only as a grid: seats side by side are in one grid row at
// neighbouring columns; a column without a seat (an aisle, a gap) or the end
// of the row separates them. It reads no database: the hold's transaction
// gives it the seats as they are under its locks.
package seating

import (
	"cmp"
	"errors"
	"slices"
)

// Seat is one seat of a show as seating sees it.
type Seat struct {
	ID       string
	Row      string // the row's label, to say where a party sits
	GridRow  int
	GridCol  int
	Category string
	// Accessible marks a wheelchair space; Companion a seat meant for a
	// wheelchair user's companion.
	Accessible bool
	Companion  bool
	// Free: nobody holds or has booked it.
	Free bool
}

// Point is a place in the hall's grid, in grid rows and columns.
type Point struct{ Row, Col float64 }

// DefaultIdeal is where a screen's best view is unless its layout says
// otherwise: two thirds of the way back, on the centre line.
func DefaultIdeal(seats []Seat) Point {
	if len(seats) == 0 {
		return Point{}
	}
	minR, maxR := seats[0].GridRow, seats[0].GridRow
	minC, maxC := seats[0].GridCol, seats[0].GridCol
	for _, s := range seats[1:] {
		minR, maxR = min(minR, s.GridRow), max(maxR, s.GridRow)
		minC, maxC = min(minC, s.GridCol), max(maxC, s.GridCol)
	}
	return Point{
		Row: float64(minR) + 2*float64(maxR-minR)/3,
		Col: float64(minC+maxC) / 2,
	}
}

// Party is what a best-available request asks for: Count seats, all of
// Category ("": any), of which Accessible are wheelchair spaces, each with
// a seat beside it for a companion.
type Party struct {
	Count      int
	Category   string
	Accessible int
}

// Choice is the seats chosen for a party, in groups of seats side by side.
type Choice struct {
	Seats []string
	// Together: the whole party sits side by side in one row.
	Together bool
	// Groups are where the party sits, the largest first: one group when
	// Together.
	Groups []Group
}

// Group is seats side by side in one row.
type Group struct {
	Row   string
	Seats []string
}

// ErrNotEnough is a party larger than the free seats of its kind.
var ErrNotEnough = errors.New("not enough free seats")

// hall is a show's seats by grid row and column, and the runs of seats side
// by side.
type hall struct {
	// rowWeight is what a row apart counts for against a column apart
	// (squared, in distance): 1 to the ideal viewing point; more when a
	// choice near a person's own pick should stay in its row.
	rowWeight float64
	seats     []Seat
	runs      [][]int // indexes into seats, each run in column order
	run       []int   // seat index -> its run
	pos       []int   // seat index -> its place in its run
}

func newHall(seats []Seat) *hall {
	order := make([]int, len(seats))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(seats[a].GridRow, seats[b].GridRow), cmp.Compare(seats[a].GridCol, seats[b].GridCol))
	})
	h := &hall{rowWeight: 1, seats: seats, run: make([]int, len(seats)), pos: make([]int, len(seats))}
	for k, i := range order {
		if k == 0 || seats[i].GridRow != seats[order[k-1]].GridRow || seats[i].GridCol != seats[order[k-1]].GridCol+1 {
			h.runs = append(h.runs, nil)
		}
		r := len(h.runs) - 1
		h.run[i], h.pos[i] = r, len(h.runs[r])
		h.runs[r] = append(h.runs[r], i)
	}
	return h
}

// window is n seats side by side: run r from place at.
type window struct{ r, at, n int }

func (h *hall) seatsOf(w window) []int { return h.runs[w.r][w.at : w.at+w.n] }

// strands reports whether taking w (with taken, seats already chosen)
// would leave a free seat alone beside it: free, with a taken seat or the
// run's end on its other side.
func (h *hall) strands(w window, taken map[int]bool) bool {
	run := h.runs[w.r]
	free := func(p int) bool { return p >= 0 && p < len(run) && h.seats[run[p]].Free && !taken[run[p]] }
	left, right := w.at-1, w.at+w.n
	return (free(left) && !free(left-1)) || (free(right) && !free(right+1))
}

// count counts the seats of w that are so.
func (h *hall) count(w window, is func(Seat) bool) int {
	n := 0
	for _, i := range h.seatsOf(w) {
		if is(h.seats[i]) {
			n++
		}
	}
	return n
}

func isSpace(s Seat) bool     { return s.Accessible }
func isCompanion(s Seat) bool { return s.Companion }

// distance is how far w's middle is from ideal, squared.
func (h *hall) distance(w window, ideal Point) float64 {
	run := h.runs[w.r]
	first, last := h.seats[run[w.at]], h.seats[run[w.at+w.n-1]]
	dr := float64(first.GridRow) - ideal.Row
	dc := float64(first.GridCol+last.GridCol)/2 - ideal.Col
	return h.rowWeight*dr*dr + dc*dc
}

// better orders windows for a party with wheelchairs wheelchair spaces:
// one that strands nobody first, then one that takes no wheelchair space
// the party does not need, then (for a party with wheelchairs) the most
// companion seats, then nearest the ideal point, then front row
// first and left first, so that the same seats always give the same choice.
func (h *hall) better(a, b window, wheelchairs int, taken map[int]bool, ideal Point) bool {
	if sa, sb := h.strands(a, taken), h.strands(b, taken); sa != sb {
		return !sa
	}
	if sa, sb := h.count(a, isSpace) > wheelchairs, h.count(b, isSpace) > wheelchairs; sa != sb {
		return !sa
	}
	if wheelchairs > 0 {
		// Companion seats beside the spaces, as many as there are.
		if ca, cb := h.count(a, isCompanion), h.count(b, isCompanion); ca != cb {
			return ca > cb
		}
	}
	if da, db := h.distance(a, ideal), h.distance(b, ideal); da != db {
		return da < db
	}
	fa, fb := h.seats[h.runs[a.r][a.at]], h.seats[h.runs[b.r][b.at]]
	return fa.GridRow < fb.GridRow || fa.GridRow == fb.GridRow && fa.GridCol < fb.GridCol
}

// best returns the best window of n seats that fit (every seat ok and not
// taken) and hold at least wheelchairs wheelchair spaces.
func (h *hall) best(n, wheelchairs int, ok func(Seat) bool, taken map[int]bool, ideal Point) (window, bool) {
	var found window
	var any bool
	for r, run := range h.runs {
		fit, spaces := 0, 0 // seats that fit ending at p; wheelchair spaces among the last n
		for p, i := range run {
			if ok(h.seats[i]) && !taken[i] {
				fit++
			} else {
				fit = 0
			}
			if h.seats[i].Accessible {
				spaces++
			}
			if p >= n && h.seats[run[p-n]].Accessible {
				spaces--
			}
			if fit < n || spaces < wheelchairs {
				continue
			}
			w := window{r: r, at: p - n + 1, n: n}
			if !any || h.better(w, found, wheelchairs, taken, ideal) {
				found, any = w, true
			}
		}
	}
	return found, any
}

// Best chooses the seats for party p: side by side in one row where
// possible, nearest ideal, never leaving a seat alone beside them when
// another choice avoids it; else in as few groups as it can, the largest
// first, each chosen the same way. Wheelchair spaces come each with the seat
// beside it. ErrNotEnough when fewer seats of the kind are free.
func Best(seats []Seat, p Party, ideal Point) (Choice, error) {
	if p.Count < 1 || p.Accessible < 0 || p.Accessible > p.Count {
		return Choice{}, errors.New("a party is 1 or more seats, of which at most all are wheelchair spaces")
	}
	h := newHall(seats)
	ok := func(s Seat) bool { return s.Free && (p.Category == "" || s.Category == p.Category) }
	free, spaces := 0, 0
	for _, s := range seats {
		if ok(s) {
			free++
			if s.Accessible {
				spaces++
			}
		}
	}
	if free < p.Count || spaces < p.Accessible {
		return Choice{}, ErrNotEnough
	}
	taken := map[int]bool{}
	var groups []window
	take := func(w window) {
		groups = append(groups, w)
		for _, i := range h.seatsOf(w) {
			taken[i] = true
		}
	}
	if w, found := h.best(p.Count, p.Accessible, ok, taken, ideal); found {
		take(w)
		return h.choice(groups, true), nil
	}
	// Apart: each wheelchair space with a seat beside it first, then the
	// rest in groups as large as the hall still has.
	left, companions := p.Count, p.Count-p.Accessible
	for range p.Accessible {
		w, found := window{}, false
		if companions > 0 {
			w, found = h.best(2, 1, ok, taken, ideal)
		}
		if !found {
			w, found = h.best(1, 1, ok, taken, ideal)
		}
		if !found {
			return Choice{}, ErrNotEnough
		}
		take(w)
		left -= w.n
		companions -= w.n - 1
	}
	for left > 0 {
		var w window
		found := false
		for n := left; n >= 1 && !found; n-- {
			w, found = h.best(n, 0, ok, taken, ideal)
		}
		if !found {
			return Choice{}, ErrNotEnough
		}
		take(w)
		left -= w.n
	}
	return h.choice(groups, len(groups) == 1), nil
}

func (h *hall) choice(groups []window, together bool) Choice {
	slices.SortStableFunc(groups, func(a, b window) int { return cmp.Compare(b.n, a.n) })
	c := Choice{Together: together}
	for _, w := range groups {
		g := Group{Row: h.seats[h.runs[w.r][w.at]].Row}
		for _, i := range h.seatsOf(w) {
			g.Seats = append(g.Seats, h.seats[i].ID)
		}
		c.Groups = append(c.Groups, g)
		c.Seats = append(c.Seats, g.Seats...)
	}
	return c
}

// Stranded returns the free seats that taking pick would leave alone in
// their row (between taken seats, or a taken seat and the row's end or an
// aisle), in grid order. A seat already alone before is not pick's doing
// and is not named. Seats of pick the hall does not have are ignored.
func Stranded(seats []Seat, pick []string) []string {
	h := newHall(seats)
	taken := h.indexes(pick)
	var out []int
	for i := range taken {
		run := h.runs[h.run[i]]
		at := h.pos[i]
		free := func(p int) bool { return p >= 0 && p < len(run) && h.seats[run[p]].Free && !taken[run[p]] }
		for _, side := range []int{-1, 1} {
			if x := at + side; free(x) && !free(x+side) && !slices.Contains(out, run[x]) {
				out = append(out, run[x])
			}
		}
	}
	slices.SortFunc(out, func(a, b int) int {
		return cmp.Or(cmp.Compare(seats[a].GridRow, seats[b].GridRow), cmp.Compare(seats[a].GridCol, seats[b].GridCol))
	})
	ids := make([]string, len(out))
	for k, i := range out {
		ids[k] = seats[i].ID
	}
	return ids
}

// suggestRowWeight keeps a suggestion in the row a person picked unless
// the row has nothing within two seats of four: moving a row is the bigger
// change.
const suggestRowWeight = 16

// Suggest returns the nearest choice to pick of as many seats side by side,
// free, of the category of pick's first seat, that leaves no seat alone:
// what a person who picked pick by hand is offered instead. false when the
// hall has none.
func Suggest(seats []Seat, pick []string) ([]string, bool) {
	h := newHall(seats)
	h.rowWeight = suggestRowWeight
	picked := h.indexes(pick)
	if len(picked) == 0 {
		return nil, false
	}
	var centre Point
	category, first := "", true
	for _, i := range h.sorted(picked) {
		s := h.seats[i]
		if first {
			category, first = s.Category, false
		}
		centre.Row += float64(s.GridRow) / float64(len(picked))
		centre.Col += float64(s.GridCol) / float64(len(picked))
	}
	// The picked seats are free to choose again (they are not taken yet).
	ok := func(s Seat) bool { return s.Free && s.Category == category }
	w, found := h.best(len(pick), 0, ok, map[int]bool{}, centre)
	if !found || h.strands(w, nil) {
		return nil, false
	}
	return h.choice([]window{w}, true).Seats, true
}

// indexes returns the seats of the hall named by ids.
func (h *hall) indexes(ids []string) map[int]bool {
	out := map[int]bool{}
	for i, s := range h.seats {
		if slices.Contains(ids, s.ID) {
			out[i] = true
		}
	}
	return out
}

// sorted returns the seat indexes of set in grid order.
func (h *hall) sorted(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	slices.SortFunc(out, func(a, b int) int {
		return cmp.Or(cmp.Compare(h.seats[a].GridRow, h.seats[b].GridRow), cmp.Compare(h.seats[a].GridCol, h.seats[b].GridCol))
	})
	return out
}
