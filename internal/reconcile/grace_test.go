package reconcile_test

import (
	"errors"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// A payment made in time books, however late its report: a hold a checkout
// was opened for keeps its seats for the payment grace after its deadline,
// and a payment the provider captured before the deadline books it then.

// seatStatus reports how seat reads on the seat map and in the live seat
// map's reading, for a guest.
func (w *world) seatStatus(seat string) (booking.SeatStatus, booking.SeatStatus) {
	w.t.Helper()
	seats, err := w.store.SeatMap(ctx, w.show, "")
	if err != nil {
		w.t.Fatal(err)
	}
	live, err := w.store.SeatStates(ctx, w.show, []string{seat})
	if err != nil || len(live) != 1 {
		w.t.Fatalf("seat states = %v, %v", live, err)
	}
	for _, s := range seats {
		if s.ID == seat {
			return s.Status, live[0].Status
		}
	}
	w.t.Fatalf("no seat %s on the map", seat)
	return "", ""
}

// holdByOther asks for seat as a new user.
func (w *world) holdByOther(seat string) error {
	w.t.Helper()
	_, err := w.store.HoldSeats(ctx, booking.HoldRequest{
		UserID: pgtest.User(w.t, w.store), ShowID: w.show, Seats: []string{seat}, TTL: 5 * time.Minute, Key: "other-" + seat,
	}, 10)
	return err
}

// inGrace checks that h, past its deadline and within its grace, still
// holds seat for its owner: on the seat map, in the live seat map's
// reading, against another user's hold and the sweeper.
func (w *world) inGrace(h booking.Hold, seat string) {
	w.t.Helper()
	if m, l := w.seatStatus(seat); m != booking.SeatHeld || l != booking.SeatHeld {
		w.t.Fatalf("in the grace %s reads %s on the map and %s live, want HELD", seat, m, l)
	}
	var taken *booking.SeatsUnavailableError
	if err := w.holdByOther(seat); !errors.As(err, &taken) {
		w.t.Fatalf("another user's hold of %s in the grace = %v, want seats unavailable", seat, err)
	}
	if n, err := w.store.ExpireHolds(ctx, 10); err != nil || n != 0 {
		w.t.Fatalf("the sweeper ended %d holds in the grace (%v), want none", n, err)
	}
	if got, err := w.store.Hold(ctx, h.UserID, h.ID); err != nil || got.State != booking.HoldHeld {
		w.t.Fatalf("hold in its grace reads %s, %v; want HELD", got.State, err)
	}
}

// payOneSecondEarly pays h's checkout with its webhook lost, 1 s before
// its deadline, and moves the clock to just after the deadline.
func (w *world) payOneSecondEarly(h booking.Hold) {
	w.t.Helper()
	id := w.checkout(h)
	w.clock.Set(h.ExpiresAt.Add(-time.Second))
	if _, err := w.sandbox.Pay(ctx, id, sandbox.BehaveDrop); err != nil {
		w.t.Fatal(err)
	}
	w.clock.Set(h.ExpiresAt.Add(time.Second))
}

func (w *world) wantBooked(h booking.Hold) {
	w.t.Helper()
	if got := w.scalar(`SELECT state FROM holds WHERE id = $1`, h.ID); got != "CONFIRMED" {
		w.t.Fatalf("hold is %s, want CONFIRMED", got)
	}
	if got := w.scalar(`SELECT string_agg(outcome, ',') FROM payments WHERE hold_id = $1`, h.ID); got != "BOOKED" {
		w.t.Fatalf("payments = %s, want one BOOKED", got)
	}
	if w.count(`SELECT count(*) FROM refunds`) != 0 || w.count(`SELECT count(*) FROM sandbox_payments WHERE status = 'succeeded'`) != 1 {
		w.t.Fatal("want one charge and no refund")
	}
	if m, l := w.seatStatus(h.Seats[0]); m != booking.SeatBooked || l != booking.SeatBooked {
		w.t.Fatalf("booked seat reads %s on the map and %s live", m, l)
	}
}

func TestPaymentCapturedBeforeTheDeadlineBooksInTheGrace(t *testing.T) {
	t.Parallel()
	t.Run("by reconciliation", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		h := w.hold("A1", 5*time.Minute)
		w.payOneSecondEarly(h)
		w.inGrace(h, "A1")
		if n := w.check(); n != 1 {
			t.Fatalf("asked %d times, want 1", n)
		}
		w.wantBooked(h)
	})
	t.Run("by a late webhook", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		h := w.hold("A1", 5*time.Minute)
		w.payOneSecondEarly(h)
		w.clock.Set(h.ExpiresAt.Add(grace - time.Second))
		w.inGrace(h, "A1")
		charge := w.report(h).Charges[0]
		if !charge.CapturedAt.Equal(h.ExpiresAt.Add(-time.Second)) {
			t.Fatalf("the sandbox reports the capture at %v, want %v", charge.CapturedAt, h.ExpiresAt.Add(-time.Second))
		}
		c, err := (&boxoffice.Receiver{Store: w.store}).Receive(ctx, charge, true) // what the webhook handler calls
		if err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("late webhook = %+v, %v; want BOOKED", c, err)
		}
		w.wantBooked(h)
	})
}

// No money is taken after the deadline; a capture after it that a provider
// reports anyway is refunded, and the hold keeps its seats to the end of
// its grace, then lets them go.
func TestPaymentCapturedAfterTheDeadlineIsRefunded(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Minute)
	id := w.checkout(h)
	w.clock.Set(h.ExpiresAt)
	if _, err := w.sandbox.Pay(ctx, id, sandbox.BehaveNormal); !errors.Is(err, sandbox.ErrCheckoutExpired) {
		t.Fatalf("Pay at the deadline = %v, want ErrCheckoutExpired", err)
	}
	w.clock.Set(h.ExpiresAt.Add(time.Minute))
	late := booking.Payment{ID: "pay_late", HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency, CapturedAt: h.ExpiresAt}
	c, err := (&boxoffice.Receiver{Store: w.store}).Receive(ctx, late, true)
	if err != nil || c.Outcome != booking.OutcomeRefundRequired || c.Reason != booking.ReasonHoldExpired {
		t.Fatalf("capture at the deadline, reported in the grace = %+v, %v; want refunded as hold_expired", c, err)
	}
	w.inGrace(h, "A1")
	w.clock.Set(h.ExpiresAt.Add(grace))
	if n, err := w.store.ExpireHolds(ctx, 10); err != nil || n != 1 {
		t.Fatalf("the sweeper ended %d holds after the grace (%v), want 1", n, err)
	}
	if err := w.holdByOther("A1"); err != nil {
		t.Fatalf("another user's hold after the grace: %v", err)
	}
	if got := w.scalar(`SELECT outcome || ' ' || reason FROM payments WHERE payment_id = 'pay_late'`); got != "REFUND_REQUIRED hold_expired" {
		t.Fatalf("late payment = %s", got)
	}
}

// After the grace a hold with an unpaid checkout is released: to the
// microsecond before the grace ends the seats stay held, from its end
// they are free, even before any sweep.
func TestUnpaidCheckoutLetsGoAfterTheGrace(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Minute)
	w.checkout(h)
	w.clock.Set(h.ExpiresAt.Add(grace - time.Microsecond))
	w.inGrace(h, "A1")
	w.clock.Set(h.ExpiresAt.Add(grace))
	if m, l := w.seatStatus("A1"); m != booking.SeatAvailable || l != booking.SeatAvailable {
		t.Fatalf("after the grace A1 reads %s on the map and %s live, want AVAILABLE", m, l)
	}
	if got, err := w.store.Hold(ctx, h.UserID, h.ID); err != nil || got.State != booking.HoldExpired {
		t.Fatalf("hold after its grace reads %s, %v; want EXPIRED", got.State, err)
	}
	if n, err := w.store.ExpireHolds(ctx, 10); err != nil || n != 1 {
		t.Fatalf("the sweeper ended %d holds after the grace (%v), want 1", n, err)
	}
	if err := w.holdByOther("A1"); err != nil {
		t.Fatalf("another user's hold after the grace: %v", err)
	}
}

// A hold nobody opened a checkout for has no grace: it lets go at its
// deadline, as before.
func TestHoldWithoutCheckoutHasNoGrace(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Minute)
	w.clock.Set(h.ExpiresAt)
	if err := w.holdByOther("A1"); err != nil {
		t.Fatalf("another user's hold at the deadline of a hold without checkout: %v", err)
	}
}
