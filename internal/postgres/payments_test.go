package postgres_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
)

func TestConfirmPayment(t *testing.T) {
	t.Run("first payment for a held hold books it", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		h := w.hold(u, "C1", "C2")
		c, err := w.pay(h, "pay-1")
		if err != nil || c.Outcome != booking.OutcomeBooked || c.BookingID == "" {
			t.Fatalf("confirmation = %+v, %v", c, err)
		}
		b, err := w.store.Booking(ctx, u, c.BookingID)
		if err != nil {
			t.Fatal(err)
		}
		if b.PaymentID != "pay-1" || b.HoldID != h.ID || b.AmountMinor != 2*45000 || len(b.Code) != 12 || b.Status != booking.BookingConfirmed {
			t.Fatalf("booking = %+v", b)
		}
		if got, _ := w.store.Hold(ctx, u, h.ID); got.State != booking.HoldConfirmed {
			t.Fatalf("hold = %s, want CONFIRMED", got.State)
		}
	})
	t.Run("the same payment again returns the stored outcome", func(t *testing.T) {
		w := newWorld(t)
		h := w.hold(w.user(), "A1")
		first, _ := w.pay(h, "pay-1")
		again, err := w.pay(h, "pay-1")
		if err != nil || again != first {
			t.Fatalf("repeat = %+v, %v; want %+v", again, err, first)
		}
		if n := count(t, w.store, `SELECT count(*) FROM bookings`); n != 1 {
			t.Fatalf("%d bookings, want 1", n)
		}
	})
	t.Run("the same payment id with another amount, hold or currency is refused", func(t *testing.T) {
		w := newWorld(t)
		h := w.hold(w.user(), "A1")
		other := w.hold(w.user(), "A2")
		if c, err := w.pay(h, "pay-1"); err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("first payment = %+v, %v", c, err)
		}
		for name, p := range map[string]booking.Payment{
			"amount":   {ID: "pay-1", HoldRef: h.ID, AmountMinor: h.AmountMinor + 1, Currency: h.Currency},
			"hold":     {ID: "pay-1", HoldRef: other.ID, AmountMinor: other.AmountMinor, Currency: other.Currency},
			"currency": {ID: "pay-1", HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: "USD"},
		} {
			if _, err := w.store.ConfirmPayment(ctx, p); !errors.Is(err, booking.ErrPaymentConflict) {
				t.Errorf("other %s: err = %v, want ErrPaymentConflict", name, err)
			}
		}
		if n := count(t, w.store, `SELECT count(*) FROM payments`); n != 1 {
			t.Fatalf("%d payments recorded, want 1", n)
		}
	})
	t.Run("a second distinct payment for a confirmed hold is refunded", func(t *testing.T) {
		w := newWorld(t)
		h := w.hold(w.user(), "A1")
		if c, err := w.pay(h, "pay-1"); err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("first payment = %+v, %v", c, err)
		}
		c, err := w.pay(h, "pay-2")
		if err != nil || c.Outcome != booking.OutcomeRefundRequired || c.Reason != booking.ReasonAlreadyConfirmed {
			t.Fatalf("second payment = %+v, %v", c, err)
		}
		if st, _ := w.seat("A1"); st != booking.SeatBooked {
			t.Fatalf("A1 = %s, want still BOOKED once", st)
		}
		if n := count(t, w.store, `SELECT count(*) FROM refunds WHERE payment_id = 'pay-2'`); n != 1 {
			t.Fatalf("refunds for pay-2 = %d, want 1", n)
		}
	})
	t.Run("an amount mismatch is recorded with a refund and reported", func(t *testing.T) {
		w := newWorld(t)
		h := w.hold(w.user(), "A1")
		p := booking.Payment{ID: "pay-short", HoldRef: h.ID, AmountMinor: h.AmountMinor - 100, Currency: h.Currency}
		_, err := w.store.ConfirmPayment(ctx, p)
		var e *booking.AmountMismatchError
		if !errors.As(err, &e) {
			t.Fatalf("err = %v, want amount mismatch", err)
		}
		if st, _ := w.seat("A1"); st != booking.SeatHeld {
			t.Fatalf("A1 = %s, want untouched", st)
		}
		if n := count(t, w.store, `SELECT count(*) FROM refunds r JOIN payments p USING (payment_id) WHERE p.reason = 'amount_mismatch' AND r.amount_minor = $1`, p.AmountMinor); n != 1 {
			t.Fatalf("refund obligations = %d, want 1", n)
		}
		if _, err := w.store.ConfirmPayment(ctx, p); !errors.As(err, &e) {
			t.Fatalf("repeat err = %v, want the same mismatch", err)
		}
		// The hold can still be paid properly.
		if c, err := w.pay(h, "pay-right"); err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("correct payment = %+v, %v", c, err)
		}
	})
	t.Run("a payment for an unknown hold is refunded", func(t *testing.T) {
		w := newWorld(t)
		for _, ref := range []string{"not-a-hold", "00000000-0000-0000-0000-000000000000"} {
			c, err := w.store.ConfirmPayment(ctx, booking.Payment{ID: "pay-" + ref, HoldRef: ref, AmountMinor: 500, Currency: "INR"})
			if err != nil || c.Outcome != booking.OutcomeRefundRequired || c.Reason != booking.ReasonUnknownHold {
				t.Fatalf("%s: %+v, %v", ref, c, err)
			}
		}
	})
	t.Run("a payment for a cancelled hold is refunded", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		h := w.hold(u, "A1")
		if got, err := w.store.CancelHold(ctx, u, h.ID); err != nil || got.State != booking.HoldCancelled {
			t.Fatalf("cancel = %+v, %v", got, err)
		}
		c, err := w.pay(h, "pay-1")
		if err != nil || c.Reason != booking.ReasonHoldCancelled {
			t.Fatalf("%+v, %v", c, err)
		}
	})
}

func TestCancelHold(t *testing.T) {
	t.Run("releases the seats", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		h := w.hold(u, "A1", "A2")
		got, err := w.store.CancelHold(ctx, u, h.ID)
		if err != nil || got.State != booking.HoldCancelled {
			t.Fatalf("%+v, %v", got, err)
		}
		if st, _ := w.seat("A1"); st != booking.SeatAvailable {
			t.Fatalf("A1 = %s", st)
		}
		again, err := w.store.CancelHold(ctx, u, h.ID)
		if err != nil || again.State != booking.HoldCancelled {
			t.Fatalf("second cancel = %+v, %v; want unchanged", again, err)
		}
	})
	t.Run("a release is answered with the show's refund terms, and is otherwise a cancel", func(t *testing.T) {
		w := newWorld(t)
		u, intruder := w.user(), w.user()
		h := w.hold(u, "A1", "A2")
		if _, err := w.store.ReleaseHold(ctx, intruder, h.ID); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("another user's release: err = %v, want ErrNotFound", err)
		}
		if st, _ := w.seat("A1"); st != booking.SeatHeld {
			t.Fatalf("after another user's release A1 = %s, want still held", st)
		}
		res, err := w.store.ReleaseHold(ctx, u, h.ID)
		if err != nil || res.Hold.State != booking.HoldCancelled || res.Hold.ID != h.ID || !slices.Equal(res.Hold.Seats, []string{"A1", "A2"}) {
			t.Fatalf("release = %+v, %v", res.Hold, err)
		}
		if st, _ := w.seat("A1"); st != booking.SeatAvailable {
			t.Fatalf("A1 = %s", st)
		}
		want, err := w.store.CancellationTerms(ctx, h.ShowID)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Terms.StartsAt.Equal(want.StartsAt) || !reflect.DeepEqual(res.Terms.Policy, want.Policy) || res.Terms.Now.IsZero() {
			t.Fatalf("terms = %+v, want those of the show %+v", res.Terms, want)
		}

		paid := w.hold(u, "B1")
		if c, err := w.pay(paid, "pay-1"); err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("payment = %+v, %v", c, err)
		}
		if _, err := w.store.ReleaseHold(ctx, u, paid.ID); !errors.Is(err, booking.ErrHoldConfirmed) {
			t.Fatalf("releasing a paid hold: err = %v, want ErrHoldConfirmed", err)
		}
	})
	t.Run("a confirmed hold cannot be cancelled", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		h := w.hold(u, "A1")
		if c, err := w.pay(h, "pay-1"); err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("first payment = %+v, %v", c, err)
		}
		if _, err := w.store.CancelHold(ctx, u, h.ID); !errors.Is(err, booking.ErrHoldConfirmed) {
			t.Fatalf("err = %v, want ErrHoldConfirmed", err)
		}
	})
	t.Run("another user's hold is not found", func(t *testing.T) {
		w := newWorld(t)
		owner := w.user()
		h := w.hold(owner, "A1")
		intruder := w.user()
		if _, err := w.store.CancelHold(ctx, intruder, h.ID); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("cancel: err = %v, want ErrNotFound", err)
		}
		if _, err := w.store.Hold(ctx, intruder, h.ID); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("read: err = %v, want ErrNotFound", err)
		}
		if st, _ := w.seat("A1"); st != booking.SeatHeld {
			t.Fatalf("A1 = %s, want still held", st)
		}
	})
}

func TestCancelBooking(t *testing.T) {
	book := func(w *world, u string, seats ...string) booking.Booking {
		t.Helper()
		h := w.hold(u, seats...)
		c, err := w.pay(h, "pay-"+h.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := w.store.Booking(ctx, u, c.BookingID)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	showStart := func(w *world) time.Time {
		sh, err := w.store.Show(ctx, w.show)
		if err != nil {
			t.Fatal(err)
		}
		return sh.StartsAt
	}
	for _, tc := range []struct {
		name    string
		before  time.Duration // cancelling this long before the show
		percent int64
		closed  bool
	}{
		// A tier ends at its deadline exactly (the default policy's: 24 h
		// and 2 h before the show), as the hold object's refund_tiers say.
		{"a second before the 24-hour deadline: full refund", 24*time.Hour + time.Second, 100, false},
		{"exactly at it: half", 24 * time.Hour, 50, false},
		{"a second after it: half", 24*time.Hour - time.Second, 50, false},
		{"between 2 and 24 hours before: half", 3 * time.Hour, 50, false},
		{"a second before the 2-hour deadline: half", 2*time.Hour + time.Second, 50, false},
		{"exactly at it: closed", 2 * time.Hour, 0, true},
		{"a second after it: closed", 2*time.Hour - time.Second, 0, true},
		{"after the start: closed", -time.Minute, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			u := w.user()
			b := book(w, u, "A1", "A2")
			w.clock.Set(showStart(w).Add(-tc.before))
			quote, err := w.store.QuoteCancellation(ctx, u, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			// What the hold promised before paying: the first tier still
			// ahead, none once cancelling has closed.
			terms, err := w.store.CancellationTerms(ctx, w.show)
			if err != nil {
				t.Fatal(err)
			}
			tiers := terms.Deadlines()
			got, err := w.store.CancelBooking(ctx, u, b.ID)
			if tc.closed {
				if !errors.Is(err, booking.ErrCancellationClosed) || quote.Allowed || len(tiers) != 0 {
					t.Fatalf("err = %v, quote %+v; want cancellation closed", err, quote)
				}
				if st, _ := w.seat("A1"); st != booking.SeatBooked {
					t.Fatalf("A1 = %s, want still BOOKED", st)
				}
				return
			}
			want := b.AmountMinor * tc.percent / 100
			if err != nil || got.Status != booking.BookingCancelled || got.Refund == nil || got.Refund.AmountMinor != want {
				t.Fatalf("cancel = %+v (refund %+v), %v; want refund %d", got, got.Refund, err, want)
			}
			if quote.AmountMinor != want || !quote.Allowed || len(tiers) == 0 || int64(tiers[0].Percent) != tc.percent {
				t.Fatalf("quote = %+v, tiers %v; want %d under the %d%% tier", quote, tiers, want, tc.percent)
			}
			for _, s := range []string{"A1", "A2"} {
				if st, _ := w.seat(s); st != booking.SeatAvailable {
					t.Fatalf("%s = %s, want back on sale", s, st)
				}
			}
			again, err := w.store.CancelBooking(ctx, u, b.ID)
			if err != nil || again.Refund == nil || again.Refund.ID != got.Refund.ID {
				t.Fatalf("second cancel = %+v, %v; want the same refund", again, err)
			}
			// The seats can be sold again.
			book(w, w.user(), "A1")
		})
	}
	t.Run("another user's booking is not found", func(t *testing.T) {
		w := newWorld(t)
		b := book(w, w.user(), "A1")
		intruder := w.user()
		if _, err := w.store.CancelBooking(ctx, intruder, b.ID); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
		if _, err := w.store.Booking(ctx, intruder, b.ID); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestHoldRejectsBadInput(t *testing.T) {
	w := newWorld(t)
	u := w.user()
	before := count(t, w.store, `SELECT count(*) FROM holds`)
	cases := map[string]struct {
		show  int64
		seats []string
		check func(error) bool
	}{
		"no seats":        {w.show, nil, func(err error) bool { return errors.Is(err, booking.ErrNoSeats) }},
		"duplicate seats": {w.show, []string{"A1", "A1"}, func(err error) bool { var e *booking.DuplicateSeatsError; return errors.As(err, &e) }},
		"unknown seats": {w.show, []string{"A1", "Z9", "Q1"}, func(err error) bool {
			var e *booking.UnknownSeatsError
			return errors.As(err, &e) && len(e.Seats) == 2 && e.Seats[0] == "Q1"
		}},
		"invalid seat id": {w.show, []string{"A1'; --"}, func(err error) bool { var e *booking.InvalidSeatError; return errors.As(err, &e) }},
		"too many seats":  {w.show, []string{"A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4", "C1", "C2", "C3"}, func(err error) bool { var e *booking.TooManySeatsError; return errors.As(err, &e) }},
		"unknown show":    {w.show + 1000, []string{"A1"}, func(err error) bool { return errors.Is(err, booking.ErrNotFound) }},
	}
	for name, tc := range cases {
		_, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: u, ShowID: tc.show, Seats: tc.seats, TTL: ttl, Key: name}, 10)
		if !tc.check(err) {
			t.Errorf("%s: unexpected err %v", name, err)
		}
	}
	if after := count(t, w.store, `SELECT count(*) FROM holds`); after != before {
		t.Fatalf("holds %d -> %d: bad input changed the database", before, after)
	}
	t.Run("a show that has started is closed", func(t *testing.T) {
		w.clock.Advance(72 * time.Hour)
		if _, err := w.tryHold(u, "A1"); !errors.Is(err, booking.ErrShowClosed) {
			t.Fatalf("err = %v, want ErrShowClosed", err)
		}
	})
}

// My bookings lists the payments that bought nothing: each with its hold's
// seats, why, and its refund as it stands; another user's never.
func TestRefundedPayments(t *testing.T) {
	w := newWorld(t)
	u, other := w.user(), w.user()
	late := w.hold(u, "A1")
	booked := w.hold(other, "B1")
	if _, err := w.pay(booked, "pay-other"); err != nil {
		t.Fatal(err)
	}
	w.clock.Set(late.ExpiresAt)
	if c, err := w.pay(late, "pay-late"); err != nil || c.Reason != booking.ReasonHoldExpired {
		t.Fatalf("late payment = %+v, %v", c, err)
	}
	w.clock.Advance(time.Second)
	again := w.hold(u, "A2")
	if _, err := w.pay(again, "pay-first"); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Second)
	if c, err := w.pay(again, "pay-twice"); err != nil || c.Reason != booking.ReasonAlreadyConfirmed {
		t.Fatalf("second payment = %+v, %v", c, err)
	}

	list, err := w.store.RefundedPayments(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].PaymentID != "pay-twice" || list[1].PaymentID != "pay-late" {
		t.Fatalf("refunded payments = %+v, want pay-twice then pay-late", list)
	}
	p := list[1]
	if p.HoldID != late.ID || p.ShowID != w.show || !slices.Equal(p.Seats, []string{"A1"}) || p.AmountMinor != late.AmountMinor ||
		p.Reason != booking.ReasonHoldExpired || p.Refund.Status != booking.RefundPending || p.Refund.AmountMinor != late.AmountMinor {
		t.Fatalf("late payment listed as %+v", p)
	}
	if err := w.store.RefundSucceeded(ctx, p.Refund.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := w.store.RefundedPayments(ctx, u); list[1].Refund.Status != booking.RefundSucceeded {
		t.Fatalf("after paying it back: %+v", list[1].Refund)
	}
	if list, err := w.store.RefundedPayments(ctx, other); err != nil || len(list) != 0 {
		t.Fatalf("the other user's refunded payments = %+v, %v", list, err)
	}
	if list, err := w.store.RefundedPayments(ctx, "garbage"); err != nil || len(list) != 0 {
		t.Fatalf("garbage user: %+v, %v", list, err)
	}
}
