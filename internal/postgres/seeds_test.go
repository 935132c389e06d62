package postgres_test

// The worked examples and trace tables of the design notes, as tests. Seat
// labels follow the notes where they name seats (A, B, C -> A1, A2, A3).

import (
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// Note LLD-008, "Group hold and exact expiry".
func TestSeedGroupHoldAndExactExpiry(t *testing.T) {
	w := newWorld(t)
	alice, bob := w.user(), w.user()

	// Alice holds A,B until t=10.
	ha := w.hold(alice, "A1", "A2")
	if ha.AmountMinor != 2*25000 {
		t.Fatalf("amount = %d, want both seats priced", ha.AmountMinor)
	}
	// Bob asks for B,C before expiry: rejected, and C remains free.
	w.clock.Set(ha.ExpiresAt.Add(-time.Millisecond))
	_, err := w.tryHold(bob, "A2", "A3")
	wantUnavailable(t, err, "A2")
	if st, _ := w.seat("A3"); st != booking.SeatAvailable {
		t.Fatalf("A3 = %s after the rejected group, want AVAILABLE (no partial claim)", st)
	}
	// At t=10 Bob holds A: expiry is enforced by the decision itself.
	w.clock.Set(ha.ExpiresAt)
	hb := w.hold(bob, "A1")
	if st, owner := w.seat("A1"); st != booking.SeatHeld || owner != hb.ID {
		t.Fatalf("A1 = %s by %s, want HELD by Bob's %s", st, owner, hb.ID)
	}
}

// Note LLD-008, "Late payment does not steal a reallocated seat".
func TestSeedLatePaymentDoesNotStealReallocatedSeat(t *testing.T) {
	w := newWorld(t)
	alice, bob := w.user(), w.user()
	ha := w.hold(alice, "A1")
	w.clock.Set(ha.ExpiresAt.Add(time.Second))
	hb := w.hold(bob, "A1")

	// Alice's payment arrives after expiry: REFUND_REQUIRED; Bob still owns A.
	c, err := w.pay(ha, "pay-alice")
	if err != nil {
		t.Fatal(err)
	}
	if c.Outcome != booking.OutcomeRefundRequired || c.Reason != booking.ReasonHoldExpired {
		t.Fatalf("confirmation = %+v, want REFUND_REQUIRED hold_expired", c)
	}
	if st, owner := w.seat("A1"); st != booking.SeatHeld || owner != hb.ID {
		t.Fatalf("A1 = %s by %s, want still HELD by Bob", st, owner)
	}
	if n := count(t, w.store, `SELECT count(*) FROM refunds WHERE payment_id = 'pay-alice' AND amount_minor = $1`, ha.AmountMinor); n != 1 {
		t.Fatalf("refund obligations for Alice = %d, want 1", n)
	}
	// Retry old cancellation: no release of Bob's hold.
	h, err := w.store.CancelHold(ctx, alice, ha.ID)
	if err != nil || h.State != booking.HoldExpired {
		t.Fatalf("old cancel = %s, %v; want EXPIRED unchanged", h.State, err)
	}
	if st, owner := w.seat("A1"); st != booking.SeatHeld || owner != hb.ID {
		t.Fatalf("A1 = %s by %s after the stale cancel, want HELD by Bob", st, owner)
	}
}

// Note "BookMyShow" TypeScript walk-through: A holds A1,A2; B is rejected
// naming both; C holds A3; A confirms in the window; after the TTL the
// confirmed seats stay BOOKED and only C's A3 is released.
func TestSeedBookMyShowWalkthrough(t *testing.T) {
	w := newWorld(t)
	a, b, c := w.user(), w.user(), w.user()
	start := w.clock.Now()

	ha := w.hold(a, "A1", "A2")
	w.clock.Set(start.Add(time.Second))
	_, err := w.tryHold(b, "A1", "A2")
	wantUnavailable(t, err, "A1", "A2")
	w.clock.Set(start.Add(2 * time.Second))
	w.hold(c, "A3")
	w.clock.Set(start.Add(2 * time.Minute))
	conf, err := w.pay(ha, "pay-101")
	if err != nil || conf.Outcome != booking.OutcomeBooked {
		t.Fatalf("confirm = %+v, %v; want BOOKED", conf, err)
	}
	w.clock.Set(start.Add(6 * time.Minute))
	if n, err := w.store.ExpireHolds(ctx, 100); err != nil || n != 1 {
		t.Fatalf("swept %d holds, %v; want C's one", n, err)
	}
	for seat, want := range map[string]booking.SeatStatus{"A1": booking.SeatBooked, "A2": booking.SeatBooked, "A3": booking.SeatAvailable} {
		if got := w.mapStatus(seat); got != want {
			t.Errorf("%s = %s, want %s", seat, got, want)
		}
	}
}

// Note 5 of the study notes: lazy expiry lets B re-hold an expired seat,
// overwriting its hold id; A's late payment detects the mismatch and is
// refunded automatically.
func TestSeedLazyTakeoverThenLatePayment(t *testing.T) {
	w := newWorld(t)
	a, b := w.user(), w.user()
	ha := w.hold(a, "B1", "B2")
	w.clock.Set(ha.ExpiresAt.Add(time.Minute)) // no sweep has run
	if got := w.mapStatus("B1"); got != booking.SeatAvailable {
		t.Fatalf("seat map shows B1 %s before any sweep, want AVAILABLE", got)
	}
	hb := w.hold(b, "B2", "B3")
	conf, err := w.pay(ha, "pay-a")
	if err != nil || conf.Outcome != booking.OutcomeRefundRequired {
		t.Fatalf("late payment = %+v, %v; want REFUND_REQUIRED", conf, err)
	}
	if st, owner := w.seat("B2"); st != booking.SeatHeld || owner != hb.ID {
		t.Fatalf("B2 = %s by %s, want HELD by B", st, owner)
	}
	if st, _ := w.seat("B1"); st != booking.SeatAvailable {
		t.Fatalf("B1 = %s, want released when A's hold was ended", st)
	}
}

// Chapter "Handling Concurrency and Locking": the partial-seat case. A group
// of three where the third is taken holds nothing.
func TestSeedPartialGroupHoldsNothing(t *testing.T) {
	w := newWorld(t)
	a, b := w.user(), w.user()
	w.hold(a, "A3")
	_, err := w.tryHold(b, "A1", "A2", "A3")
	wantUnavailable(t, err, "A3")
	for _, s := range []string{"A1", "A2"} {
		if st, _ := w.seat(s); st != booking.SeatAvailable {
			t.Errorf("%s = %s, want AVAILABLE: nothing partial", s, st)
		}
	}
	if n := count(t, w.store, `SELECT count(*) FROM holds WHERE user_id = $1`, b); n != 0 {
		t.Fatalf("B has %d holds, want none", n)
	}
}

// Chapter "Handling Concurrency and Locking", knowledge check 2: a hold
// whose window passes without payment frees its seats when swept, and a
// confirmation at the boundary loses.
func TestSeedExpiryBoundaryPaymentLoses(t *testing.T) {
	w := newWorld(t)
	a := w.user()
	h := w.hold(a, "C1")
	w.clock.Set(h.ExpiresAt)
	conf, err := w.pay(h, "pay-boundary")
	if err != nil || conf.Outcome != booking.OutcomeRefundRequired || conf.Reason != booking.ReasonHoldExpired {
		t.Fatalf("payment at the deadline = %+v, %v; want REFUND_REQUIRED hold_expired", conf, err)
	}
	if st, _ := w.seat("C1"); st != booking.SeatAvailable {
		t.Fatalf("C1 = %s, want AVAILABLE", st)
	}
}
