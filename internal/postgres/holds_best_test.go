package postgres_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func (w *world) holdBest(user, key string, best booking.BestAvailable) (booking.HoldResult, error) {
	return w.store.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: w.show, TTL: ttl, Key: key, Best: &best}, 10)
}

func TestHoldBest(t *testing.T) {
	t.Run("the best seats side by side, two thirds back on the centre line, held at once", func(t *testing.T) {
		// 3 rows of 4: two thirds back is row B, the centre between seats 2
		// and 3. B2-B3 would leave B1 and B4 alone: B1-B2, as near, leaves
		// nobody alone (and is left of B3-B4).
		w := newWorld(t)
		u := w.user()
		res, err := w.holdBest(u, "k1", booking.BestAvailable{Count: 2})
		if err != nil || !res.Together || !slices.Equal(res.Hold.Seats, []string{"B1", "B2"}) || res.Hold.State != booking.HoldHeld {
			t.Fatalf("best = %+v, %v; want B1, B2 held together", res, err)
		}
		if res.Hold.AmountMinor != 2*pgtest.Prices["STANDARD"] || res.Terms.StartsAt.IsZero() {
			t.Fatalf("amount %d, terms %+v", res.Hold.AmountMinor, res.Terms)
		}
		for _, id := range []string{"B1", "B2"} {
			if st, owner := w.seat(id); st != booking.SeatHeld || owner != res.Hold.ID {
				t.Fatalf("%s = %s of %s", id, st, owner)
			}
		}
		// The same key again replays the hold, whatever is free now.
		again, err := w.holdBest(u, "k1", booking.BestAvailable{Count: 2})
		if err != nil || !again.Replayed || again.Hold.ID != res.Hold.ID || !again.Together {
			t.Fatalf("retry = %+v, %v; want the same hold replayed", again, err)
		}
		// Another request under that key is refused.
		if _, err := w.holdBest(u, "k1", booking.BestAvailable{Count: 3}); !errors.Is(err, booking.ErrKeyReused) {
			t.Fatalf("the key for 3 seats: %v, want ErrKeyReused", err)
		}
	})
	t.Run("a category, and too few of it", func(t *testing.T) {
		w := newWorld(t)
		res, err := w.holdBest(w.user(), "k", booking.BestAvailable{Count: 4, Category: "PREMIUM"})
		if err != nil || !res.Together || !slices.Equal(res.Hold.Seats, []string{"C1", "C2", "C3", "C4"}) {
			t.Fatalf("best = %+v, %v; want row C", res, err)
		}
		if _, err := w.holdBest(w.user(), "k", booking.BestAvailable{Count: 1, Category: "PREMIUM"}); !errors.Is(err, booking.ErrNotEnoughSeats) {
			t.Fatalf("a premium seat of none: %v, want ErrNotEnoughSeats", err)
		}
		if _, err := w.holdBest(w.user(), "k", booking.BestAvailable{Count: 9}); !errors.Is(err, booking.ErrNotEnoughSeats) {
			t.Fatalf("9 of 8 seats: %v, want ErrNotEnoughSeats", err)
		}
	})
	t.Run("apart when no row has them together", func(t *testing.T) {
		w := newWorld(t)
		w.hold(w.user(), "A3")
		w.hold(w.user(), "B3")
		w.hold(w.user(), "C1")
		res, err := w.holdBest(w.user(), "k", booking.BestAvailable{Count: 4})
		if err != nil || res.Together || len(res.Hold.Seats) != 4 {
			t.Fatalf("best = %+v, %v; want 4 seats apart", res, err)
		}
	})
	t.Run("bad parties change nothing", func(t *testing.T) {
		w := newWorld(t)
		for _, b := range []booking.BestAvailable{{Count: 0}, {Count: 11}, {Count: 2, Accessible: 3}, {Count: 2, Category: "lower"}} {
			if _, err := w.holdBest(w.user(), "k", b); err == nil {
				t.Fatalf("%+v: held", b)
			}
		}
		if n := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*) FROM holds`); n != 0 {
			t.Fatalf("%d holds after bad parties", n)
		}
	})
	t.Run("an expired hold's seats are chosen again", func(t *testing.T) {
		w := newWorld(t)
		w.hold(w.user(), "B1", "B2")
		w.clock.Advance(ttl + time.Second)
		res, err := w.holdBest(w.user(), "k", booking.BestAvailable{Count: 2})
		if err != nil || !slices.Equal(res.Hold.Seats, []string{"B1", "B2"}) {
			t.Fatalf("best = %+v, %v; want the lapsed hold's B1, B2", res, err)
		}
	})
}

// A crowd asks for the best 2 seats at once, while others hold seats by
// name: every seat is held once, and nobody is turned away while 2 seats
// side by side or not remain.
func TestHoldBestCrowd(t *testing.T) {
	w := newWorld(t)
	w.show = pgtest.NewShow(t, w.store, w.venue, 10, 10, w.clock.Now().Add(48*time.Hour)) // 100 seats
	const crowd, byName = 60, 20
	users := make([]string, crowd+byName)
	for i := range users {
		users[i] = w.user()
	}
	var (
		mu      sync.Mutex
		won     int
		refused []error
		start   = make(chan struct{})
		wg      sync.WaitGroup
	)
	for i := range crowd {
		wg.Go(func() {
			<-start
			res, err := w.holdBest(users[i], "best", booking.BestAvailable{Count: 2})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused = append(refused, err)
				return
			}
			won += len(res.Hold.Seats)
		})
	}
	for i := range byName {
		wg.Go(func() {
			<-start
			// Seats of the back rows, some of which the crowd wants too.
			seat := fmt.Sprintf("%c%d", 'F'+i%5, 1+i)
			_, _ = w.store.HoldSeats(ctx, booking.HoldRequest{UserID: users[crowd+i], ShowID: w.show, Seats: []string{seat}, TTL: ttl, Key: "name"}, 10)
		})
	}
	close(start)
	wg.Wait()

	held := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*) FROM show_seats WHERE show_id = $1 AND status = 'HELD'`, w.show)
	inHolds := pgtest.Scalar[int](t, w.store.Pool(), `SELECT coalesce(sum(cardinality(seat_ids)), 0) FROM holds WHERE show_id = $1 AND state = 'HELD'`, w.show)
	distinct := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(DISTINCT s) FROM holds, unnest(seat_ids) s WHERE show_id = $1 AND state = 'HELD'`, w.show)
	if held != inHolds || inHolds != distinct {
		t.Fatalf("%d seats held, %d in holds, %d distinct: a seat in two holds", held, inHolds, distinct)
	}
	free := 100 - held
	for _, err := range refused {
		if !errors.Is(err, booking.ErrNotEnoughSeats) {
			t.Fatalf("a best-available hold failed with %v", err)
		}
	}
	if len(refused) > 0 && free >= 2 {
		t.Fatalf("%d turned away with %d seats still free", len(refused), free)
	}
	t.Logf("%d of %d won %d seats; %d held by name; %d left", crowd-len(refused), crowd, won, held-won, free)
}

// A screen's ideal viewing point, set with its layout, is where best
// available seats a party nearest to; a layout that does not mention it
// keeps it; reset, the default is back.
func TestHoldBestNearTheScreensIdealPoint(t *testing.T) {
	w := newLayoutWorld(t)
	layout := func(ideal catalog.IdealChange) catalog.LayoutChange {
		t.Helper()
		ch, err := w.store.ReplaceLayout(ctx, w.screen, pgtest.Grid(3, 4), ideal, func(ch catalog.LayoutChange) audit.Entry {
			return audit.Entry{ActorID: w.admin, TheatreID: w.venue.TheatreID, Action: "screen.replace_layout",
				Object: fmt.Sprintf("screen %d", w.screen), Before: ch.IdealBefore, After: ch.Ideal}
		})
		if err != nil {
			t.Fatalf("replace layout with %+v: %v", ideal, err)
		}
		return ch
	}
	// best holds the best 2 seats for a new user, then lets them go.
	best := func() []string {
		t.Helper()
		u := w.user()
		res, err := w.holdBest(u, "k", booking.BestAvailable{Count: 2})
		if err != nil || !res.Together {
			t.Fatalf("best 2 = %+v, %v", res, err)
		}
		if _, err := w.store.CancelHold(ctx, u, res.Hold.ID); err != nil {
			t.Fatal(err)
		}
		return res.Hold.Seats
	}

	if got := best(); !slices.Equal(got, []string{"B1", "B2"}) {
		t.Fatalf("by default: %v, want B1, B2 (two thirds back, the centre line)", got)
	}
	// Front right: A3-A4, which strands nobody (A2-A3 would strand A1 and A4).
	front := &catalog.GridPoint{Row: 0, Col: 3}
	if ch := layout(catalog.IdealChange{Set: true, At: front}); ch.IdealBefore != nil || *ch.Ideal != *front {
		t.Fatalf("the change says the ideal went from %v to %v, want nil to %v", ch.IdealBefore, ch.Ideal, front)
	}
	if got := best(); !slices.Equal(got, []string{"A3", "A4"}) {
		t.Fatalf("with the best view at the front right: %v, want A3, A4", got)
	}
	if sc, err := w.store.Screen(ctx, w.screen); err != nil || sc.Ideal == nil || *sc.Ideal != *front {
		t.Fatalf("screen = %+v, %v; want its ideal %v", sc, err, front)
	}
	if ch := layout(catalog.IdealChange{}); ch.Ideal == nil || *ch.Ideal != *front {
		t.Fatalf("a layout that says nothing of it changed the ideal to %v", ch.Ideal)
	}
	if got := best(); !slices.Equal(got, []string{"A3", "A4"}) {
		t.Fatalf("after a layout that keeps it: %v, want A3, A4", got)
	}
	if ch := layout(catalog.IdealChange{Set: true}); ch.Ideal != nil {
		t.Fatalf("reset, the ideal is %v", ch.Ideal)
	}
	if got := best(); !slices.Equal(got, []string{"B1", "B2"}) {
		t.Fatalf("reset to the default: %v, want B1, B2", got)
	}
	if n := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*) FROM screens WHERE id = $1 AND ideal_grid_row IS NULL AND ideal_grid_col IS NULL`, w.screen); n != 1 {
		t.Fatal("reset left a point in the screen's row")
	}
}

// 500 parties of two ask for the best seats of a 1,000-seat show at once:
// each is held seats, none twice, and nobody is turned away while seats
// remain: the server picks only what is free under its locks.
func TestHoldBest500AtOnce(t *testing.T) {
	w := newWorld(t)
	w.show = pgtest.NewShow(t, w.store, w.venue, 25, 40, w.clock.Now().Add(48*time.Hour))
	const parties = 500
	users := make([]string, parties)
	for i := range users {
		users[i] = w.user()
	}
	var (
		start = make(chan struct{})
		wg    sync.WaitGroup
		errs  = make(chan error, parties)
	)
	for i := range parties {
		wg.Go(func() {
			<-start
			res, err := w.holdBest(users[i], "best", booking.BestAvailable{Count: 2})
			if err == nil && len(res.Hold.Seats) != 2 {
				err = fmt.Errorf("held %v", res.Hold.Seats)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a party of two was refused with seats left: %v", err)
	}
	held := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*) FROM show_seats WHERE show_id = $1 AND status = 'HELD'`, w.show)
	distinct := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(DISTINCT s) FROM holds, unnest(seat_ids) s WHERE show_id = $1 AND state = 'HELD'`, w.show)
	holds := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*) FROM holds WHERE show_id = $1 AND state = 'HELD'`, w.show)
	if held != 1000 || distinct != 1000 || holds != parties {
		t.Fatalf("%d seats held, %d distinct in %d holds; want all 1000 once, in 500", held, distinct, holds)
	}
	if _, err := w.holdBest(w.user(), "late", booking.BestAvailable{Count: 1}); !errors.Is(err, booking.ErrNotEnoughSeats) {
		t.Fatalf("a party after the sell-out: %v, want ErrNotEnoughSeats", err)
	}
}
