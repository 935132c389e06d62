package seating

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// layout draws a hall from rows of text: one character a grid column, '.'
// a free seat, 'x' a taken one, 'w' a free wheelchair space, 'c' a free
// companion seat, ' ' no seat (an aisle or a gap). Rows are labelled A, B,
// ... from the front; seats are numbered from 1 along the row.
func layout(rows ...string) []Seat {
	var seats []Seat
	for r, line := range rows {
		label := string(rune('A' + r))
		n := 0
		for c, ch := range line {
			if ch == ' ' {
				continue
			}
			n++
			seats = append(seats, Seat{
				ID: fmt.Sprintf("%s%d", label, n), Row: label, GridRow: r, GridCol: c, Category: "STANDARD",
				Free: ch != 'x', Accessible: ch == 'w', Companion: ch == 'c',
			})
		}
	}
	return seats
}

func TestStranded(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []string
		pick []string
		want []string
	}{
		{"nobody left alone", []string{"......"}, []string{"A1", "A2", "A3"}, nil},
		{"at the row's end", []string{"......"}, []string{"A2", "A3", "A4"}, []string{"A1"}},
		{"between the pick and a taken seat", []string{"....x."}, []string{"A1", "A2", "A3"}, []string{"A4"}},
		{"beside an aisle", []string{"...  ..."}, []string{"A1", "A2"}, []string{"A3"}},
		{"on both sides", []string{".....x"}, []string{"A2", "A3", "A4"}, []string{"A1", "A5"}},
		{"in two rows", []string{"....", "...."}, []string{"A2", "A3", "A4", "B1", "B2", "B3"}, []string{"A1", "B4"}},
		{"a seat alone already is not the pick's doing", []string{".x...."}, []string{"A3", "A4", "A5", "A6"}, nil},
		{"a gap in the row's seats ends it too", []string{"..  ...."}, []string{"A4", "A5", "A6"}, []string{"A3"}},
		{"seats the hall does not have are ignored", []string{"..."}, []string{"A1", "A2", "Z9"}, []string{"A3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Stranded(layout(tc.rows...), tc.pick); !slices.Equal(got, tc.want) {
				t.Fatalf("Stranded(%v) = %v, want %v", tc.pick, got, tc.want)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	// The example of the show page: F5 would be left alone.
	seats := layout("..........", "..........", "..........", "..........", "..........", "xxxx......")
	pick := []string{"F6", "F7", "F8"}
	if got := Stranded(seats, pick); !slices.Equal(got, []string{"F5"}) {
		t.Fatalf("Stranded = %v, want [F5]", got)
	}
	got, ok := Suggest(seats, pick)
	if !ok || !slices.Equal(got, []string{"F5", "F6", "F7"}) {
		t.Fatalf("Suggest = %v, %v; want F5-F7", got, ok)
	}
	if s := Stranded(seats, got); len(s) != 0 {
		t.Fatalf("the suggestion strands %v", s)
	}

	// Nothing of that size strands nobody: no suggestion.
	if got, ok := Suggest(layout("x...x"), []string{"A3", "A4"}); ok {
		t.Fatalf("Suggest = %v, want none", got)
	}
}

func TestBestExamples(t *testing.T) {
	t.Run("side by side, nearest two thirds back on the centre line", func(t *testing.T) {
		seats := layout("..........", "..........", "..........", "..........")
		c, err := Best(seats, Party{Count: 2}, DefaultIdeal(seats))
		// Two thirds back of rows 0-3 is row 2 (C); the centre of columns
		// 0-9 is 4.5: C5 and C6.
		if err != nil || !c.Together || !slices.Equal(c.Seats, []string{"C5", "C6"}) {
			t.Fatalf("Best = %+v, %v; want C5, C6 together", c, err)
		}
	})
	t.Run("a choice that strands nobody beats a nearer one that does", func(t *testing.T) {
		// Ideal at A4; A3-A4 would leave A2 alone between A1 (taken) and A3.
		seats := layout("x.......")
		c, err := Best(seats, Party{Count: 2}, Point{Row: 0, Col: 3})
		if err != nil || len(Stranded(seats, c.Seats)) != 0 || !slices.Equal(c.Seats, []string{"A4", "A5"}) {
			t.Fatalf("Best = %+v, %v; want A4, A5 (nobody alone)", c, err)
		}
	})
	t.Run("apart when no row has them together, and says where", func(t *testing.T) {
		seats := layout("....xx", "..xxxx", "xxxx..")
		c, err := Best(seats, Party{Count: 6}, DefaultIdeal(seats))
		if err != nil || c.Together || len(c.Seats) != 6 {
			t.Fatalf("Best = %+v, %v", c, err)
		}
		if len(c.Groups) != 2 || len(c.Groups[0].Seats) != 4 || c.Groups[0].Row != "A" || len(c.Groups[1].Seats) != 2 {
			t.Fatalf("groups %+v, want 4 in row A and 2 in another", c.Groups)
		}
	})
	t.Run("only the category asked for", func(t *testing.T) {
		seats := layout("......", "......")
		for i := range seats {
			if seats[i].Row == "B" {
				seats[i].Category = "PREMIUM"
			}
		}
		c, err := Best(seats, Party{Count: 3, Category: "PREMIUM"}, Point{})
		if err != nil || !strings.HasPrefix(c.Seats[0], "B") {
			t.Fatalf("Best = %+v, %v; want row B", c, err)
		}
		if _, err := Best(seats, Party{Count: 7, Category: "PREMIUM"}, Point{}); !errors.Is(err, ErrNotEnough) {
			t.Fatalf("7 of 6 premium seats: %v, want ErrNotEnough", err)
		}
	})
	t.Run("a wheelchair space with its companion seat beside it", func(t *testing.T) {
		seats := layout("......", "..cw..")
		c, err := Best(seats, Party{Count: 2, Accessible: 1}, Point{})
		if err != nil || !c.Together || !slices.Equal(c.Seats, []string{"B3", "B4"}) {
			t.Fatalf("Best = %+v, %v; want B3 (companion) and B4 (space)", c, err)
		}
		// A party that needs no space does not take one.
		c, err = Best(seats, Party{Count: 2}, Point{Row: 1, Col: 3})
		if err != nil || slices.Contains(c.Seats, "B4") {
			t.Fatalf("Best = %+v, %v; took the wheelchair space", c, err)
		}
	})
	t.Run("bad parties", func(t *testing.T) {
		for _, p := range []Party{{Count: 0}, {Count: 2, Accessible: 3}, {Count: 2, Accessible: -1}} {
			if _, err := Best(layout("...."), p, Point{}); err == nil || errors.Is(err, ErrNotEnough) {
				t.Fatalf("%+v: %v, want a refusal", p, err)
			}
		}
	})
}

// randomHall draws a hall of up to 8 rows of up to 14 columns with gaps,
// an aisle now and then, two categories, wheelchair spaces with companion
// seats in the back row, and seats taken at random.
func randomHall(rng *rand.Rand) []Seat {
	rows, cols := 1+rng.IntN(8), 1+rng.IntN(14)
	aisle := -1
	if rng.IntN(2) == 0 {
		aisle = rng.IntN(cols)
	}
	taken := rng.Float64()
	var seats []Seat
	for r := range rows {
		n := 0
		for c := range cols {
			if c == aisle || rng.IntN(10) == 0 {
				continue
			}
			n++
			s := Seat{
				ID: fmt.Sprintf("%c%d", 'A'+r, n), Row: string(rune('A' + r)), GridRow: r, GridCol: c,
				Category: "STANDARD", Free: rng.Float64() >= taken,
			}
			if r >= rows/2 {
				s.Category = "PREMIUM"
			}
			if r == rows-1 && rng.IntN(3) == 0 {
				if rng.IntN(2) == 0 {
					s.Accessible = true
				} else {
					s.Companion = true
				}
			}
			seats = append(seats, s)
		}
	}
	return seats
}

// windows lists, by brute force, every n seats side by side that fit.
func windows(seats []Seat, n int, fit func(Seat) bool) [][]Seat {
	at := map[[2]int]Seat{}
	for _, s := range seats {
		at[[2]int{s.GridRow, s.GridCol}] = s
	}
	var out [][]Seat
	for _, s := range seats {
		w := []Seat{}
		for k := range n {
			x, ok := at[[2]int{s.GridRow, s.GridCol + k}]
			if !ok || !fit(x) {
				break
			}
			w = append(w, x)
		}
		if len(w) == n {
			out = append(out, w)
		}
	}
	return out
}

func ids(w []Seat) []string {
	out := make([]string, len(w))
	for i, s := range w {
		out[i] = s.ID
	}
	return out
}

// key is what Best ranks a window by, computed apart from it: strands
// anyone, takes a space it needs not, distance to ideal (lower is better).
func key(seats []Seat, w []Seat, ideal Point) (bool, bool, float64) {
	spaces := 0
	for _, s := range w {
		if s.Accessible {
			spaces++
		}
	}
	dr := float64(w[0].GridRow) - ideal.Row
	dc := float64(w[0].GridCol+w[len(w)-1].GridCol)/2 - ideal.Col
	return len(Stranded(seats, ids(w))) > 0, spaces > 0, dr*dr + dc*dc
}

func TestBestProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		seats := randomHall(rng)
		party := Party{Count: 1 + rng.IntN(8)}
		if rng.IntN(3) == 0 {
			party.Category = "PREMIUM"
		}
		ideal := DefaultIdeal(seats)
		fit := func(s Seat) bool { return s.Free && (party.Category == "" || s.Category == party.Category) }
		free := 0
		for _, s := range seats {
			if fit(s) {
				free++
			}
		}
		c, err := Best(seats, party, ideal)
		what := fmt.Sprintf("trial %d, %+v", trial, party)
		if free < party.Count {
			if !errors.Is(err, ErrNotEnough) {
				t.Fatalf("%s: %d seats fit, got %+v, %v; want ErrNotEnough", what, free, c, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}

		// Only seats that fit, each once, as many as asked.
		byID := map[string]Seat{}
		for _, s := range seats {
			byID[s.ID] = s
		}
		seen := map[string]bool{}
		for _, id := range c.Seats {
			if s, ok := byID[id]; !ok || !fit(s) || seen[id] {
				t.Fatalf("%s: chose %v: %s is not a free seat of the kind, or twice", what, c.Seats, id)
			}
			seen[id] = true
		}
		if len(c.Seats) != party.Count {
			t.Fatalf("%s: chose %d seats", what, len(c.Seats))
		}

		// Together exactly when the hall has them together, and then the
		// best window: no window strands fewer, spares a space more, or is
		// nearer (ties are broken front row and left first).
		all := windows(seats, party.Count, fit)
		if c.Together != (len(all) > 0) {
			t.Fatalf("%s: together %v, but %d windows fit", what, c.Together, len(all))
		}
		if c.Together {
			chosen := -1
			for i, w := range all {
				if slices.Equal(ids(w), c.Seats) {
					chosen = i
				}
			}
			if chosen < 0 {
				t.Fatalf("%s: %v is not seats side by side", what, c.Seats)
			}
			cs, cw, cd := key(seats, all[chosen], ideal)
			for _, w := range all {
				ws, ww, wd := key(seats, w, ideal)
				c0, w0 := all[chosen][0], w[0]
				earlier := w0.GridRow < c0.GridRow || w0.GridRow == c0.GridRow && w0.GridCol < c0.GridCol
				if better := (!ws && cs) || (ws == cs && !ww && cw) || (ws == cs && ww == cw && (wd < cd || wd == cd && earlier)); better {
					t.Fatalf("%s: chose %v (strands %v, space %v, distance %.2f) over %v (%v, %v, %.2f)",
						what, c.Seats, cs, cw, cd, ids(w), ws, ww, wd)
				}
			}
		} else if len(c.Groups) < 2 {
			t.Fatalf("%s: apart in %d groups", what, len(c.Groups))
		}

		// The same seats in another order give the same choice.
		shuffled := slices.Clone(seats)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		again, err := Best(shuffled, party, ideal)
		if err != nil || !slices.Equal(again.Seats, c.Seats) {
			t.Fatalf("%s: %v, then %v in another order", what, c.Seats, again.Seats)
		}
	}
}

func TestBestAccessibleProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	chosen := 0
	for trial := range 3000 {
		seats := randomHall(rng)
		party := Party{Count: 2 + rng.IntN(3), Accessible: 1}
		c, err := Best(seats, party, DefaultIdeal(seats))
		if errors.Is(err, ErrNotEnough) {
			continue
		}
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		chosen++
		// The wheelchair space's group has a seat beside it, if the hall
		// had a space with a free seat beside it.
		fit := func(s Seat) bool { return s.Free }
		paired := false
		for _, w := range windows(seats, 2, fit) {
			paired = paired || w[0].Accessible || w[1].Accessible
		}
		spaces, beside := 0, 0 // spaces chosen; groups of a space and a seat beside it
		for _, g := range c.Groups {
			has := false
			for _, id := range g.Seats {
				for _, s := range seats {
					if s.ID == id && s.Accessible {
						spaces++
						has = true
					}
				}
			}
			if has && len(g.Seats) >= 2 {
				beside++
			}
		}
		if spaces < party.Accessible {
			t.Fatalf("trial %d: %+v has %d wheelchair spaces, want %d", trial, c, spaces, party.Accessible)
		}
		if paired && beside < 1 {
			t.Fatalf("trial %d: %+v: no space has a seat beside it, though the hall had one; hall %+v", trial, c, seats)
		}
	}
	if chosen < 100 {
		t.Fatalf("only %d of 3000 halls could seat a wheelchair party: the generator is off", chosen)
	}
}
