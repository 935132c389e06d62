package postgres_test

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// layoutWorld is the world's show, its screen and an admin to act as.
type layoutWorld struct {
	*world
	screen int64
	admin  string
}

func newLayoutWorld(t *testing.T) *layoutWorld {
	w := newWorld(t)
	screen := pgtest.Scalar[int64](t, w.store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, w.show)
	return &layoutWorld{world: w, screen: screen, admin: w.user()}
}

func (w *layoutWorld) replace(seats []catalog.SeatSpec) (catalog.LayoutChange, error) {
	return w.store.ReplaceLayout(ctx, w.screen, seats, catalog.IdealChange{}, func(ch catalog.LayoutChange) audit.Entry {
		return audit.Entry{ActorID: w.admin, TheatreID: w.venue.TheatreID, Action: "screen.replace_layout",
			Object: fmt.Sprintf("screen %d", w.screen), Before: ch.Before, After: ch}
	})
}

// state is everything a refused layout change must leave as it was.
func (w *layoutWorld) state() string {
	return pgtest.Scalar[string](w.t, w.store.Pool(), `
		SELECT format('seats=%s show_seats=%s audit=%s',
			(SELECT string_agg(format('%s:%s:%s,%s:%s', seat_id, category, grid_row, grid_col, retired), ' ' ORDER BY seat_id)
			   FROM seats WHERE screen_id = $1),
			(SELECT string_agg(format('%s/%s:%s:%s', show_id, seat_id, category, status), ' ' ORDER BY show_id, seat_id)
			   FROM show_seats WHERE screen_id = $1),
			(SELECT count(*) FROM audit_log))`, w.screen)
}

// edit is the fixture layout (3x4, row C PREMIUM) changed by fn.
func edit(fn func(seats []catalog.SeatSpec) []catalog.SeatSpec) []catalog.SeatSpec {
	return fn(pgtest.Grid(3, 4))
}

func index(seats []catalog.SeatSpec, id string) int {
	return slices.IndexFunc(seats, func(st catalog.SeatSpec) bool { return st.ID == id })
}

func without(seats []catalog.SeatSpec, id string) []catalog.SeatSpec {
	return slices.Delete(seats, index(seats, id), index(seats, id)+1)
}

func TestReplaceLayoutRefusesToDisturbOwnedSeats(t *testing.T) {
	w := newLayoutWorld(t)
	w.hold(w.user(), "B1")
	paid := w.hold(w.user(), "C1")
	if c, err := w.pay(paid, "pay_layout"); err != nil || c.Outcome != booking.OutcomeBooked {
		t.Fatalf("pay = %+v, %v", c, err)
	}

	for _, tc := range []struct {
		name  string
		seats []catalog.SeatSpec
		want  []string
	}{
		{"removing a held seat", edit(func(s []catalog.SeatSpec) []catalog.SeatSpec { return without(s, "B1") }), []string{"B1"}},
		{"removing a booked seat", edit(func(s []catalog.SeatSpec) []catalog.SeatSpec { return without(s, "C1") }), []string{"C1"}},
		{"moving a held seat", edit(func(s []catalog.SeatSpec) []catalog.SeatSpec {
			s[index(s, "B1")].GridCol = 9
			return s
		}), []string{"B1"}},
		{"re-categorizing a booked seat", edit(func(s []catalog.SeatSpec) []catalog.SeatSpec {
			s[index(s, "C1")].Category = "STANDARD"
			return s
		}), []string{"C1"}},
		{"all of it, with free seats changed too", edit(func(s []catalog.SeatSpec) []catalog.SeatSpec {
			s[index(s, "C1")].GridRow = 7
			s[index(s, "A2")].GridRow = 8
			return without(s, "B1")
		}), []string{"B1", "C1"}},
	} {
		t.Run(tc.name+" is refused, naming the seats and the show", func(t *testing.T) {
			before := w.state()
			_, err := w.replace(tc.seats)
			var inUse *catalog.LayoutInUseError
			if !errors.As(err, &inUse) {
				t.Fatalf("replace = %v, want LayoutInUseError", err)
			}
			if !slices.Equal(inUse.Seats, tc.want) || !slices.Equal(inUse.Shows, []int64{w.show}) {
				t.Fatalf("in use: seats %v shows %v, want %v in show %d", inUse.Seats, inUse.Shows, tc.want, w.show)
			}
			if after := w.state(); after != before {
				t.Fatalf("a refused change changed things:\n%s\n%s", before, after)
			}
		})
	}

	t.Run("relabelling a held seat in place is allowed", func(t *testing.T) {
		seats := pgtest.Grid(3, 4)
		seats[index(seats, "B1")].Accessible = true
		seats[index(seats, "B1")].Companion = true
		ch, err := w.replace(seats)
		if err != nil || !slices.Equal(ch.Relabelled, []string{"B1"}) {
			t.Fatalf("replace = %+v, %v", ch, err)
		}
		if st, _ := w.seat("B1"); st != booking.SeatHeld {
			t.Fatalf("B1 is %s, want still HELD", st)
		}
	})
}

func TestReplaceLayoutChangesFreeSeatsEverywhereUpcoming(t *testing.T) {
	w := newLayoutWorld(t)
	// A show on the same screen, booked and then over: it keeps its seats.
	past := pgtest.Scalar[int64](t, w.store.Pool(), `
		INSERT INTO shows (movie_id, screen_id, starts_at, ends_at, currency)
		VALUES ($1, $2, $3, $4, 'INR') RETURNING id`, w.venue.MovieID, w.screen, w.start.Add(time.Hour), w.start.Add(3*time.Hour))
	pgtest.Exec(t, w.store.Pool(), `INSERT INTO show_prices VALUES ($1, 'STANDARD', 100), ($1, 'PREMIUM', 200)`, past)
	pgtest.Exec(t, w.store.Pool(), `INSERT INTO show_seats (show_id, seat_id, screen_id, category)
		SELECT $1, seat_id, screen_id, category FROM seats WHERE screen_id = $2`, past, w.screen)
	bought := w.holdIn(past, w.user(), "A4")
	if c, err := w.pay(bought, "pay_past"); err != nil || c.Outcome != booking.OutcomeBooked {
		t.Fatalf("pay = %+v, %v", c, err)
	}
	// A hold in the upcoming show that lapsed, not yet swept.
	w.hold(w.user(), "A1")
	w.clock.Advance(2 * time.Hour)

	seats := pgtest.Grid(3, 4)
	seats[index(seats, "A2")].GridCol, seats[index(seats, "A3")].GridCol = 2, 1 // swap cells
	seats[index(seats, "B2")].Category = "PREMIUM"
	seats = without(without(without(seats, "A4"), "A1"), "B4")
	seats = append(seats, catalog.SeatSpec{ID: "D1", Row: "D", Number: 1, Category: "STANDARD", GridRow: 3, GridCol: 0, Companion: true})

	ch, err := w.replace(seats)
	if err != nil {
		t.Fatalf("replace: %v", err)
	}
	want := catalog.LayoutChange{Before: 12, After: 10, Added: []string{"D1"}, Removed: []string{"A1", "A4", "B4"},
		Moved: []string{"A2", "A3"}, Recategorized: []string{"B2"}}
	if fmt.Sprint(ch) != fmt.Sprint(want) {
		t.Fatalf("change = %+v\nwant     %+v", ch, want)
	}

	t.Run("the upcoming show follows", func(t *testing.T) {
		got := pgtest.Scalar[string](t, w.store.Pool(), `
			SELECT string_agg(seat_id || ':' || category || ':' || status, ' ' ORDER BY seat_id)
			  FROM show_seats WHERE show_id = $1 AND seat_id IN ('A1', 'A4', 'B2', 'B4', 'D1')`, w.show)
		if got != "B2:PREMIUM:AVAILABLE D1:STANDARD:AVAILABLE" {
			t.Fatalf("upcoming show's seats = %s", got)
		}
	})
	t.Run("the past show keeps its seats, so A4 is retired, not deleted", func(t *testing.T) {
		if n := pgtest.Scalar[int64](t, w.store.Pool(), `SELECT count(*) FROM show_seats WHERE show_id = $1`, past); n != 12 {
			t.Fatalf("past show has %d seats, want 12", n)
		}
		got := pgtest.Scalar[string](t, w.store.Pool(), `
			SELECT string_agg(seat_id || ':' || retired, ' ' ORDER BY seat_id) FROM seats
			 WHERE screen_id = $1 AND seat_id IN ('A1', 'A4', 'B4')`, w.screen)
		// The past show refers to all three.
		if got != "A1:true A4:true B4:true" {
			t.Fatalf("removed seats = %s", got)
		}
	})
	t.Run("the layout reads back without retired seats", func(t *testing.T) {
		sc, err := w.store.Screen(ctx, w.screen)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Seats) != 10 || index(sc.Seats, "A4") >= 0 || !sc.Seats[index(sc.Seats, "D1")].Companion {
			t.Fatalf("layout = %+v", sc.Seats)
		}
		if !slices.Equal(sc.Categories(), []string{"PREMIUM", "STANDARD"}) {
			t.Fatalf("categories = %v", sc.Categories())
		}
	})
	t.Run("an added seat is bookable at once", func(t *testing.T) {
		h := w.hold(w.user(), "D1")
		if h.AmountMinor != pgtest.Prices["STANDARD"] {
			t.Fatalf("hold of D1 = %+v", h)
		}
		if _, err := w.tryHold(w.user(), "A4"); err == nil {
			t.Fatal("a removed seat could be held")
		}
	})
	t.Run("a new show gets the new layout", func(t *testing.T) {
		id, err := w.store.CreateShow(ctx, catalog.Show{MovieID: w.venue.MovieID, ScreenID: w.screen,
			StartsAt: w.start.Add(100 * time.Hour), EndsAt: w.start.Add(102 * time.Hour), Currency: "INR", Prices: pgtest.Prices})
		if err != nil {
			t.Fatal(err)
		}
		if n := pgtest.Scalar[int64](t, w.store.Pool(), `SELECT count(*) FROM show_seats WHERE show_id = $1`, id); n != 10 {
			t.Fatalf("new show has %d seats, want 10", n)
		}
	})
	t.Run("a retired seat comes back when the layout names it again", func(t *testing.T) {
		seats := append(slices.Clone(seats), catalog.SeatSpec{ID: "A4", Row: "A", Number: 4, Category: "STANDARD", GridRow: 0, GridCol: 3})
		if _, err := w.replace(seats); err != nil {
			t.Fatal(err)
		}
		if st, _ := w.seat("A4"); st != booking.SeatAvailable {
			t.Fatalf("A4 is %s", st)
		}
	})
	t.Run("the change is audited", func(t *testing.T) {
		got := pgtest.Scalar[string](t, w.store.Pool(), `
			SELECT after->>'Removed' FROM audit_log WHERE action = 'screen.replace_layout' ORDER BY id LIMIT 1`)
		if got != `["A1", "A4", "B4"]` {
			t.Fatalf("audited removal = %s", got)
		}
	})
	if _, err := w.store.ExpireHolds(ctx, 10); err != nil {
		t.Fatal(err)
	}
}

func TestReplaceLayoutNeedsPricesAndAScreen(t *testing.T) {
	w := newLayoutWorld(t)
	before := w.state()
	seats := pgtest.Grid(3, 4)
	seats[0].Category = "VIP"
	seats = append(seats, catalog.SeatSpec{ID: "D1", Row: "D", Number: 1, Category: "BALCONY", GridRow: 3})
	_, err := w.replace(seats)
	var missing *catalog.MissingPricesError
	if !errors.As(err, &missing) || !slices.Equal(missing.Categories, []string{"BALCONY", "VIP"}) {
		t.Fatalf("replace = %v, want missing prices for BALCONY, VIP", err)
	}
	if after := w.state(); after != before {
		t.Fatalf("changed:\n%s\n%s", before, after)
	}
	w.screen = 999999
	if _, err := w.replace(pgtest.Grid(1, 1)); !errors.Is(err, booking.ErrNotFound) {
		t.Fatalf("unknown screen: %v", err)
	}
}

// A layout change and holds on the seats it removes race: either the
// change wins and the holds find no seat, or a hold wins and the change
// is refused; never a hold on a seat that is gone, never a deadlock.
func TestReplaceLayoutRacesHolds(t *testing.T) {
	w := newLayoutWorld(t)
	users := []string{w.user(), w.user(), w.user()}
	smaller := pgtest.Grid(3, 4)[:8] // row C goes
	var held, refused atomic.Int32
	var changeErr error
	pgtest.Release(4, func(i int) {
		if i == 3 {
			_, changeErr = w.replace(smaller)
			return
		}
		req := booking.HoldRequest{UserID: users[i], ShowID: w.show, Seats: []string{"B4", "C4"}, TTL: ttl, Key: fmt.Sprintf("race-%d", i)}
		if _, err := w.store.HoldSeats(ctx, req, 10); err == nil {
			held.Add(1)
		} else {
			refused.Add(1)
		}
	})
	var inUse *catalog.LayoutInUseError
	switch {
	case changeErr == nil && held.Load() != 0:
		t.Fatalf("the layout changed and %d holds on C4 won", held.Load())
	case changeErr != nil && !errors.As(changeErr, &inUse):
		t.Fatalf("replace: %v", changeErr)
	case changeErr != nil && held.Load() != 1:
		t.Fatalf("layout refused but %d holds won", held.Load())
	}
	t.Logf("change error %v, %d held, %d refused", changeErr, held.Load(), refused.Load())
}

// A hold that counted its seats and then waited for a seat lock held by a
// layout change that removes one of them gets the lock on fewer rows than
// it asked for: it must answer unknown seats, not claim part of its set.
func TestHoldWaitingOnARemovedSeatClaimsNothing(t *testing.T) {
	w := newLayoutWorld(t)
	w.store.LockTimeout = 20 * time.Second // the hold must wait, not time out and look again
	tx, err := w.store.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM show_seats WHERE show_id = $1 AND seat_id IN ('B4', 'C4') ORDER BY seat_id FOR UPDATE`, w.show); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM show_seats WHERE show_id = $1 AND seat_id = 'C4'`, w.show); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: w.user(), ShowID: w.show, Seats: []string{"B4", "C4"}, TTL: ttl, Key: "waiting"}, 10)
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for pgtest.Scalar[int64](t, w.store.Pool(), `
		SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the hold never waited for the seat lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var unknown *booking.UnknownSeatsError
	if err := <-done; !errors.As(err, &unknown) || !slices.Equal(unknown.Seats, []string{"C4"}) {
		t.Fatalf("hold = %v, want unknown seat C4", err)
	}
	if n := pgtest.Scalar[int64](t, w.store.Pool(), `SELECT count(*) FROM holds`); n != 0 {
		t.Fatalf("%d holds made", n)
	}
}

func TestAdminCreateScreen(t *testing.T) {
	w := newLayoutWorld(t)
	seats := pgtest.Grid(2, 2)
	seats[1].Companion = true
	auditOf := func(id int64) audit.Entry {
		return audit.Entry{ActorID: w.admin, TheatreID: w.venue.TheatreID, Action: "screen.create", Object: fmt.Sprintf("screen %d", id)}
	}
	id, err := w.store.AdminCreateScreen(ctx, w.venue.TheatreID, "Audi 9", seats, nil, auditOf)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := w.store.Screen(ctx, id)
	if err != nil || sc.Name != "Audi 9" || len(sc.Seats) != 4 || !sc.Seats[1].Companion || sc.TheatreID != w.venue.TheatreID {
		t.Fatalf("screen = %+v, %v", sc, err)
	}
	if n := pgtest.Scalar[int64](t, w.store.Pool(), `SELECT count(*) FROM audit_log WHERE object = $1`, fmt.Sprintf("screen %d", id)); n != 1 {
		t.Fatalf("%d audit entries", n)
	}

	t.Run("a second screen of the same name is a name error", func(t *testing.T) {
		before := w.state()
		_, err := w.store.AdminCreateScreen(ctx, w.venue.TheatreID, "Audi 9", seats, nil, auditOf)
		var bad *catalog.FieldError
		if !errors.As(err, &bad) || bad.Field != "name" {
			t.Fatalf("duplicate name: %v", err)
		}
		if after := w.state(); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
	})
	t.Run("an unknown screen is not found", func(t *testing.T) {
		if _, err := w.store.Screen(ctx, 999999); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("Screen = %v", err)
		}
	})
}

// holdIn holds seats of any show for user.
func (w *world) holdIn(show int64, user string, seats ...string) booking.Hold {
	w.t.Helper()
	res, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: seats, TTL: ttl, Key: w.key()}, 10)
	if err != nil {
		w.t.Fatalf("hold %v of show %d: %v", seats, show, err)
	}
	return res.Hold
}
