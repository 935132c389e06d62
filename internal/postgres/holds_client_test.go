package postgres_test

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

var (
	hoarder = netip.MustParsePrefix("198.51.100.7/32")
	other   = netip.MustParsePrefix("2001:db8:1:2::/64")
)

// clientWorld is shows of 10x10 seats on a fresh database with an injected
// clock, and a pool big enough for real contention.
type clientWorld struct {
	t     *testing.T
	store *postgres.Store
	clock *pgtest.Clock
	venue pgtest.Venue
	keys  int
}

func newClientWorld(t *testing.T) *clientWorld {
	t.Helper()
	t.Parallel()
	s := pgtest.NewStore(t, 32)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	w := &clientWorld{t: t, store: s, clock: clock, venue: pgtest.NewVenue(t, s)}
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	return w
}

func (w *clientWorld) show() int64 {
	return pgtest.NewShow(w.t, w.store, w.venue, 10, 10, w.clock.Now().Add(48*time.Hour))
}

// hold asks, for a new user, for seats of show from client under caps.
func (w *clientWorld) hold(client netip.Prefix, caps booking.ClientCaps, show int64, seats ...string) (booking.Hold, error) {
	w.keys++
	res, err := w.store.HoldSeats(ctx, booking.HoldRequest{
		UserID: pgtest.User(w.t, w.store), ShowID: show, Seats: seats, TTL: ttl,
		Key: fmt.Sprintf("key-%d", w.keys), Client: client, Caps: caps,
	}, 10)
	return res.Hold, err
}

func (w *clientWorld) mustHold(client netip.Prefix, caps booking.ClientCaps, show int64, seats ...string) booking.Hold {
	w.t.Helper()
	h, err := w.hold(client, caps, show, seats...)
	if err != nil {
		w.t.Fatalf("hold %v from %s: %v", seats, client, err)
	}
	return h
}

// wantCapped fails unless err is the cap named, with its limit, and
// returns when the cap is said to free up.
func (w *clientWorld) wantCapped(err error, perShow bool, limit int) (freesAt time.Time) {
	w.t.Helper()
	var capped *booking.HeldSeatsCapError
	if !errors.As(err, &capped) || capped.PerShow != perShow || capped.Max != limit {
		w.t.Fatalf("hold = %v, want the cap (per show %v) of %d", err, perShow, limit)
	}
	return capped.FreesAt
}

// heldBy is what the SQL says client holds: seats in holds still HELD and
// not lapsed, on show (0: all shows).
func (w *clientWorld) heldBy(client netip.Prefix, show int64) int {
	w.t.Helper()
	return pgtest.Scalar[int](w.t, w.store.Pool(), `
		SELECT coalesce(sum(cardinality(seat_ids)), 0)::int FROM holds
		 WHERE client_addr = $1 AND state = 'HELD' AND expires_at > $2 AND ($3 = 0 OR show_id = $3)`,
		client, w.clock.Now(), show)
}

func seatsOf(row string, from, to int) []string {
	var out []string
	for n := from; n <= to; n++ {
		out = append(out, fmt.Sprintf("%s%d", row, n))
	}
	return out
}

// Fifty holds from one address, each by its own account, released together
// against one show: the address ends up holding exactly its cap, never more,
// and every other request is told it reached the cap. Without the address's
// lock the counts run side by side and all pass.
func TestHeldSeatsCapHoldsUnderARace(t *testing.T) {
	const clients, perHold, limit = 50, 2, 20
	w := newClientWorld(t)
	// The race is for the address's lock: no request may give up waiting
	// for it, so every answer is a hold or the cap.
	w.store.LockTimeout = 10 * time.Second
	show := w.show()
	users := make([]string, clients)
	for i := range users {
		users[i] = pgtest.User(t, w.store)
	}
	caps := booking.ClientCaps{PerShow: limit, Overall: 1000}
	errs := make([]error, clients)
	pgtest.Release(clients, func(i int) {
		// Distinct seats for each: only the cap can refuse them.
		row, n := string(rune('A'+i/5)), i%5*perHold+1
		_, errs[i] = w.store.HoldSeats(ctx, booking.HoldRequest{
			UserID: users[i], ShowID: show, Seats: seatsOf(row, n, n+perHold-1), TTL: ttl, Key: "k",
			Client: hoarder, Caps: caps,
		}, 10)
	})
	held := 0
	for i, err := range errs {
		var capped *booking.HeldSeatsCapError
		switch {
		case err == nil:
			held++
		case errors.As(err, &capped):
			if !capped.PerShow || capped.Max != limit {
				t.Errorf("client %d: refused by %+v, want the per-show cap of %d", i, capped, limit)
			}
		default:
			t.Errorf("client %d: %v", i, err)
		}
	}
	if got := w.heldBy(hoarder, show); got > limit || held*perHold != got {
		t.Fatalf("the address holds %d seats in %d holds, cap %d", got, held, limit)
	}
	if held != limit/perHold {
		t.Fatalf("%d holds won, want %d: the cap refused more than it had to", held, limit/perHold)
	}
	if n := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*)::int FROM holds WHERE client_addr IS DISTINCT FROM $1`, hoarder); n != 0 {
		t.Fatalf("%d holds do not record the address they came from", n)
	}
}

// The overall cap under the same race: fifty holds from one address over
// five shows, each well under its per-show cap.
func TestOverallHeldSeatsCapHoldsUnderARace(t *testing.T) {
	const clients, limit = 50, 24
	w := newClientWorld(t)
	w.store.LockTimeout = 10 * time.Second
	shows := []int64{w.show(), w.show(), w.show(), w.show(), w.show()}
	users := make([]string, clients)
	for i := range users {
		users[i] = pgtest.User(t, w.store)
	}
	caps := booking.ClientCaps{PerShow: 100, Overall: limit}
	errs := make([]error, clients)
	pgtest.Release(clients, func(i int) {
		_, errs[i] = w.store.HoldSeats(ctx, booking.HoldRequest{
			UserID: users[i], ShowID: shows[i%5], Seats: seatsOf(string(rune('A'+i/5)), 1, 3), TTL: ttl, Key: "k",
			Client: hoarder, Caps: caps,
		}, 10)
	})
	for i, err := range errs {
		var capped *booking.HeldSeatsCapError
		if err != nil && (!errors.As(err, &capped) || capped.PerShow || capped.Max != limit) {
			t.Errorf("client %d: %v, want a hold or the overall cap of %d", i, err, limit)
		}
	}
	if got := w.heldBy(hoarder, 0); got != limit {
		t.Fatalf("the address holds %d seats over all shows, want its cap %d exactly (holds of 3 seats)", got, limit)
	}
}

// Each cap on its own, what frees it, and who it does not touch.
func TestHeldSeatsCaps(t *testing.T) {
	caps := booking.ClientCaps{PerShow: 12, Overall: 20}

	t.Run("the per-show cap counts every account of the address", func(t *testing.T) {
		w := newClientWorld(t)
		show := w.show()
		w.mustHold(hoarder, caps, show, seatsOf("A", 1, 10)...)
		w.mustHold(hoarder, caps, show, "B1", "B2")
		_, err := w.hold(hoarder, caps, show, "C1")
		if frees := w.wantCapped(err, true, 12); !frees.Equal(w.clock.Now().Add(ttl)) {
			t.Errorf("frees at %v, want when the soonest hold lapses, %v", frees, w.clock.Now().Add(ttl))
		}
		if got := w.heldBy(hoarder, show); got != 12 {
			t.Fatalf("the address holds %d seats, want 12", got)
		}
		// Another show, and another address on this one, are not held back.
		w.mustHold(hoarder, caps, w.show(), "C1")
		w.mustHold(other, caps, show, "C1", "C2")
	})

	t.Run("the overall cap counts every show", func(t *testing.T) {
		w := newClientWorld(t)
		a, b, c := w.show(), w.show(), w.show()
		w.mustHold(hoarder, caps, a, seatsOf("A", 1, 10)...)
		w.mustHold(hoarder, caps, b, seatsOf("A", 1, 9)...)
		_, err := w.hold(hoarder, caps, c, "A1", "A2")
		w.wantCapped(err, false, 20)
		w.mustHold(hoarder, caps, c, "A1") // 20 exactly
		_, err = w.hold(hoarder, caps, c, "A2")
		w.wantCapped(err, false, 20)
		w.mustHold(other, caps, c, "A2")
	})

	t.Run("released, paid for or lapsed, holds stop counting", func(t *testing.T) {
		w := newClientWorld(t)
		show := w.show()
		first := w.mustHold(hoarder, caps, show, seatsOf("A", 1, 10)...)
		w.clock.Advance(time.Minute)
		second := w.mustHold(hoarder, caps, show, "B1", "B2")
		_, err := w.hold(hoarder, caps, show, "C1")
		w.wantCapped(err, true, 12)

		if _, err := w.store.CancelHold(ctx, first.UserID, first.ID); err != nil {
			t.Fatal(err)
		}
		third := w.mustHold(hoarder, caps, show, seatsOf("C", 1, 10)...)
		_, err = w.hold(hoarder, caps, show, "D1")
		w.wantCapped(err, true, 12)

		if c, err := w.store.ConfirmPayment(ctx, booking.Payment{
			ID: "pay_cap", HoldRef: third.ID, AmountMinor: third.AmountMinor, Currency: third.Currency,
		}); err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("pay = %+v, %v", c, err)
		}
		w.clock.Advance(time.Minute)
		fourth := w.mustHold(hoarder, caps, show, seatsOf("D", 1, 10)...)
		_, err = w.hold(hoarder, caps, show, "E1")
		w.wantCapped(err, true, 12)

		// second lapses first (the sweeper need not have run), then fourth.
		w.clock.Set(second.ExpiresAt)
		w.mustHold(hoarder, caps, show, "E1", "E2")
		w.clock.Set(fourth.ExpiresAt)
		w.mustHold(hoarder, caps, show, seatsOf("F", 1, 10)...)
		if got := w.heldBy(hoarder, show); got != 12 {
			t.Fatalf("the address holds %d seats, want 12", got)
		}
	})

	t.Run("a retry of a hold that won is replayed, not capped", func(t *testing.T) {
		w := newClientWorld(t)
		show := w.show()
		user := pgtest.User(t, w.store)
		req := booking.HoldRequest{UserID: user, ShowID: show, Seats: seatsOf("A", 1, 10), TTL: ttl, Key: "once",
			Client: hoarder, Caps: caps}
		first, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil {
			t.Fatal(err)
		}
		w.mustHold(hoarder, caps, show, "B1", "B2")
		again, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil || !again.Replayed || again.Hold.ID != first.Hold.ID {
			t.Fatalf("retry = %+v, %v; want the first hold replayed", again, err)
		}
	})

	t.Run("no address, or no caps, no cap", func(t *testing.T) {
		w := newClientWorld(t)
		show := w.show()
		for row := range 3 {
			w.mustHold(netip.Prefix{}, caps, show, seatsOf(string(rune('A'+row)), 1, 10)...)
			w.mustHold(hoarder, booking.ClientCaps{}, show, seatsOf(string(rune('D'+row)), 1, 10)...)
		}
		if n := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*)::int FROM holds WHERE client_addr IS NULL`); n != 3 {
			t.Fatalf("%d holds without an address, want 3", n)
		}
		if got := w.heldBy(hoarder, show); got != 30 {
			t.Fatalf("the address holds %d seats without caps, want 30", got)
		}
	})
}
