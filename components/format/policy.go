package format

import (
	"strconv"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// RefundNow says in a moviegoer's words what cancelling a booking of a show
// starting at startsAt gives back from now on, under policy, with times in
// the theatre's zone tz: "Full refund until 18:00 today, then 50% refund
// until Sat 16:00, then no refund", or "Non-refundable: the show starts in
// under 6 hours". It reads the same deadlines a cancellation is decided on
// (booking.RefundPolicy.Deadlines), so the promise and the refund agree.
func RefundNow(policy booking.RefundPolicy, startsAt, now time.Time, tz string) string {
	// Tiers that give back the same are one to a person, and a 0% tier
	// at the end is the same as no tier: nothing back.
	var steps []booking.RefundDeadline
	for _, d := range policy.Deadlines(startsAt, now) {
		if n := len(steps); n > 0 && steps[n-1].Percent == d.Percent {
			steps[n-1].Until = d.Until
			continue
		}
		steps = append(steps, d)
	}
	for len(steps) > 0 && steps[len(steps)-1].Percent == 0 {
		steps = steps[:len(steps)-1]
	}
	if len(steps) == 0 {
		return nonRefundable(policy)
	}
	parts := make([]string, 0, len(steps)+1)
	for i, s := range steps {
		parts = append(parts, refundShare(s.Percent, i == 0)+" until "+deadline(s.Until, now, tz))
	}
	parts = append(parts, "then no refund")
	return strings.Join(parts, ", ")
}

// nonRefundable says why nothing comes back any more: the last tier that
// gave something back has passed, or the theatre gives none.
func nonRefundable(policy booking.RefundPolicy) string {
	last, paid := time.Duration(0), false
	for _, t := range policy.Tiers {
		if t.Percent > 0 && (!paid || t.Before < last) {
			last, paid = t.Before, true
		}
	}
	switch {
	case !paid:
		return "Non-refundable: this theatre gives no refunds"
	case last <= 0:
		return "Non-refundable: the show has started"
	}
	return "Non-refundable: the show starts in under " + hoursOrMinutes(last)
}

// refundShare is what a tier gives back: "Full refund", "50% refund", and
// after the first, "then 50% refund".
func refundShare(percent int, first bool) string {
	var s string
	switch percent {
	case 100:
		s = "full refund"
	case 0:
		s = "no refund"
	default:
		s = strconv.Itoa(percent) + "% refund"
	}
	if first {
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return "then " + s
}

// deadline writes a tier's end in the theatre's zone: "19:00 today",
// with the weekday within the coming week ("Sat 19:00"), and with the
// date after that ("Sat 19 Dec 2026, 19:00").
func deadline(t, now time.Time, tz string) string {
	loc := Zone(tz)
	t, now = t.In(loc), now.In(loc)
	ty, tm, td := t.Date()
	ny, nm, nd := now.Date()
	day := time.Date(ty, tm, td, 0, 0, 0, 0, time.UTC)
	today := time.Date(ny, nm, nd, 0, 0, 0, 0, time.UTC)
	switch days := day.Sub(today) / (24 * time.Hour); {
	case days <= 0:
		return Clock(t, tz) + " today"
	case days < 7:
		return t.Format("Mon ") + Clock(t, tz)
	}
	return Date(t, tz) + ", " + Clock(t, tz)
}

// hoursOrMinutes writes a tier's distance from the show: "6 hours", "90
// minutes".
func hoursOrMinutes(d time.Duration) string {
	if d%time.Hour == 0 {
		return Plural(int(d/time.Hour), "hour")
	}
	return Plural(int(d/time.Minute), "minute")
}
