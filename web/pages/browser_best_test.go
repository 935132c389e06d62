package pages_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserBestSeats drives best available in headless Chromium against
// the real server, its workers and Postgres, on a desktop and on a phone:
// a moviegoer asks for the 3 best seats by keyboard, sees them held on the
// map with the price and the countdown, chooses other seats, asks again for
// 2 premium ones and pays; axe-core finds nothing wrong with the form or
// the held seats. And the form without JavaScript: a plain post.
func TestBrowserBestSeats(t *testing.T) {
	t.Parallel()
	axeSource(t) // before any work: without axe-core the test cannot judge
	browser := startChromium(t)
	logScreenshots(t)
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			bestSeats(t, browser, vp)
		})
	}
	t.Run("NoScript", func(t *testing.T) {
		t.Parallel()
		bestSeatsWithoutScript(t, browser)
	})
}

// heldBy is the seats of email's live hold, in text order, comma-separated;
// "" for none.
func (s *site) heldBy(email string) string {
	s.t.Helper()
	return scalar[string](s, `SELECT coalesce((SELECT array_to_string(h.seat_ids, ',') FROM holds h JOIN users u ON u.id = h.user_id
		WHERE u.email = $1 AND h.state = 'HELD'), '')`, email)
}

// heldNow waits for the checkout panel of a hold of want (its seats, in
// text order) and checks the map shows them as the viewer's.
func (tb *tab) heldNow(email, want string) {
	tb.t.Helper()
	tb.waitVisible("#checkout [data-countdown-display]")
	if got := tb.site.heldBy(email); got != want {
		tb.t.Fatalf("%s: held %q, want %q", tb.name, got, want)
	}
	mine := eval[string](tb, `[...document.querySelectorAll('#seatmap button.seat[data-status="mine"]')].map(b => b.dataset.seat).sort().join(",")`)
	if mine != want {
		tb.t.Fatalf("%s: the map shows %q as the viewer's, want %q", tb.name, mine, want)
	}
}

func bestSeats(t *testing.T, browser context.Context, vp viewport) {
	s := newSite(t, siteConfig{live: true})
	show := s.newShow(10, 10)
	tb := s.openTab(t, browser, "best-"+vp.name, vp)
	email := tb.signUp("Noor " + vp.name)
	tb.openShow(show)
	tb.look("the show page with its best seats form")

	// By keyboard: the count, then Tab to Find best seats and Enter.
	tb.do("focus the count", chromedp.Focus(chromedp.ID("best-count")))
	tb.setValue("best-count", "3")
	tb.tabUntil("Find best seats", `document.activeElement.matches("[data-best-button]")`, false)
	tb.press(kb.Enter)
	tb.heldNow(email, "G4,G5,G6")
	wantText(t, "the notice", tb.Text("[data-notice]"), "We found you 3 seats together in row G.")
	if !eval[bool](tb, `document.activeElement && document.activeElement.matches("[data-notice]")`) {
		t.Fatalf("after the hold the focus is on %s, want the notice saying where the seats are",
			eval[string](tb, `document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : "nothing"`))
	}
	wantText(t, "the checkout panel", tb.Text("#checkout"), "G4", "G5", "G6", "₹750", "Pay ₹750", "Choose other seats")
	first := tb.Text("[data-countdown-display]")
	if !countdownText.MatchString(first) || (first[0] != '4' && first[0] != '5') {
		t.Fatalf("countdown shows %q, want about 5:00", first)
	}
	tb.waitFor("the countdown to tick", fmt.Sprintf(`document.querySelector("[data-countdown-display]").textContent !== %s`, jsString(first)))
	tb.look("the best seats held")

	// Choose other seats: released, back to picking.
	tb.click(`#checkout form[hx-post$="/release"] button[type=submit]`)
	tb.waitVisible(`form[data-best-form]`)
	if got := s.heldBy(email); got != "" {
		t.Fatalf("after Choose other seats %q are still held", got)
	}
	tb.waitFor("G5 free on the map", `document.querySelector("#seat-G5").dataset.status === "available"`)
	wantText(t, "the notice", tb.Text("[data-notice]"), "Seats released")

	// Again: 2 premium seats, then pay.
	tb.setValue("best-count", "2")
	tb.setValue("best-type", "PREMIUM")
	tb.click("[data-best-button]")
	tb.heldNow(email, "J5,J6")
	wantText(t, "the checkout panel", tb.Text("#checkout"), "Premium", "Pay ₹900")
	tb.noSidewaysScroll("the premium seats held")
	tb.shot("premium-held")
	tb.click(`#checkout form[action$="/pay"] button[type=submit]`)
	tb.waitVisible("[data-merchant]")
	if got := tb.Text("[data-amount]"); got != "₹900" {
		t.Fatalf("sandbox checkout amount = %q, want ₹900", got)
	}
	tb.click(`#pay-form button[type=submit]`)
	tb.paymentState("booked", stepTimeout)
	wantText(t, "the return page", tb.Text("#payment-status"), "Payment confirmed")
	if got := scalar[string](s, `SELECT array_to_string(b.seat_ids, ',') FROM bookings b JOIN users u ON u.id = b.user_id
		WHERE u.email = $1 AND b.status = 'CONFIRMED'`, email); got != "J5,J6" {
		t.Fatalf("booked %q, want J5,J6", got)
	}
	tb.shot("booked")
}

// bestSeatsWithoutScript asks for the best seats with the page's scripts
// off: the form posts, the page that comes back shows them held.
func bestSeatsWithoutScript(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{})
	show := s.newShow(10, 10)
	tb := s.openTab(t, browser, "best-noscript", desktop)
	email := tb.signUp("Ravi")
	run(tb, "turn the page's scripts off", func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	})
	tb.open(fmt.Sprintf("/shows/%d", show))
	tb.waitVisible("[data-best-button]")
	tb.setValue("best-count", "4")
	tb.click("[data-best-button]")
	tb.waitVisible("#checkout")
	if got := s.heldBy(email); got != "G4,G5,G6,G7" {
		t.Fatalf("held %q, want G4 to G7", got)
	}
	wantText(t, "the page", tb.Text("#booking"), "We found you 4 seats together in row G.", "Pay ₹1,000", "Choose other seats")
	// A screenshot waits for the page's next frames by script: scripts on
	// again (the page's own ran not, and will not).
	run(tb, "turn scripts on for the screenshot", func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
	})
	tb.shot("held-without-script")
	run(tb, "turn the page's scripts off again", func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	})
	tb.click(`#checkout form[action$="/release"] button[type=submit]`)
	tb.waitVisible(`form[data-best-form]`)
	if got := s.heldBy(email); got != "" {
		t.Fatalf("after Choose other seats %q are still held", got)
	}
}
