package postgres_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/booking"
)

func TestPaymentsForHold(t *testing.T) {
	w := newWorld(t)
	owner, other := w.user(), w.user()
	payments := func(user, holdID string) []booking.HoldPayment {
		t.Helper()
		list, err := w.store.PaymentsForHold(ctx, user, holdID)
		if err != nil {
			t.Fatal(err)
		}
		return list
	}

	h := w.hold(owner, "A1", "A2")
	t.Run("no payment yet: none", func(t *testing.T) {
		if got := payments(owner, h.ID); len(got) != 0 {
			t.Fatalf("payments = %+v", got)
		}
	})

	if _, err := w.pay(h, "pay-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.pay(h, "pay-2"); err != nil { // a second, distinct payment
		t.Fatal(err)
	}
	t.Run("the booking payment first, then the refunded one", func(t *testing.T) {
		got := payments(owner, h.ID)
		if len(got) != 2 {
			t.Fatalf("payments = %+v, want 2", got)
		}
		booked, extra := got[0], got[1]
		if booked.PaymentID != "pay-1" || booked.Outcome != booking.OutcomeBooked || booked.BookingID == "" ||
			booked.AmountMinor != h.AmountMinor || booked.Currency != "INR" || booked.Refund != nil {
			t.Fatalf("first = %+v", booked)
		}
		if extra.PaymentID != "pay-2" || extra.Outcome != booking.OutcomeRefundRequired || extra.Reason != booking.ReasonAlreadyConfirmed ||
			extra.Refund == nil || extra.Refund.AmountMinor != h.AmountMinor || extra.Refund.Status != booking.RefundPending {
			t.Fatalf("second = %+v (refund %+v)", extra, extra.Refund)
		}
	})

	t.Run("another user's hold, an unknown or a garbage id: none", func(t *testing.T) {
		for _, c := range []struct{ user, hold string }{
			{other, h.ID}, {owner, "6f1c1d2e-0000-4000-8000-000000000001"}, {owner, "garbage"}, {"garbage", h.ID}, {owner, ""},
		} {
			if got := payments(c.user, c.hold); len(got) != 0 {
				t.Errorf("PaymentsForHold(%q, %q) = %+v", c.user, c.hold, got)
			}
		}
	})

	t.Run("a late payment: refund required, with its refund", func(t *testing.T) {
		late := w.hold(other, "B1")
		w.clock.Set(late.ExpiresAt)
		if _, err := w.pay(late, "pay-late"); err != nil {
			t.Fatal(err)
		}
		got := payments(other, late.ID)
		if len(got) != 1 || got[0].Outcome != booking.OutcomeRefundRequired || got[0].Reason != booking.ReasonHoldExpired ||
			got[0].Refund == nil || got[0].Refund.AmountMinor != late.AmountMinor {
			t.Fatalf("payments = %+v", got)
		}
	})
}
