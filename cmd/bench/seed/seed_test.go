package seed_test

import (
	"context"
	"testing"

	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestRowLabel(t *testing.T) {
	for r, want := range map[int]string{0: "A", 1: "B", 25: "Z", 26: "AA", 27: "AB", 51: "AZ", 52: "BA", 701: "ZZ", 702: "AAA"} {
		if got := seed.RowLabel(r); got != want {
			t.Errorf("RowLabel(%d) = %q, want %q", r, got, want)
		}
	}
	if got := seed.SeatID(26, 9); got != "AA10" {
		t.Errorf("SeatID(26, 9) = %q, want AA10", got)
	}
}

func TestGrid(t *testing.T) {
	g := seed.Grid(2, 3)
	want := []string{"A1", "A2", "A3", "B1", "B2", "B3"}
	if len(g) != len(want) {
		t.Fatalf("Grid(2, 3) has %d seats, want %d", len(g), len(want))
	}
	for i, s := range g {
		if s.ID != want[i] || s.Row != want[i][:1] || s.Number != i%3+1 || s.GridRow != i/3 || s.GridCol != i%3 || s.Category != "STANDARD" {
			t.Errorf("seat %d = %+v, want %s in row %d column %d", i, s, want[i], i/3, i%3)
		}
	}
}

func TestSeed(t *testing.T) {
	ctx := context.Background()
	store := pgtest.NewStore(t, 4)
	w, err := seed.Seed(ctx, store, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Users) != 3 || len(w.ManyShows) != 2 || w.HotShow == 0 {
		t.Fatalf("world: %d users, %d shows, hot show %d; want 3, 2 and one", len(w.Users), len(w.ManyShows), w.HotShow)
	}
	t.Run("every show has the grid, all available at one price, a week ahead", func(t *testing.T) {
		for _, id := range append([]int64{w.HotShow}, w.ManyShows...) {
			seats, err := store.SeatStates(ctx, id, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(seats) != seed.ShowRows*seed.ShowCols {
				t.Errorf("show %d has %d seats, want %d", id, len(seats), seed.ShowRows*seed.ShowCols)
			}
			for _, s := range seats {
				if s.Status != booking.SeatAvailable || s.PriceMinor != 25000 {
					t.Errorf("show %d seat %s: %s at %d", id, s.ID, s.Status, s.PriceMinor)
				}
			}
			show, err := store.Show(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !show.StartsAt.Equal(w.Venue.StartsAt) {
				t.Errorf("show %d starts at %s, want %s", id, show.StartsAt, w.Venue.StartsAt)
			}
		}
	})
	t.Run("users log in with the shared password", func(t *testing.T) {
		more, err := seed.Users(ctx, store, "slot", 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range append(w.Users, more...) {
			wantEmail := []string{"bench-0@example.com", "bench-1@example.com", "bench-2@example.com",
				"bench-slot-0@example.com", "bench-slot-1@example.com"}[i]
			if u.Email != wantEmail {
				t.Errorf("user %d: %s, want %s", i, u.Email, wantEmail)
			}
			a, hash, err := store.UserByEmail(ctx, u.Email)
			if err != nil {
				t.Fatal(err)
			}
			if a.ID != u.ID || !(auth.Hasher{}).Check(hash, seed.Password) {
				t.Errorf("user %s: id %s (want %s), or the password does not verify", u.Email, a.ID, u.ID)
			}
		}
	})
}

func TestAdmin(t *testing.T) {
	ctx := context.Background()
	store := pgtest.NewStore(t, 2)
	u, err := seed.Admin(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	a, hash, err := store.UserByEmail(ctx, "bench-admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != u.ID || a.Role != auth.RolePlatformAdmin || !(auth.Hasher{}).Check(hash, seed.Password) {
		t.Errorf("admin %+v (want id %s, a platform admin), or the password does not verify", a, u.ID)
	}
}
