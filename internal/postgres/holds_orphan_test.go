package postgres_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// orphanWorld is a world whose show is this hall, its theatre keeping the
// orphan rule:
//
//	A  1 2 3 4 5 6
//	B  1 2 3 | 4 5 6 7     (an aisle between B3 and B4)
//	C      1 2 3           (PREMIUM, the only seats of their kind)
func orphanWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	var seats []catalog.SeatSpec
	add := func(row string, gridRow int, category string, cols ...int) {
		for i, col := range cols {
			seats = append(seats, catalog.SeatSpec{ID: fmt.Sprintf("%s%d", row, i+1), Row: row, Number: i + 1,
				Category: category, GridRow: gridRow, GridCol: col})
		}
	}
	add("A", 0, "STANDARD", 0, 1, 2, 3, 4, 5)
	add("B", 1, "STANDARD", 0, 1, 2, 4, 5, 6, 7)
	add("C", 2, "PREMIUM", 2, 3, 4)
	screen, err := w.store.CreateScreen(ctx, w.venue.TheatreID, "Orphans", seats)
	if err != nil {
		t.Fatal(err)
	}
	starts := w.clock.Now().Add(48 * time.Hour)
	w.show, err = w.store.CreateShow(ctx, catalog.Show{MovieID: w.venue.MovieID, ScreenID: screen,
		StartsAt: starts, EndsAt: starts.Add(2 * time.Hour), Currency: "INR", Prices: pgtest.Prices})
	if err != nil {
		t.Fatal(err)
	}
	w.orphanRule(true)
	return w
}

func (w *world) orphanRule(on bool) {
	w.t.Helper()
	if err := pgtest.SetOrphanRule(ctx, w.store, w.venue.TheatreID, on); err != nil {
		w.t.Fatal(err)
	}
}

// wantOrphan checks that err refuses a hold for leaving stranded alone,
// offering suggestion, and that nothing of the hold is left.
func (w *world) wantOrphan(err error, stranded, suggestion []string) {
	w.t.Helper()
	var e *booking.OrphanSeatError
	if !errors.As(err, &e) {
		w.t.Fatalf("err = %v, want the orphan rule's refusal", err)
	}
	if !slices.Equal(e.Seats, stranded) || !slices.Equal(e.Suggestion, suggestion) {
		w.t.Fatalf("refused for leaving %v alone, suggesting %v; want %v, suggesting %v", e.Seats, e.Suggestion, stranded, suggestion)
	}
}

// heldSeats counts what holds own: held seats, holds, keys and seat events.
func (w *world) heldSeats() string {
	w.t.Helper()
	return pgtest.Scalar[string](w.t, w.store.Pool(), `
		SELECT format('seats=%s holds=%s keys=%s events=%s',
			(SELECT count(*) FROM show_seats WHERE show_id = $1 AND status <> 'AVAILABLE'),
			(SELECT count(*) FROM holds WHERE show_id = $1),
			(SELECT count(*) FROM hold_keys),
			(SELECT count(*) FROM seat_events WHERE show_id = $1))`, w.show)
}

func TestOrphanRule(t *testing.T) {
	t.Run("a row's end: the seat left at it is named, the nearest pair that leaves nobody alone offered", func(t *testing.T) {
		w := orphanWorld(t)
		before := w.heldSeats()
		_, err := w.tryHold(w.user(), "A2", "A3")
		w.wantOrphan(err, []string{"A1"}, []string{"A1", "A2"})
		if after := w.heldSeats(); after != before {
			t.Fatalf("a refused hold changed %s to %s", before, after)
		}
		// The offer is a hold that goes ahead.
		if h := w.hold(w.user(), "A1", "A2"); h.State != booking.HoldHeld {
			t.Fatalf("the suggestion = %+v", h)
		}
	})
	t.Run("an aisle is a row's end", func(t *testing.T) {
		w := orphanWorld(t)
		_, err := w.tryHold(w.user(), "B5")
		w.wantOrphan(err, []string{"B4"}, []string{"B4"})
		// B2 strands B1 at the wall and B3 at the aisle, both named.
		_, err = w.tryHold(w.user(), "B2")
		w.wantOrphan(err, []string{"B1", "B3"}, []string{"B1"})
		// Across the aisle nobody is a neighbour: B3 and B4 may be
		// taken, leaving B1-B2 and B5-B7.
		w.hold(w.user(), "B3")
		w.hold(w.user(), "B4")
	})
	t.Run("a gap between taken seats", func(t *testing.T) {
		w := orphanWorld(t)
		w.hold(w.user(), "A1") // at the row's end: A2-A6 stay together
		_, err := w.tryHold(w.user(), "A3", "A4")
		w.wantOrphan(err, []string{"A2"}, []string{"A2", "A3"})
		_, err = w.tryHold(w.user(), "A3")
		w.wantOrphan(err, []string{"A2"}, []string{"A2"})
	})
	t.Run("only a free seat can be left alone: taken, blocked or not", func(t *testing.T) {
		w := orphanWorld(t)
		w.orphanRule(false)
		w.hold(w.user(), "A1")
		if _, err := w.store.BlockSeats(ctx, w.show, []string{"B1"}, audit.Entry{ActorID: w.user(), TheatreID: w.venue.TheatreID, Action: "show.block", Object: "show"}); err != nil {
			t.Fatal(err)
		}
		w.orphanRule(true)
		w.hold(w.user(), "A2", "A3")
		w.hold(w.user(), "B2", "B3")
	})
	t.Run("a seat of a hold that has lapsed is free, and may be left alone", func(t *testing.T) {
		w := orphanWorld(t)
		w.hold(w.user(), "A1")
		w.clock.Advance(ttl)
		_, err := w.tryHold(w.user(), "A2", "A3")
		w.wantOrphan(err, []string{"A1"}, []string{"A1", "A2"})
	})
	t.Run("a theatre without the rule holds what is picked", func(t *testing.T) {
		w := orphanWorld(t)
		w.orphanRule(false)
		if h := w.hold(w.user(), "A2", "A3"); !slices.Equal(h.Seats, []string{"A2", "A3"}) {
			t.Fatalf("held %v", h.Seats)
		}
		w.hold(w.user(), "B5")
	})
	t.Run("with no choice of as many seats that leaves nobody alone, the hold goes ahead", func(t *testing.T) {
		// Any two premium seats of three leave the third alone.
		w := orphanWorld(t)
		if h := w.hold(w.user(), "C1", "C2"); !slices.Equal(h.Seats, []string{"C1", "C2"}) {
			t.Fatalf("held %v", h.Seats)
		}
	})
	t.Run("seats picked apart are judged together", func(t *testing.T) {
		// A1 and A3 leave A2 between them; A1-A2 and A5-A6 leave A3-A4.
		w := orphanWorld(t)
		_, err := w.tryHold(w.user(), "A1", "A3")
		w.wantOrphan(err, []string{"A2"}, []string{"A1", "A2"})
		w.hold(w.user(), "A1", "A2", "A5", "A6")
	})
	t.Run("a retry of a hold that won replays it, whatever its neighbours did since", func(t *testing.T) {
		w := orphanWorld(t)
		u := w.user()
		req := booking.HoldRequest{UserID: u, ShowID: w.show, Seats: []string{"A1", "A2"}, TTL: ttl, Key: "won"}
		first, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil {
			t.Fatal(err)
		}
		// A4 is taken where the rule is off for a moment: A3, beside the
		// hold, is now alone.
		w.orphanRule(false)
		w.hold(w.user(), "A4")
		w.orphanRule(true)
		again, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil || !again.Replayed || again.Hold.ID != first.Hold.ID {
			t.Fatalf("retry = %+v, %v; want the hold %s replayed", again, err, first.Hold.ID)
		}
	})
	t.Run("a refused request leaves its key unused: asked again once nobody is left alone, it holds", func(t *testing.T) {
		w := orphanWorld(t)
		u := w.user()
		req := booking.HoldRequest{UserID: u, ShowID: w.show, Seats: []string{"A2", "A3"}, TTL: ttl, Key: "refused"}
		_, err := w.store.HoldSeats(ctx, req, 10)
		w.wantOrphan(err, []string{"A1"}, []string{"A1", "A2"})
		_, err = w.store.HoldSeats(ctx, req, 10)
		w.wantOrphan(err, []string{"A1"}, []string{"A1", "A2"})
		w.hold(w.user(), "A1")
		res, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil || res.Replayed || !slices.Equal(res.Hold.Seats, []string{"A2", "A3"}) {
			t.Fatalf("asked again = %+v, %v; want A2, A3 held anew", res, err)
		}
	})
	t.Run("best available is not refused: it leaves nobody alone by itself", func(t *testing.T) {
		w := orphanWorld(t)
		res, err := w.holdBest(w.user(), "best", booking.BestAvailable{Count: 2, Category: "STANDARD"})
		if err != nil || !res.Together {
			t.Fatalf("best = %+v, %v", res, err)
		}
		if left := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*) FROM holds WHERE show_id = $1 AND state = 'HELD'`, w.show); left != 1 {
			t.Fatalf("%d holds, want 1", left)
		}
	})
}
