package seating

import (
	"fmt"
	"slices"
	"testing"
)

func TestGroupsOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []string
		pick []string
		want string
	}{
		{"together", []string{"......"}, []string{"A3", "A2", "A4"}, "[{A [A2 A3 A4]}]"},
		{"in two rows, the larger first", []string{"......", "......"}, []string{"A1", "A2", "B2", "B3", "B4", "B5"}, "[{B [B2 B3 B4 B5]} {A [A1 A2]}]"},
		{"an aisle parts a row", []string{"...  ..."}, []string{"A2", "A3", "A4", "A5"}, "[{A [A2 A3]} {A [A4 A5]}]"},
		{"a taken seat between parts it too", []string{".x.."}, []string{"A1", "A3", "A4"}, "[{A [A3 A4]} {A [A1]}]"},
		{"equal groups front to back", []string{"....", "....", "...."}, []string{"C1", "A4", "B2"}, "[{A [A4]} {B [B2]} {C [C1]}]"},
		{"seats the hall does not have are ignored", []string{"..."}, []string{"A1", "Z9"}, "[{A [A1]}]"},
		{"nothing picked", []string{"..."}, nil, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(GroupsOf(layout(tc.rows...), tc.pick)); got != tc.want {
				t.Fatalf("GroupsOf(%v) = %s, want %s", tc.pick, got, tc.want)
			}
		})
	}
}

// The groups of best available's choice are the groups it says it chose
// (among groups of one size, maybe in another order).
func TestGroupsOfBest(t *testing.T) {
	seats := layout("..x.x...", "x..x..x.", "...x....")
	sorted := func(groups []Group) []string {
		out := make([]string, len(groups))
		for i, g := range groups {
			out[i] = fmt.Sprint(len(g.Seats), g)
		}
		slices.Sort(out)
		return out
	}
	for n := 1; n <= 12; n++ {
		c, err := Best(seats, Party{Count: n}, DefaultIdeal(seats))
		if err != nil {
			t.Fatal(err)
		}
		got := GroupsOf(seats, c.Seats)
		if !slices.Equal(sorted(got), sorted(c.Groups)) || (len(got) == 1) != c.Together {
			t.Fatalf("%d seats: GroupsOf(%v) = %v, Best says %v (together %v)", n, c.Seats, got, c.Groups, c.Together)
		}
	}
}
