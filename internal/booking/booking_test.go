package booking_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/money"
)

func TestNormalize(t *testing.T) {
	req := func(seats ...string) booking.HoldRequest { return booking.HoldRequest{Seats: seats} }
	t.Run("sorts the seats", func(t *testing.T) {
		got, err := req("B2", "A10", "A1").Normalize(10)
		if err != nil || !slices.Equal(got, []string{"A1", "A10", "B2"}) {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	t.Run("ErrNoSeats", func(t *testing.T) {
		if _, err := req().Normalize(10); !errors.Is(err, booking.ErrNoSeats) {
			t.Fatal(err)
		}
	})
	t.Run("DuplicateSeats names each duplicate once", func(t *testing.T) {
		_, err := req("A1", "A2", "A1", "A1", "A2").Normalize(10)
		var e *booking.DuplicateSeatsError
		if !errors.As(err, &e) || !slices.Equal(e.Seats, []string{"A1", "A2"}) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("TooManySeats", func(t *testing.T) {
		_, err := req("A1", "A2", "A3").Normalize(2)
		var e *booking.TooManySeatsError
		if !errors.As(err, &e) || e.Asked != 3 || e.Max != 2 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("InvalidSeat", func(t *testing.T) {
		for _, s := range []string{"", "A 1", "A1;", "ÄÖ", "A12345678901234567"} {
			var e *booking.InvalidSeatError
			if _, err := req("A1", s).Normalize(10); !errors.As(err, &e) {
				t.Errorf("%q: err = %v", s, err)
			}
		}
	})
}

func TestFingerprint(t *testing.T) {
	base := booking.HoldRequest{UserID: "u", ShowID: 1, TTL: 5 * time.Minute}
	fp := base.Fingerprint([]string{"A1", "A2"})
	for name, other := range map[string]string{
		"other user":  booking.HoldRequest{UserID: "v", ShowID: 1, TTL: 5 * time.Minute}.Fingerprint([]string{"A1", "A2"}),
		"other show":  booking.HoldRequest{UserID: "u", ShowID: 2, TTL: 5 * time.Minute}.Fingerprint([]string{"A1", "A2"}),
		"other ttl":   booking.HoldRequest{UserID: "u", ShowID: 1, TTL: 6 * time.Minute}.Fingerprint([]string{"A1", "A2"}),
		"other seats": base.Fingerprint([]string{"A1"}),
		"seat split":  base.Fingerprint([]string{"A1A2"}),
	} {
		if other == fp {
			t.Errorf("%s has the same fingerprint", name)
		}
	}
	if base.Fingerprint([]string{"A1", "A2"}) != fp {
		t.Error("fingerprint is not stable")
	}
}

func TestValidKey(t *testing.T) {
	for key, want := range map[string]bool{
		"a": true, "order-42:retry": true, "": false, "tab\there": false, "é": false,
		string(make([]byte, 256)): false,
	} {
		if got := booking.ValidKey(key); got != want {
			t.Errorf("ValidKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestPaymentValidate(t *testing.T) {
	good := booking.Payment{ID: "pay_9Zq", HoldRef: "298ff3f4-78d5-4d22-9c4d-fcb979589df6", AmountMinor: 90000, Currency: "INR"}
	if err := good.Validate(); err != nil {
		t.Fatalf("a real payment: %v", err)
	}
	for name, c := range map[string]struct {
		change func(*booking.Payment)
		field  string
	}{
		"id that is a path":     {func(p *booking.Payment) { p.ID = "../shows/64/cancel" }, "payment_id"},
		"id with a slash":       {func(p *booking.Payment) { p.ID = "pay/1" }, "payment_id"},
		"id with a percent":     {func(p *booking.Payment) { p.ID = "pay%2F1" }, "payment_id"},
		"id with a space":       {func(p *booking.Payment) { p.ID = "pay 1" }, "payment_id"},
		"empty id":              {func(p *booking.Payment) { p.ID = "" }, "payment_id"},
		"id of 256":             {func(p *booking.Payment) { p.ID = strings.Repeat("p", 256) }, "payment_id"},
		"hold id with a tab":    {func(p *booking.Payment) { p.HoldRef = "a\tb" }, "hold_id"},
		"negative amount":       {func(p *booking.Payment) { p.AmountMinor = -1 }, "amount_minor"},
		"amount past the bound": {func(p *booking.Payment) { p.AmountMinor = money.MaxAmountMinor + 1 }, "amount_minor"},
	} {
		p := good
		c.change(&p)
		var ie *booking.InvalidPaymentError
		if err := p.Validate(); !errors.As(err, &ie) || ie.Field != c.field {
			t.Errorf("%s: %v, want %s named", name, err, c.field)
		}
	}
	for _, id := range []string{"a", "a:b.c-d_e", strings.Repeat("Z", 255)} {
		if !booking.ValidPaymentID(id) {
			t.Errorf("ValidPaymentID(%q) = false", id)
		}
	}
	top := good
	top.AmountMinor = money.MaxAmountMinor
	if err := top.Validate(); err != nil {
		t.Errorf("the bound itself: %v", err)
	}
}

func TestRefundPolicy(t *testing.T) {
	p := booking.DefaultRefundPolicy
	start := time.Date(2026, 3, 6, 18, 0, 0, 0, time.UTC)
	// A tier passes at its deadline exactly, as a hold lapses at its own:
	// cancelling 24 hours before the show is already in the 50% tier.
	for _, tc := range []struct {
		until  time.Duration
		refund int64
		ok     bool
	}{
		{48 * time.Hour, 1000, true},
		{24*time.Hour + time.Second, 1000, true},
		{24*time.Hour + time.Nanosecond, 1000, true},
		{24 * time.Hour, 500, true},
		{24*time.Hour - time.Second, 500, true},
		{2*time.Hour + time.Nanosecond, 500, true},
		{2 * time.Hour, 0, false},
		{2*time.Hour - time.Second, 0, false},
		{-time.Hour, 0, false},
	} {
		refund, ok := p.RefundAt(1000, start, start.Add(-tc.until))
		if refund != tc.refund || ok != tc.ok {
			t.Errorf("%v before the show: %d, %v; want %d, %v", tc.until, refund, ok, tc.refund, tc.ok)
		}
	}
	t.Run("rounds down to the minor unit", func(t *testing.T) {
		if refund, _ := (booking.RefundPolicy{Tiers: []booking.RefundTier{{Percent: 33}}}).RefundAt(1001, start, start.Add(-time.Hour)); refund != 330 {
			t.Fatalf("refund = %d", refund)
		}
	})
}

func TestRefundDeadlines(t *testing.T) {
	start := time.Date(2026, 3, 6, 18, 0, 0, 0, time.UTC)
	// Tiers in any order; a 0% tier still lets a booking be cancelled.
	p := booking.RefundPolicy{Tiers: []booking.RefundTier{
		{Before: 3 * time.Hour, Percent: 0},
		{Before: 48 * time.Hour, Percent: 100},
		{Before: 24 * time.Hour, Percent: 50},
	}}
	d := func(before time.Duration, percent int) booking.RefundDeadline {
		return booking.RefundDeadline{Until: start.Add(-before), Percent: percent}
	}
	for _, tc := range []struct {
		name  string
		ahead time.Duration
		want  []booking.RefundDeadline
	}{
		{"before the first tier's deadline", 60 * time.Hour, []booking.RefundDeadline{d(48*time.Hour, 100), d(24*time.Hour, 50), d(3*time.Hour, 0)}},
		{"one second before it", 48*time.Hour + time.Second, []booking.RefundDeadline{d(48*time.Hour, 100), d(24*time.Hour, 50), d(3*time.Hour, 0)}},
		{"exactly at it", 48 * time.Hour, []booking.RefundDeadline{d(24*time.Hour, 50), d(3*time.Hour, 0)}},
		{"between tiers", 30 * time.Hour, []booking.RefundDeadline{d(24*time.Hour, 50), d(3*time.Hour, 0)}},
		{"inside the last tier", 10 * time.Hour, []booking.RefundDeadline{d(3*time.Hour, 0)}},
		{"exactly at the last deadline", 3 * time.Hour, nil},
		{"after every tier", time.Hour, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := start.Add(-tc.ahead)
			got := p.Deadlines(start, now)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Deadlines = %v, want %v", got, tc.want)
			}
			percent, ok := p.PercentAt(start, now)
			if ok != (len(tc.want) > 0) || (ok && percent != tc.want[0].Percent) {
				t.Fatalf("PercentAt = %d, %v; want the first deadline's", percent, ok)
			}
		})
	}
}

// TestMovedPolicy: a booking whose show moved gets all of it back until
// the show starts, to the instant, whatever the theatre's policy gives.
func TestMovedPolicy(t *testing.T) {
	start := time.Date(2026, 3, 6, 18, 0, 0, 0, time.UTC)
	none := booking.RefundPolicy{Tiers: []booking.RefundTier{{Before: 72 * time.Hour, Percent: 0}}}
	terms := booking.CancellationTerms{Policy: none, StartsAt: start}.ForMovedBooking()
	for _, tc := range []struct {
		ahead  time.Duration
		refund int64
		ok     bool
	}{
		{96 * time.Hour, 1000, true},
		{time.Nanosecond, 1000, true},
		{0, 0, false},
		{-time.Hour, 0, false},
	} {
		refund, ok := terms.Policy.RefundAt(1000, start, start.Add(-tc.ahead))
		if refund != tc.refund || ok != tc.ok {
			t.Errorf("%v before the show: %d, %v; want %d, %v", tc.ahead, refund, ok, tc.refund, tc.ok)
		}
	}
	if refund, ok := none.RefundAt(1000, start, start.Add(-96*time.Hour)); refund != 0 || !ok {
		t.Fatalf("the theatre's own policy gives %d, %v", refund, ok)
	}
}

func TestHoldLapsed(t *testing.T) {
	deadline := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	h := booking.Hold{State: booking.HoldHeld, ExpiresAt: deadline}
	if h.Lapsed(deadline.Add(-time.Nanosecond)) || !h.Lapsed(deadline) || !h.Lapsed(deadline.Add(time.Nanosecond)) {
		t.Fatal("a hold is valid while now < expires_at, exactly")
	}
	h.State = booking.HoldConfirmed
	if h.Lapsed(deadline.Add(time.Hour)) {
		t.Fatal("a confirmed hold never lapses")
	}
}

// Settle is the one rule of book or refund: each way a payment meets its
// hold, by the hold's state, its deadline, its grace and the capture time.
func TestSettle(t *testing.T) {
	deadline := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	grace := 2 * time.Minute
	held := booking.Hold{State: booking.HoldHeld, ExpiresAt: deadline, AmountMinor: 50000, Currency: "INR"}
	inGrace := held
	inGrace.PaymentGrace = grace
	pay := booking.Payment{ID: "pay_1", AmountMinor: 50000, Currency: "INR"}
	captured := pay
	captured.CapturedAt = deadline.Add(-time.Second)
	with := func(h booking.Hold, s booking.HoldState) booking.Hold { h.State = s; return h }
	other := pay
	other.Currency = "USD"

	for _, tc := range []struct {
		name  string
		h     booking.Hold
		found bool
		p     booking.Payment
		now   time.Time
		want  booking.Settlement
	}{
		{"no such hold", booking.Hold{}, false, pay, deadline, booking.Settlement{Reason: booking.ReasonUnknownHold}},
		{"another currency", held, true, other, deadline.Add(-time.Minute), booking.Settlement{Reason: booking.ReasonAmountMismatch}},
		{"in time", held, true, pay, deadline.Add(-time.Nanosecond), booking.Settlement{Book: true}},
		{"at the deadline, no grace: lapsed", held, true, pay, deadline, booking.Settlement{Reason: booking.ReasonHoldExpired, EndLapsed: true}},
		{"in the grace, captured in time", inGrace, true, captured, deadline.Add(time.Minute), booking.Settlement{Book: true}},
		{"in the grace, captured at the deadline", inGrace, true, func() booking.Payment { p := pay; p.CapturedAt = deadline; return p }(), deadline.Add(time.Minute), booking.Settlement{Reason: booking.ReasonHoldExpired}},
		{"in the grace, capture unknown", inGrace, true, pay, deadline.Add(time.Minute), booking.Settlement{Reason: booking.ReasonHoldExpired}},
		{"after the grace, captured in time", inGrace, true, captured, deadline.Add(grace), booking.Settlement{Reason: booking.ReasonHoldExpired, EndLapsed: true}},
		{"expired", with(held, booking.HoldExpired), true, pay, deadline.Add(-time.Minute), booking.Settlement{Reason: booking.ReasonHoldExpired}},
		{"cancelled", with(held, booking.HoldCancelled), true, pay, deadline.Add(-time.Minute), booking.Settlement{Reason: booking.ReasonHoldCancelled}},
		{"confirmed by another payment", with(held, booking.HoldConfirmed), true, pay, deadline.Add(-time.Minute), booking.Settlement{Reason: booking.ReasonAlreadyConfirmed}},
	} {
		if got := booking.Settle(tc.h, tc.found, tc.p, tc.now); got != tc.want {
			t.Errorf("%s: Settle = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
