package format_test

import (
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
)

func TestRefundNow(t *testing.T) {
	tiers := func(t ...booking.RefundTier) booking.RefundPolicy { return booking.RefundPolicy{Tiers: t} }
	h := time.Hour
	three := tiers(booking.RefundTier{Before: 48 * h, Percent: 100}, booking.RefundTier{Before: 24 * h, Percent: 50}, booking.RefundTier{Before: 3 * h, Percent: 0})
	// Saturday 7 March 2026, 21:00 in Kolkata (15:30 UTC).
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	start := time.Date(2026, 3, 7, 21, 0, 0, 0, kolkata)
	for _, tc := range []struct {
		name   string
		policy booking.RefundPolicy
		ahead  time.Duration
		want   string
	}{
		{"the default policy, before its first tier", booking.DefaultRefundPolicy, 50 * h,
			"Full refund until Fri 21:00, then 50% refund until Sat 19:00, then no refund"},
		{"inside its last tier, on the show's day", booking.DefaultRefundPolicy, 10 * h,
			"50% refund until 19:00 today, then no refund"},
		{"exactly at a tier's end: the next tier", booking.DefaultRefundPolicy, 24 * h,
			"50% refund until Sat 19:00, then no refund"},
		{"after every tier", booking.DefaultRefundPolicy, 2*h - time.Second,
			"Non-refundable: the show starts in under 2 hours"},
		{"a 0% tier at the end is no refund", three, 80 * h,
			"Full refund until Thu 21:00, then 50% refund until Fri 21:00, then no refund"},
		{"inside a 0% tier: nothing comes back", three, 10 * h,
			"Non-refundable: the show starts in under 24 hours"},
		{"one tier", tiers(booking.RefundTier{Before: 6 * h, Percent: 100}), 8 * h,
			"Full refund until 15:00 today, then no refund"},
		{"one tier, passed", tiers(booking.RefundTier{Before: 6 * h, Percent: 100}), 5*h + 48*time.Minute,
			"Non-refundable: the show starts in under 6 hours"},
		{"a theatre that refunds nothing", tiers(booking.RefundTier{Before: 0, Percent: 0}), 30 * h,
			"Non-refundable: this theatre gives no refunds"},
		{"a refund up to the start", tiers(booking.RefundTier{Before: 0, Percent: 75}), 30 * h,
			"75% refund until Sat 21:00, then no refund"},
		{"more than a week away: the date too", booking.DefaultRefundPolicy, 10 * 24 * h,
			"Full refund until Fri 6 Mar 2026, 21:00, then 50% refund until Sat 7 Mar 2026, 19:00, then no refund"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := format.RefundNow(tc.policy, start, start.Add(-tc.ahead), "Asia/Kolkata"); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}

	t.Run("times are the theatre's own", func(t *testing.T) {
		// The same instant, 19:00 UTC on Friday 6 March: 19:00 in Lisbon,
		// 00:30 on Saturday in Kolkata.
		start := time.Date(2026, 3, 8, 19, 0, 0, 0, time.UTC)
		now := start.Add(-50 * h)
		if got, want := format.RefundNow(booking.DefaultRefundPolicy, start, now, "Europe/Lisbon"),
			"Full refund until Sat 19:00, then 50% refund until Sun 17:00, then no refund"; got != want {
			t.Errorf("Lisbon: %q, want %q", got, want)
		}
		if got, want := format.RefundNow(booking.DefaultRefundPolicy, start, now, "Asia/Kolkata"),
			"Full refund until Sun 00:30, then 50% refund until Sun 22:30, then no refund"; got != want {
			t.Errorf("Kolkata: %q, want %q", got, want)
		}
	})
}
