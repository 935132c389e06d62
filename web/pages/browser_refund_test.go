package pages_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestBrowserRefundNow: in Chromium, on a desktop and a phone, the hold
// panel says what cancelling right after paying gives back just above Pay,
// in the theatre's time, whole and inside the panel.
func TestBrowserRefundNow(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{})
	h := time.Hour
	venue := pgtest.InTheatre(t, s.Store, pgtest.NewVenue(t, s.Store), "Europe/Lisbon", &booking.RefundPolicy{Tiers: []booking.RefundTier{
		{Before: 48 * h, Percent: 100}, {Before: 24 * h, Percent: 50}, {Before: 3 * h, Percent: 25},
	}})
	// Between the 48- and 24-hour deadlines: the longest text a hold panel
	// shows under this policy has two tiers still ahead.
	show := pgtest.NewShow(t, s.Store, venue, 4, 6, time.Now().Add(30*h))

	for i, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			tb := s.openTab(t, browser, "refund-now-"+vp.name, vp)
			tb.signUp("Rui " + vp.name)
			tb.openShow(show)
			tb.pick(fmt.Sprintf("B%d", i+2))
			tb.click("[data-hold-button]")
			tb.waitVisible("#checkout [data-refund-now]")
			wantText(t, "the refund terms next to Pay", tb.Text("#checkout [data-refund-now]"),
				"50% refund until ", ", then 25% refund until ", ", then no refund")
			wantText(t, "their heading", tb.Text("#checkout [data-refund-policy]"), "If you cancel after paying")

			// The terms sit right above Pay, inside the panel, and no
			// word of them spills out of their box.
			box := `(() => {
				const terms = document.querySelector("#checkout [data-refund-policy]").getBoundingClientRect();
				const pay = document.querySelector('#checkout form[action$="/pay"] button').getBoundingClientRect();
				const panel = document.querySelector("#checkout").getBoundingClientRect();
				const text = document.querySelector("#checkout [data-refund-now]");
				return [pay.top - terms.bottom, terms.left - panel.left, panel.right - terms.right, text.scrollWidth - text.clientWidth, terms.width];
			})()`
			got := eval[[]float64](tb, box)
			if gap := got[0]; gap < 0 || gap > 32 {
				t.Errorf("%.0f px between the refund terms and Pay, want them right above it", gap)
			}
			if got[1] < 0 || got[2] < 0 || got[3] > 0 {
				t.Errorf("the refund terms leave the panel or their box: %v", got)
			}
			tb.noSidewaysScroll("the show page with a hold")
			tb.shot("hold-panel")
		})
	}
}
