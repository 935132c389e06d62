package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The hold object says what cancelling right after paying gives back, and
// the show's refund tiers still ahead; cancelling right after paying
// refunds exactly that.
func TestHoldRefundTerms(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	now := time.Date(2027, 3, 3, 9, 0, 0, 0, time.UTC) // a Wednesday
	e.Clock.Set(now)
	h := time.Hour
	tiered := &booking.RefundPolicy{Tiers: []booking.RefundTier{
		{Before: 48 * h, Percent: 100}, {Before: 24 * h, Percent: 50}, {Before: 3 * h, Percent: 25},
	}}
	noneBack := &booking.RefundPolicy{Tiers: []booking.RefundTier{{Before: 24 * h, Percent: 100}, {Before: 0, Percent: 0}}}
	type tier struct {
		before  time.Duration // the tier's deadline, this long before the show
		percent int
	}
	for _, tc := range []struct {
		name   string
		policy *booking.RefundPolicy // nil: the default (100% until 24 h, 50% until 2 h)
		ahead  time.Duration
		now    int
		tiers  []tier
	}{
		{"more than the first tier's hours away", tiered, 60 * h, 100, []tier{{48 * h, 100}, {24 * h, 50}, {3 * h, 25}}},
		{"between tiers", tiered, 30 * h, 50, []tier{{24 * h, 50}, {3 * h, 25}}},
		{"inside the last tier", tiered, 10 * h, 25, []tier{{3 * h, 25}}},
		{"after every tier", tiered, 2 * h, 0, nil},
		{"the default policy, 5.8 hours away", nil, 5*h + 48*time.Minute, 50, []tier{{2 * h, 50}}},
		{"a 0% tier: cancelling allowed, nothing back", noneBack, 10 * h, 0, []tier{{0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := pgtest.InTheatre(t, e.Store, e.Venue, "Europe/Lisbon", tc.policy)
			start := now.Add(tc.ahead)
			show := pgtest.NewShow(t, e.Store, v, 2, 2, start)
			c := e.User(t)
			created := c.HoldOn(show, "refund-terms", "A1")
			webtest.Want(t, created, http.StatusCreated)
			read := c.Get("/api/v1/holds/" + created.Str("hold_id"))
			webtest.Want(t, read, http.StatusOK)
			for what, r := range map[string]*webtest.Response{"the hold POST": created, "GET the hold": read} {
				if got := int(r.Num("refund_now_percent")); got != tc.now {
					t.Errorf("%s: refund_now_percent = %d, want %d", what, got, tc.now)
				}
				got, ok := r.JSON["refund_tiers"].([]any)
				if !ok || len(got) != len(tc.tiers) {
					t.Fatalf("%s: refund_tiers = %v, want %d tiers", what, r.JSON["refund_tiers"], len(tc.tiers))
				}
				for i, want := range tc.tiers {
					g := got[i].(map[string]any)
					until, err := time.Parse(time.RFC3339, fmt.Sprint(g["until"]))
					if err != nil || !until.Equal(start.Add(-want.before)) || int(g["percent"].(float64)) != want.percent {
						t.Errorf("%s: tier %d = %v, want until %s, %d%%", what, i, g, start.Add(-want.before).Format(time.RFC3339), want.percent)
					}
				}
			}

			if tc.name == "between tiers" {
				// Released, the hold object still carries the show's terms.
				other := e.User(t)
				held := other.HoldOn(show, "refund-terms-release", "B2")
				webtest.Want(t, held, http.StatusCreated)
				released := other.Delete("/api/v1/holds/" + held.Str("hold_id"))
				webtest.Want(t, released, http.StatusOK)
				if got, tiers := int(released.Num("refund_now_percent")), released.JSON["refund_tiers"].([]any); got != tc.now || len(tiers) != len(tc.tiers) {
					t.Errorf("the release answer: refund_now_percent %d, refund_tiers %v", got, tiers)
				}
			}

			booked := e.Pay(t, created)
			r := c.Post("/api/v1/bookings/"+booked.Str("booking_id")+"/cancel", nil)
			if tc.tiers == nil {
				webtest.WantError(t, r, http.StatusConflict, "cancellation_closed")
				return
			}
			webtest.Want(t, r, http.StatusOK)
			amount := int64(created.Num("amount_minor"))
			refund, _ := r.JSON["refund"].(map[string]any)
			if got, want := int64(refund["amount_minor"].(float64)), amount*int64(tc.now)/100; got != want {
				t.Fatalf("cancelling right after paying refunded %d of %d, want %d (refund_now_percent %d)", got, amount, want, tc.now)
			}
		})
	}
}
