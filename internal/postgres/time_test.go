package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// A hold is valid while now < expires_at and expired from expires_at on,
// in every decision: seat map, another hold, confirmation, a read.
func TestExpiryIsExact(t *testing.T) {
	cases := []struct {
		name    string
		offset  time.Duration
		expired bool
	}{
		{"1 ms before the deadline the hold is live", -time.Millisecond, false},
		{"exactly at the deadline the hold is expired", 0, true},
		{"after the deadline the hold is expired", time.Millisecond, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			owner, other := w.user(), w.user()
			h := w.hold(owner, "A1")
			w.clock.Set(h.ExpiresAt.Add(tc.offset))

			read, err := w.store.Hold(ctx, owner, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantState := booking.HoldHeld
			wantMap := booking.SeatHeld
			if tc.expired {
				wantState, wantMap = booking.HoldExpired, booking.SeatAvailable
			}
			if read.State != wantState {
				t.Errorf("hold reads %s, want %s", read.State, wantState)
			}
			if got := w.mapStatus("A1"); got != wantMap {
				t.Errorf("seat map shows %s, want %s", got, wantMap)
			}
			_, err = w.tryHold(other, "A1")
			if tc.expired && err != nil {
				t.Errorf("another user's hold failed after expiry: %v", err)
			}
			if !tc.expired {
				wantUnavailable(t, err, "A1")
			}
		})
	}
}

func TestConfirmAtTheDeadline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		offset time.Duration
		want   booking.Outcome
	}{
		{"payment 1 ms before expiry books", -time.Millisecond, booking.OutcomeBooked},
		{"payment exactly at expiry is refunded", 0, booking.OutcomeRefundRequired},
		{"payment after expiry is refunded", time.Second, booking.OutcomeRefundRequired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			h := w.hold(w.user(), "B1", "B2")
			w.clock.Set(h.ExpiresAt.Add(tc.offset))
			c, err := w.pay(h, "pay-1")
			if err != nil || c.Outcome != tc.want {
				t.Fatalf("confirmation = %+v, %v; want %s", c, err, tc.want)
			}
		})
	}
}

func TestStaleReleaseNeverFreesNewerOwner(t *testing.T) {
	w := newWorld(t)
	a, b := w.user(), w.user()
	ha := w.hold(a, "A1", "A2")
	w.clock.Set(ha.ExpiresAt)
	hb := w.hold(b, "A2")

	t.Run("the old hold's cancel", func(t *testing.T) {
		if _, err := w.store.CancelHold(ctx, a, ha.ID); err != nil {
			t.Fatal(err)
		}
		if st, owner := w.seat("A2"); st != booking.SeatHeld || owner != hb.ID {
			t.Fatalf("A2 = %s by %s, want HELD by the newer hold", st, owner)
		}
	})
	t.Run("the sweeper", func(t *testing.T) {
		if _, err := w.store.ExpireHolds(ctx, 100); err != nil {
			t.Fatal(err)
		}
		if st, owner := w.seat("A2"); st != booking.SeatHeld || owner != hb.ID {
			t.Fatalf("A2 = %s by %s, want HELD by the newer hold", st, owner)
		}
	})
}

// A payment for a hold that lapsed and lost a seat to a newer hold ends the
// old hold as the sweeper would: refunded, its own seat back on sale, the
// taken-over seat still the newer hold's.
func TestLatePaymentNeverFreesNewerOwner(t *testing.T) {
	w := newWorld(t)
	ha := w.hold(w.user(), "A1", "A2")
	w.clock.Set(ha.ExpiresAt)
	hb := w.hold(w.user(), "A2")
	c, err := w.pay(ha, "pay-late")
	if err != nil || c.Outcome != booking.OutcomeRefundRequired || c.Reason != booking.ReasonHoldExpired {
		t.Fatalf("confirmation = %+v, %v; want a refund for an expired hold", c, err)
	}
	if st, owner := w.seat("A2"); st != booking.SeatHeld || owner != hb.ID {
		t.Fatalf("A2 = %s by %s, want HELD by the newer hold", st, owner)
	}
	if st, owner := w.seat("A1"); st != booking.SeatAvailable || owner != "" {
		t.Fatalf("A1 = %s by %s, want AVAILABLE", st, owner)
	}
	if st := pgtest.Scalar[string](t, w.store.Pool(), `SELECT state FROM holds WHERE id = $1`, ha.ID); st != string(booking.HoldExpired) {
		t.Fatalf("the late-paid hold is %s, want EXPIRED", st)
	}
}

func TestSweeperNeverTouchesBookedSeats(t *testing.T) {
	w := newWorld(t)
	paid := w.hold(w.user(), "A1", "A2")
	if c, err := w.pay(paid, "pay-1"); err != nil || c.Outcome != booking.OutcomeBooked {
		t.Fatalf("confirm: %+v %v", c, err)
	}
	unpaid := w.hold(w.user(), "A3")
	w.clock.Advance(24 * time.Hour)
	n, err := w.store.ExpireHolds(ctx, 100)
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want the unpaid hold only", n, err)
	}
	for _, s := range []string{"A1", "A2"} {
		if st, _ := w.seat(s); st != booking.SeatBooked {
			t.Errorf("%s = %s after sweep, want BOOKED", s, st)
		}
	}
	if st, _ := w.seat("A3"); st != booking.SeatAvailable {
		t.Errorf("A3 = %s, want AVAILABLE", st)
	}
	if h, _ := w.store.Hold(ctx, unpaid.UserID, unpaid.ID); h.State != booking.HoldExpired {
		t.Errorf("unpaid hold = %s, want EXPIRED", h.State)
	}
}

func TestSweeperWorksInBatches(t *testing.T) {
	w := newWorld(t)
	for _, s := range []string{"A1", "A2", "A3", "A4", "B1"} {
		w.hold(w.user(), s)
	}
	w.clock.Advance(ttl)
	for i, want := range []int{2, 2, 1, 0} {
		n, err := w.store.ExpireHolds(ctx, 2)
		if err != nil || n != want {
			t.Fatalf("batch %d expired %d, %v; want %d", i, n, err, want)
		}
	}
	if n := count(t, w.store, `SELECT count(*) FROM show_seats WHERE show_id = $1 AND status <> 'AVAILABLE'`, w.show); n != 0 {
		t.Fatalf("%d seats still taken", n)
	}
}

func TestIdempotencyKey(t *testing.T) {
	t.Run("same key and request returns the same hold", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		req := booking.HoldRequest{UserID: u, ShowID: w.show, Seats: []string{"A2", "A1"}, TTL: ttl, Key: "k"}
		first, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil || first.Replayed {
			t.Fatalf("first = %+v, %v", first, err)
		}
		req.Seats = []string{"A1", "A2"} // any order
		again, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil || !again.Replayed || again.Hold.ID != first.Hold.ID || !again.Hold.ExpiresAt.Equal(first.Hold.ExpiresAt) {
			t.Fatalf("replay = %+v, %v; want hold %s replayed", again, err, first.Hold.ID)
		}
	})
	t.Run("a retry after expiry never extends or revives the hold", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		req := booking.HoldRequest{UserID: u, ShowID: w.show, Seats: []string{"A1"}, TTL: ttl, Key: "k"}
		first, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil {
			t.Fatal(err)
		}
		w.clock.Set(first.Hold.ExpiresAt.Add(time.Second))
		again, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil || again.Hold.ID != first.Hold.ID || again.Hold.State != booking.HoldExpired || !again.Hold.ExpiresAt.Equal(first.Hold.ExpiresAt) {
			t.Fatalf("retry = %+v, %v; want the same hold, EXPIRED, same deadline", again.Hold, err)
		}
		if st, _ := w.seat("A1"); st != booking.SeatHeld {
			t.Fatalf("A1 = %s; a replay must not touch seats", st)
		}
		if got := w.mapStatus("A1"); got != booking.SeatAvailable {
			t.Fatalf("A1 shows %s, want AVAILABLE", got)
		}
		if n := count(t, w.store, `SELECT count(*) FROM holds WHERE user_id = $1`, u); n != 1 {
			t.Fatalf("user has %d holds, want 1", n)
		}
	})
	t.Run("a retry after cancel returns the cancelled hold", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		req := booking.HoldRequest{UserID: u, ShowID: w.show, Seats: []string{"A1"}, TTL: ttl, Key: "k"}
		first, _ := w.store.HoldSeats(ctx, req, 10)
		if _, err := w.store.CancelHold(ctx, u, first.Hold.ID); err != nil {
			t.Fatal(err)
		}
		again, err := w.store.HoldSeats(ctx, req, 10)
		if err != nil || again.Hold.State != booking.HoldCancelled {
			t.Fatalf("retry = %+v, %v; want CANCELLED", again.Hold, err)
		}
	})
	t.Run("same key with a different request is refused", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		req := booking.HoldRequest{UserID: u, ShowID: w.show, Seats: []string{"A1"}, TTL: ttl, Key: "k"}
		if _, err := w.store.HoldSeats(ctx, req, 10); err != nil {
			t.Fatal(err)
		}
		for name, change := range map[string]func(*booking.HoldRequest){
			"other seats": func(r *booking.HoldRequest) { r.Seats = []string{"A1", "A2"} },
			"other ttl":   func(r *booking.HoldRequest) { r.TTL = time.Hour },
		} {
			r := req
			change(&r)
			if _, err := w.store.HoldSeats(ctx, r, 10); !errors.Is(err, booking.ErrKeyReused) {
				t.Errorf("%s: err = %v, want ErrKeyReused", name, err)
			}
		}
	})
	t.Run("keys are scoped to the user", func(t *testing.T) {
		w := newWorld(t)
		a, b := w.user(), w.user()
		ra, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: a, ShowID: w.show, Seats: []string{"A1"}, TTL: ttl, Key: "same"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: b, ShowID: w.show, Seats: []string{"A2"}, TTL: ttl, Key: "same"}, 10)
		if err != nil || rb.Replayed || rb.Hold.ID == ra.Hold.ID {
			t.Fatalf("b's hold = %+v, %v; want a new hold of its own", rb, err)
		}
	})
}

func TestOneActiveHoldPerUser(t *testing.T) {
	t.Run("a second hold is refused naming the first", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		h := w.hold(u, "A1")
		_, err := w.tryHold(u, "A2")
		var e *booking.ActiveHoldError
		if !errors.As(err, &e) || e.HoldID != h.ID {
			t.Fatalf("err = %v, want active hold %s", err, h.ID)
		}
	})
	t.Run("a lapsed hold does not block a new one", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		old := w.hold(u, "A1")
		w.clock.Set(old.ExpiresAt)
		h := w.hold(u, "A2")
		if h.ID == old.ID {
			t.Fatal("got the old hold back")
		}
		if st, _ := w.seat("A1"); st != booking.SeatAvailable {
			t.Fatalf("A1 = %s, want the lapsed hold's seat released", st)
		}
	})
	t.Run("after cancelling, the user can hold again", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		old := w.hold(u, "A1")
		if _, err := w.store.CancelHold(ctx, u, old.ID); err != nil {
			t.Fatal(err)
		}
		w.hold(u, "A1")
	})
	t.Run("the cap on seats per hold", func(t *testing.T) {
		w := newWorld(t)
		_, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: w.user(), ShowID: w.show, Seats: []string{"A1", "A2", "A3"}, TTL: ttl, Key: "k"}, 2)
		var e *booking.TooManySeatsError
		if !errors.As(err, &e) || e.Max != 2 {
			t.Fatalf("err = %v, want too many seats (max 2)", err)
		}
	})
}
