package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// The channel these tests announce on: each test has its own database, and
// NOTIFY never crosses databases.
const testChannel = "seat_changes_test"

// notifyLimit is Postgres's limit on a NOTIFY payload.
const notifyLimit = 8000

// announced is one decoded payload.
type announced struct {
	Show  int64    `json:"show"`
	Seats []string `json:"seats"`
}

// listener is a connection LISTENing on testChannel, as an instance's
// listener would.
type listener struct {
	t     *testing.T
	conn  *pgx.Conn
	store *postgres.Store
}

func listen(t *testing.T, s *postgres.Store) *listener {
	t.Helper()
	conn, err := pgx.Connect(ctx, s.Pool().Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "LISTEN "+testChannel); err != nil {
		t.Fatal(err)
	}
	return &listener{t: t, conn: conn, store: s}
}

// next waits (boundedly, as long as a loaded machine may take) for the next
// notification and returns its payload.
func (l *listener) next() string {
	l.t.Helper()
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	n, err := l.conn.WaitForNotification(wctx)
	if err != nil {
		l.t.Fatalf("no notification: %v", err)
	}
	if n.Channel != testChannel {
		l.t.Fatalf("notification on %q, want %q", n.Channel, testChannel)
	}
	if len(n.Payload) >= notifyLimit {
		l.t.Fatalf("payload of %d bytes: NOTIFY allows under %d", len(n.Payload), notifyLimit)
	}
	return n.Payload
}

// nextChange waits for the next notification and decodes it.
func (l *listener) nextChange() announced {
	l.t.Helper()
	p := l.next()
	var a announced
	if err := json.Unmarshal([]byte(p), &a); err != nil || a.Show == 0 {
		l.t.Fatalf("payload %q is not a seat change: %v", p, err)
	}
	return a
}

// nothingMore proves no notification is pending: a marker notified now
// is delivered after everything committed before it, so it must come next.
func (l *listener) nothingMore() {
	l.t.Helper()
	if _, err := l.store.Pool().Exec(ctx, `SELECT pg_notify($1, 'marker')`, testChannel); err != nil {
		l.t.Fatal(err)
	}
	if p := l.next(); p != "marker" {
		l.t.Fatalf("unexpected notification %q", p)
	}
}

// announce runs one AnnounceSeatChanges and returns how many changes it took.
func announce(t *testing.T, s *postgres.Store, limit int) int {
	t.Helper()
	n, err := s.AnnounceSeatChanges(ctx, testChannel, limit)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// pendingEvents counts seat changes not yet announced.
func pendingEvents(t *testing.T, s *postgres.Store) int {
	t.Helper()
	return count(t, s, `SELECT coalesce(sum(cardinality(seat_ids)), 0) FROM seat_events`)
}

// wantAnnounced announces what is pending and expects exactly one payload:
// show's seats, sorted.
func (w *world) wantAnnounced(l *listener, seats ...string) {
	w.t.Helper()
	if n := announce(w.t, w.store, 1000); n < len(seats) {
		w.t.Fatalf("announced %d changes, want at least %d (%v)", n, len(seats), seats)
	}
	a := l.nextChange()
	if a.Show != w.show || !slices.Equal(a.Seats, seats) {
		w.t.Fatalf("announced show %d seats %v, want show %d seats %v", a.Show, a.Seats, w.show, seats)
	}
	l.nothingMore()
	if n := pendingEvents(w.t, w.store); n != 0 {
		w.t.Fatalf("%d seat changes still pending after the announcement", n)
	}
}

// bigShow makes a show of n seats whose ids are 16 characters long, the
// most a seat id may be: the worst case for payload size.
func bigShow(t *testing.T, s *postgres.Store, v pgtest.Venue, n int) (int64, []string) {
	t.Helper()
	var specs []catalog.SeatSpec
	var ids []string
	for i := range n {
		row, col := i/40, i%40
		id := fmt.Sprintf("ROW%02d-SEATS%05d", row, col)
		specs = append(specs, catalog.SeatSpec{ID: id, Row: fmt.Sprintf("R%d", row), Number: col + 1,
			Category: "STANDARD", GridRow: row, GridCol: col})
		ids = append(ids, id)
	}
	screen, err := s.CreateScreen(ctx, v.TheatreID, fmt.Sprintf("Big %d", time.Now().UnixNano()), specs)
	if err != nil {
		t.Fatal(err)
	}
	starts := time.Now().Add(72 * time.Hour)
	show, err := s.CreateShow(ctx, catalog.Show{MovieID: v.MovieID, ScreenID: screen, StartsAt: starts,
		EndsAt: starts.Add(2 * time.Hour), Currency: "INR", Prices: pgtest.Prices})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return show, ids
}

func TestAnnounceSeatChanges(t *testing.T) {
	t.Run("a committed hold is announced with its seats", func(t *testing.T) {
		w := newWorld(t)
		l := listen(t, w.store)
		w.hold(w.user(), "A2", "A1")
		if n := pendingEvents(t, w.store); n != 2 {
			t.Fatalf("the hold left %d seat changes, want 2", n)
		}
		w.wantAnnounced(l, "A1", "A2")
		if n := announce(t, w.store, 1000); n != 0 {
			t.Fatalf("a second announcement took %d changes: each is announced once", n)
		}
		l.nothingMore()
	})

	t.Run("the hold path records its own changes once; the trigger records the rest", func(t *testing.T) {
		w := newWorld(t)
		rows := func() [][]string {
			t.Helper()
			r, err := w.store.Pool().Query(ctx, `SELECT seat_ids FROM seat_events ORDER BY at`)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pgx.CollectRows(r, pgx.RowTo[[]string])
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		want := func(what string, seats ...[]string) {
			t.Helper()
			got := rows()
			if len(got) != len(seats) {
				t.Fatalf("after %s: seat_events rows %v, want %v", what, got, seats)
			}
			for i := range seats {
				if !slices.Equal(got[i], seats[i]) {
					t.Fatalf("after %s: seat_events rows %v, want %v", what, got, seats)
				}
			}
			pgtest.Exec(t, w.store.Pool(), `DELETE FROM seat_events`)
		}
		user := w.user()
		h := w.hold(user, "A2", "A1")
		want("a hold (hold_seats)", []string{"A1", "A2"})
		if _, err := w.store.CancelHold(ctx, user, h.ID); err != nil {
			t.Fatal(err)
		}
		want("its cancel (end_hold)", []string{"A1", "A2"})
		if _, err := w.store.CancelHold(ctx, user, h.ID); err != nil {
			t.Fatal(err)
		}
		want("a second cancel, which changes nothing")

		// The setting that makes the trigger skip the functions' statements
		// lasts only while they run: an UPDATE after one, in the same
		// transaction, is recorded by the trigger.
		tx, err := w.store.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `
			SELECT * FROM hold_seats($1, $2, ARRAY['B1'], interval '5 minutes', 'key-b1', 'fp', '100ms', $3, NULL, NULL, NULL)`,
			w.user(), w.show, w.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `UPDATE show_seats SET category = category WHERE show_id = $1 AND seat_id = 'C1'`, w.show); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		want("hold_seats and an UPDATE in one transaction", []string{"B1"}, []string{"C1"})
	})

	t.Run("a rolled-back change is never announced", func(t *testing.T) {
		w := newWorld(t)
		l := listen(t, w.store)
		tx, err := w.store.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `UPDATE show_seats SET category = category WHERE show_id = $1 AND seat_id IN ('B1', 'B2')`, w.show); err != nil {
			t.Fatal(err)
		}
		var inTx int
		if err := tx.QueryRow(ctx, `SELECT coalesce(sum(cardinality(seat_ids)), 0) FROM seat_events`).Scan(&inTx); err != nil {
			t.Fatal(err)
		}
		if inTx != 2 {
			t.Fatalf("inside the transaction the update recorded %d changes, want 2", inTx)
		}
		// Announcing while the change is uncommitted sees nothing yet.
		if n := announce(t, w.store, 1000); n != 0 {
			t.Fatalf("an uncommitted change was announced (%d)", n)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if n := pendingEvents(t, w.store); n != 0 {
			t.Fatalf("the rolled-back update left %d seat changes", n)
		}
		// A hold refused for a taken seat changes nothing and says nothing.
		w.hold(w.user(), "C1")
		w.wantAnnounced(l, "C1")
		if _, err := w.tryHold(w.user(), "C2", "C1"); err == nil {
			t.Fatal("a hold of a taken seat succeeded")
		}
		if n := announce(t, w.store, 1000); n != 0 {
			t.Fatalf("a refused hold was announced (%d changes)", n)
		}
		l.nothingMore()
	})

	t.Run("a burst on one show is split into payloads under 8000 bytes, each seat once", func(t *testing.T) {
		w := newWorld(t)
		const seats = 800
		show, ids := bigShow(t, w.store, w.venue, seats)
		l := listen(t, w.store)
		// Eight holds of 100 seats: one statement each, 800 changes.
		for i := range seats / 100 {
			_, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: w.user(), ShowID: show,
				Seats: ids[i*100 : (i+1)*100], TTL: ttl, Key: w.key()}, 100)
			if err != nil {
				t.Fatal(err)
			}
		}
		if n := announce(t, w.store, 2000); n != seats {
			t.Fatalf("announced %d changes, want %d", n, seats)
		}
		var got []string
		payloads := 0
		for len(got) < seats {
			a := l.nextChange()
			if a.Show != show {
				t.Fatalf("payload for show %d, want %d", a.Show, show)
			}
			got = append(got, a.Seats...)
			payloads++
		}
		l.nothingMore()
		slices.Sort(got)
		if !slices.Equal(got, ids) {
			t.Fatalf("the payloads named %d seats (%d distinct), want each of the %d exactly once", len(got), len(slices.Compact(slices.Clone(got))), seats)
		}
		if payloads < 2 {
			t.Fatalf("%d payloads for %d long seat ids: they cannot fit in one", payloads, seats)
		}
		t.Logf("%d changes of 16-character seats: %d payloads", seats, payloads)
	})

	t.Run("concurrent announcers never announce a change twice", func(t *testing.T) {
		w := newWorld(t)
		const seats, writers, announcers = 400, 4, 3
		show, ids := bigShow(t, w.store, w.venue, seats)
		l := listen(t, w.store)
		// Writers change every seat once, one autocommit statement each,
		// while announcers take small batches: some changes are still
		// uncommitted when an announcer looks.
		var writing atomic.Int32
		writing.Store(writers)
		var taken atomic.Int64
		errs := make(chan error, writers+announcers)
		pgtest.Release(writers+announcers, func(i int) {
			if i < writers {
				defer writing.Add(-1)
				for j := i; j < seats; j += writers {
					if _, err := w.store.Pool().Exec(ctx, `UPDATE show_seats SET category = category WHERE show_id = $1 AND seat_id = $2`, show, ids[j]); err != nil {
						errs <- err
						return
					}
				}
				return
			}
			for {
				done := writing.Load() == 0
				n, err := w.store.AnnounceSeatChanges(ctx, testChannel, 10)
				if err != nil {
					errs <- err
					return
				}
				taken.Add(int64(n))
				if done && n == 0 {
					return
				}
			}
		})
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if got := taken.Load(); got != seats {
			t.Fatalf("announcers took %d changes in all, want %d: each once", got, seats)
		}
		seen := map[string]int{}
		for len(seen) < seats {
			a := l.nextChange()
			for _, s := range a.Seats {
				seen[s]++
			}
		}
		l.nothingMore()
		for id, n := range seen {
			if n != 1 {
				t.Errorf("seat %s announced %d times", id, n)
			}
		}
	})

	t.Run("every path that changes a seat is announced", func(t *testing.T) {
		w := newWorld(t)
		l := listen(t, w.store)
		u := w.user()

		// A hold and its cancellation.
		h := w.hold(u, "A1", "A2")
		w.wantAnnounced(l, "A1", "A2")
		if _, err := w.store.CancelHold(ctx, u, h.ID); err != nil {
			t.Fatal(err)
		}
		w.wantAnnounced(l, "A1", "A2")

		// The sweeper's expiry.
		w.hold(u, "B3")
		w.wantAnnounced(l, "B3")
		w.clock.Advance(ttl + time.Second)
		if n, err := w.store.ExpireHolds(ctx, 10); err != nil || n != 1 {
			t.Fatalf("ExpireHolds = %d, %v; want 1 hold expired", n, err)
		}
		w.wantAnnounced(l, "B3")

		// A lapsed hold's seat taken over by a new hold before the sweeper.
		v := w.user()
		w.hold(v, "B4")
		w.wantAnnounced(l, "B4")
		w.clock.Advance(ttl + time.Second)
		h = w.hold(u, "B4")
		w.wantAnnounced(l, "B4")

		// Confirmation by payment, then cancelling the booking.
		c, err := w.pay(h, "pay-"+h.ID)
		if err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("payment = %+v, %v; want booked", c, err)
		}
		w.wantAnnounced(l, "B4")
		if _, err := w.store.CancelBooking(ctx, u, c.BookingID); err != nil {
			t.Fatal(err)
		}
		w.wantAnnounced(l, "B4")

		// Any other statement on show_seats (an admin's, say) too.
		pgtest.Exec(t, w.store.Pool(), `UPDATE show_seats SET category = 'PREMIUM' WHERE show_id = $1 AND seat_id = 'A4'`, w.show)
		w.wantAnnounced(l, "A4")
	})

	t.Run("changes of several shows go out as one payload per show", func(t *testing.T) {
		w := newWorld(t)
		other := pgtest.NewShow(t, w.store, w.venue, 2, 2, w.clock.Now().Add(96*time.Hour))
		l := listen(t, w.store)
		w.hold(w.user(), "A1")
		if _, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: w.user(), ShowID: other, Seats: []string{"B2", "A1"}, TTL: ttl, Key: w.key()}, 10); err != nil {
			t.Fatal(err)
		}
		w.hold(w.user(), "C4")
		if n := announce(t, w.store, 1000); n != 4 {
			t.Fatalf("announced %d changes, want 4", n)
		}
		got := map[int64][]string{}
		for range 2 {
			a := l.nextChange()
			if _, dup := got[a.Show]; dup {
				t.Fatalf("two payloads for show %d", a.Show)
			}
			got[a.Show] = a.Seats
		}
		l.nothingMore()
		if !slices.Equal(got[w.show], []string{"A1", "C4"}) || !slices.Equal(got[other], []string{"A1", "B2"}) {
			t.Fatalf("announced %v, want show %d [A1 C4] and show %d [A1 B2]", got, w.show, other)
		}
	})
	t.Run("after a vacuum new changes reuse the space of the announced ones", func(t *testing.T) {
		w := newWorld(t)
		size := func() int { return count(t, w.store, `SELECT pg_relation_size('seat_events')::int`) }
		cycle := func() {
			pgtest.Exec(t, w.store.Pool(), `
				INSERT INTO seat_events (show_id, seat_ids) SELECT $1, ARRAY['A1'] FROM generate_series(1, 5000)`, w.show)
			for announce(t, w.store, 2000) > 0 {
			}
			if n := pendingEvents(t, w.store); n != 0 {
				t.Fatalf("%d changes pending after announcing all", n)
			}
			if err := w.store.VacuumSeatEvents(ctx); err != nil {
				t.Fatal(err)
			}
		}
		cycle()
		first := size()
		for range 3 {
			cycle()
		}
		if after := size(); after > first {
			t.Fatalf("seat_events grew from %d to %d bytes over three more vacuumed rounds of 5000 changes", first, after)
		}
	})
}
