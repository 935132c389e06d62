package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestCancelledShowInBrowser: the page of a show the theatre cancelled,
// opened by a moviegoer (from a link in an e-mail, a bookmark), says that
// the show was cancelled and that those who booked were refunded, and
// offers nothing to buy: no seat map, no seat counts, no hold button. Its
// seat map alone is refused too.
func TestCancelledShowInBrowser(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{live: true})
	show := s.newShow(6, 8)
	// Its page seen once on sale: the seat map of this instance is warm.
	mg := s.openTab(t, browser, "cancelled-desktop", desktop)
	mg.openShow(show)
	if _, err := s.Store.CancelShow(context.Background(), show, audit.Entry{
		ActorID: pgtest.User(t, s.Store), Action: "show.cancel", Object: fmt.Sprintf("show %d", show),
	}); err != nil {
		t.Fatal(err)
	}
	for _, tb := range []*tab{mg, s.openTab(t, browser, "cancelled-phone", phone)} {
		// The page's facts are kept a moment (showInfoTTL): ask until they
		// say it.
		tb.open(fmt.Sprintf("/shows/%d", show))
		tb.waitForWithin("the page to say the show was cancelled", fmt.Sprintf(`fetch("/shows/%d").then(r => r.text()).then(t => t.includes("cancelled by the theatre"))`, show), workTimeout)
		tb.open(fmt.Sprintf("/shows/%d", show))
		tb.waitVisible("main h1")
		if got := tb.Text("main h1 [data-show-status]"); !strings.EqualFold(got, "cancelled") {
			t.Errorf("%s: the heading's status says %q, want Cancelled", tb.name, got)
		}
		wantText(t, tb.name+" notice", tb.Text("#booking [data-notice]"), "This show was cancelled by the theatre", "refunded in full")
		main := tb.Text("main")
		for _, offer := range []string{"Available", "Hold seats", "Log in to hold", "Find the best seats", "Cancellation policy"} {
			if strings.Contains(main, offer) {
				t.Errorf("%s: the cancelled show's page says %q: %q", tb.name, offer, main)
			}
		}
		if eval[bool](tb, `!!document.querySelector("#seatmap, [data-hold-form], [data-best-form], [ws-connect]")`) {
			t.Errorf("%s: the cancelled show's page has a seat map, a form to hold seats or a live connection", tb.name)
		}
		if href := tb.Attr("#booking [data-notice] a", "href"); !strings.HasPrefix(href, "/movies/") {
			t.Errorf("%s: the notice links to %q, want the movie's other showtimes", tb.name, href)
		}
		tb.look("cancelled show")
	}
	status := run(mg, "fetch the seat map", chromedp.Evaluate[int](fmt.Sprintf(`fetch("/shows/%d/seatmap").then(r => r.status)`, show), chromedp.EvalAwaitPromise))
	if status != http.StatusConflict {
		t.Errorf("the cancelled show's seat map answers %d, want %d", status, http.StatusConflict)
	}
}
