package pages_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// Next to Pay, the hold panel says what cancelling right after paying
// gives back and until when, in the theatre's own time; after paying, the
// return page, My bookings and the ticket say the same in the same words.
func TestRefundNowBeforePay(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	// Wednesday 3 March 2027, 09:00 UTC: 09:00 in Lisbon, 14:30 in Kolkata.
	now := time.Date(2027, 3, 3, 9, 0, 0, 0, time.UTC)
	e.Clock.Set(now)
	h := time.Hour
	tiered := &booking.RefundPolicy{Tiers: []booking.RefundTier{
		{Before: 48 * h, Percent: 100}, {Before: 24 * h, Percent: 50}, {Before: 3 * h, Percent: 25},
	}}
	for _, tc := range []struct {
		name   string
		zone   string
		policy *booking.RefundPolicy // nil: the default (100% until 24 h, 50% until 2 h)
		ahead  time.Duration
		want   string
	}{
		{"more than the first tier's hours away", "Europe/Lisbon", tiered, 60 * h,
			"Full refund until 21:00 today, then 50% refund until Thu 21:00, then 25% refund until Fri 18:00, then no refund"},
		{"between tiers", "Europe/Lisbon", tiered, 30 * h,
			"50% refund until 15:00 today, then 25% refund until Thu 12:00, then no refund"},
		{"inside the last tier", "Europe/Lisbon", tiered, 10 * h,
			"25% refund until 16:00 today, then no refund"},
		{"after every tier", "Europe/Lisbon", tiered, 2 * h,
			"Non-refundable: the show starts in under 3 hours"},
		{"the same show times in Kolkata", "Asia/Kolkata", tiered, 60 * h,
			"Full refund until Thu 02:30, then 50% refund until Fri 02:30, then 25% refund until Fri 23:30, then no refund"},
		{"the default policy, 5.8 hours away", "Asia/Kolkata", nil, 5*h + 48*time.Minute,
			"50% refund until 18:18 today, then no refund"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := pgtest.InTheatre(t, e.Store, e.Venue, tc.zone, tc.policy)
			show := pgtest.NewShow(t, e.Store, v, 2, 2, now.Add(tc.ahead))
			b := e.PageUser(t)
			held := b.API().HoldOn(show, "refund-now", "A1")
			webtest.Want(t, held, http.StatusCreated)

			p := b.Get(t, fmt.Sprintf("/shows/%d", show))
			webtest.Want200(t, p)
			if !p.Has(`#checkout form[action$="/pay"]`) {
				t.Fatalf("no Pay form: %s", p.Text("#booking"))
			}
			if got := p.Text("#checkout [data-refund-now]"); got != tc.want {
				t.Fatalf("next to Pay:\n got %q\nwant %q", got, tc.want)
			}
			if got := p.Text("details[data-refund-policy] [data-refund-now]"); got != tc.want {
				t.Errorf("the show's heading:\n got %q\nwant %q", got, tc.want)
			}

			id := e.Pay(t, held).Str("booking_id")
			back := b.Get(t, "/checkout/return?hold_id="+held.Str("hold_id"))
			webtest.Want200(t, back)
			if got := back.Text("#payment-status [data-refund-now]"); got != tc.want {
				t.Errorf("the return page:\n got %q\nwant %q", got, tc.want)
			}
			list := b.Get(t, "/bookings")
			webtest.Want200(t, list)
			if got := list.Text("#booking-" + id + " [data-refund-now]"); got != tc.want {
				t.Errorf("My bookings:\n got %q\nwant %q", got, tc.want)
			}
			ticket := b.Get(t, "/bookings/"+id)
			webtest.Want200(t, ticket)
			if got := ticket.Text("[data-refund-now]"); got != tc.want {
				t.Errorf("the ticket:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
