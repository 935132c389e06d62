package pages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestBrowserPayments drives the ugly paths of paying in headless Chromium
// against the real server, its workers and Postgres: paying again after the
// back button (one checkout, one charge), a checkout whose hold runs out on
// the sandbox's page, a lost webhook reconciled to a booking and
// to a refund (the return page explaining meanwhile), refunded payments in
// My bookings, and cancelling a booking only while the refund policy
// allows it.
func TestBrowserPayments(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	logScreenshots(t)

	for _, vp := range []viewport{desktop, phone} {
		t.Run("PayAgainSameCheckout/"+vp.name, func(t *testing.T) {
			t.Parallel()
			payAgainSameCheckout(t, browser, vp)
		})
		t.Run("ExpiredCheckout/"+vp.name, func(t *testing.T) {
			t.Parallel()
			expiredCheckout(t, browser, vp)
		})
	}
	t.Run("DroppedWebhookBooked", func(t *testing.T) {
		t.Parallel()
		droppedWebhookBooked(t, browser)
	})
	t.Run("DroppedWebhookRefunded", func(t *testing.T) {
		t.Parallel()
		droppedWebhookRefunded(t, browser)
	})
	t.Run("CancelPolicy", func(t *testing.T) {
		t.Parallel()
		cancelPolicy(t, browser)
	})
}

// holdAndCheckout holds seat of show and presses Pay: the tab ends on
// Sandbox Pay's checkout page. It returns the hold's id.
func (tb *tab) holdAndCheckout(email string, show int64, seat string) string {
	tb.t.Helper()
	tb.openShow(show)
	tb.click("#seat-" + seat)
	tb.click("[data-hold-button]")
	tb.waitVisible("#checkout [data-countdown-display]")
	tb.click(`#checkout form[action$="/pay"] button[type=submit]`)
	tb.waitVisible("[data-merchant]")
	return scalar[string](tb.site, `SELECT h.id::text FROM holds h JOIN users u ON u.id = h.user_id WHERE u.email = $1 AND h.state = 'HELD'`, email)
}

// payDropped pays at the sandbox with the webhook dropped: the money is
// taken, the report lost.
func (tb *tab) payDropped() {
	tb.t.Helper()
	tb.click("#pay-form summary")
	tb.do("choose the drop behaviour", chromedp.SetValue(chromedp.ID("behaviour"), "drop"))
	tb.click("#pay-form button[type=submit]")
	tb.waitVisible("#payment-status")
}

// logIn signs in as email (made by signUp) in this tab.
func (tb *tab) logIn(email string) {
	tb.t.Helper()
	tb.open("/login")
	tb.typeInto("email", email)
	tb.typeInto("password", "correct horse battery")
	tb.click(`form[action="/login"] button[type=submit]`)
	tb.waitVisible(`header a[href="/bookings"]`)
}

// paymentState waits for the return page's status to be state.
func (tb *tab) paymentState(state string, within time.Duration) {
	tb.t.Helper()
	tb.waitForWithin("the payment status "+state, fmt.Sprintf(`(() => {
		const s = document.querySelector("#payment-status");
		return s && s.dataset.state === %s;
	})()`, jsString(state)), within)
}

// payAgainSameCheckout: Pay, the browser's Back, Pay again lands on the
// same checkout; paying it books the seat with one charge, and the checkout
// page left open in another tab (its script off, as a stale tab) refuses to
// take the money again: "Already paid — see your ticket".
func payAgainSameCheckout(t *testing.T, browser context.Context, vp viewport) {
	s := newSite(t, siteConfig{})
	show := s.newShow(5, 5)
	tb := s.openTab(t, browser, "pay-again-"+vp.name, vp)
	email := tb.signUp("Jaya " + vp.name)
	holdID := tb.holdAndCheckout(email, show, "D4")
	first := run(tb, "read the address", chromedp.Location())

	stale := s.openTab(t, browser, "pay-again-stale-"+vp.name, vp)
	run(stale, "turn the page's scripts off", func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	})
	stale.do("open the checkout", chromedp.Navigate(first))
	stale.waitVisible("#pay-form button[type=submit]")

	tb.do("go back to the show", chromedp.NavigateBack())
	tb.waitVisible(`#checkout form[action$="/pay"] button[type=submit]`)
	tb.click(`#checkout form[action$="/pay"] button[type=submit]`)
	tb.waitVisible("[data-merchant]")
	if again := run(tb, "read the address", chromedp.Location()); again != first {
		t.Fatalf("Pay again opened %s, want the open checkout %s", again, first)
	}
	tb.click("#pay-form button[type=submit]")
	tb.paymentState("booked", stepTimeout)
	tb.shot("pay-again-booked")

	stale.click("#pay-form button[type=submit]")
	stale.waitVisible(`[data-outcome="already_paid"]`)
	wantText(t, "the refusal", stale.Text(`[data-outcome="already_paid"]`), "Already paid — see your ticket", "Nothing more was charged")
	if got := stale.Attr("a[data-ticket-link]", "href"); got != s.url+"/checkout/return?hold_id="+holdID {
		t.Fatalf("the refusal leads to %q, want the return page", got)
	}
	stale.noSidewaysScroll("the already-paid checkout")
	stale.shot("sandbox-already-paid")
	run(stale, "turn the page's scripts on, for axe", func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
	})
	stale.axe("the already-paid checkout")

	if n := scalar[int64](s, `SELECT count(*) FROM sandbox_checkouts WHERE hold_id = $1`, holdID); n != 1 {
		t.Fatalf("%d checkouts of one hold, want 1", n)
	}
	if n := scalar[int64](s, `SELECT count(*) FROM sandbox_payments WHERE hold_id = $1 AND status = 'succeeded'`, holdID); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
	if n := scalar[int64](s, `SELECT count(*) FROM refunds`); n != 0 {
		t.Fatalf("%d refunds, want none", n)
	}
	if got := scalar[string](s, `SELECT string_agg(outcome, ',') FROM payments WHERE hold_id = $1`, holdID); got != "BOOKED" {
		t.Fatalf("payments = %s, want one BOOKED", got)
	}
	pgtest.CheckInvariants(t, s.Store)
}

// expiredCheckout: the sandbox page counts down the hold; at zero it says
// the time to pay has run out and leads back to the show; a page left open
// without its script (a stale tab) that presses Pay is refused, charging
// nothing. The seat is free once the hold's payment grace is over.
//
// The site's clock stands still until the test moves it past the hold's
// deadline: the page's countdown reaches zero in the browser's time (and
// the page loads again, still open, if that comes first), but the hold
// ends only when the test has everything it needs ready, however slow
// the machine.
func expiredCheckout(t *testing.T, browser context.Context, vp viewport) {
	const ttl = 5 * time.Second // the countdown's length in the browser
	const grace = 15 * time.Second
	s := newSite(t, siteConfig{holdTTL: ttl, paymentGrace: grace, clock: true})
	show := s.newShow(5, 5)
	tb := s.openTab(t, browser, "expired-"+vp.name, vp)
	email := tb.signUp("Farah " + vp.name)
	holdID := tb.holdAndCheckout(email, show, "C3")
	checkoutURL := run(tb, "read the address", chromedp.Location())

	left := tb.Text("[data-countdown-display]")
	if !countdownText.MatchString(left) || !strings.HasPrefix(left, "0:0") || left > "0:05" {
		t.Fatalf("the sandbox countdown shows %q, want at most 0:05", left)
	}
	tb.waitFor("the countdown to tick", fmt.Sprintf(`document.querySelector("[data-countdown-display]").textContent !== %s`, jsString(left)))
	if !eval[bool](tb, `!!document.querySelector('link[rel="icon"][href*="sandbox-favicon.svg"]')`) {
		t.Error("the sandbox page has no favicon of its own")
	}
	tb.noSidewaysScroll("the sandbox checkout with its countdown")
	tb.shot("sandbox-countdown")

	// The same page in a tab whose script never runs: it will press Pay late.
	stale := s.openTab(t, browser, "expired-stale-"+vp.name, vp)
	run(stale, "turn the page's scripts off", func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	})
	stale.do("open the checkout", chromedp.Navigate(checkoutURL))
	stale.waitVisible("#pay-form button[type=submit]")

	// The deadline passes. At zero the page refuses, by the sandbox's own word.
	s.clock.Advance(ttl)
	tb.waitForWithin("the page to refuse after the deadline", `!!document.querySelector('[data-outcome="expired"]')`, ttl+workTimeout)
	wantText(t, "the refusal", tb.Text(`[data-outcome="expired"]`), "The time to pay has run out", "Nothing was charged")
	if tb.Attr(`form[action$="/pay"] button`, "type") != "" {
		t.Fatal("the expired checkout still offers to pay")
	}
	tb.noSidewaysScroll("the expired checkout")
	tb.shot("sandbox-expired")

	stale.click("#pay-form button[type=submit]")
	stale.waitVisible(`[data-outcome="expired"]`)
	if n := scalar[int64](s, `SELECT count(*) FROM sandbox_payments`); n != 0 {
		t.Fatalf("%d payments taken after the hold expired", n)
	}
	if n := scalar[int64](s, `SELECT count(*) FROM payments`); n != 0 {
		t.Fatalf("%d payments recorded after the hold expired", n)
	}

	// Back to the show: during the grace a payment made in time would
	// have, it offers no Pay button and says a payment is being confirmed
	// (shown only while the grace lasts); after it, the seat is free again.
	tb.click("a[data-back-link]")
	tb.waitVisible(`#seatmap[data-ready="true"]`)
	if got := run(tb, "read the address", chromedp.Location()); got != s.url+fmt.Sprintf("/shows/%d", show) {
		t.Fatalf("the way back led to %s", got)
	}
	if !eval[bool](tb, `document.querySelector("#booking").textContent.includes("Waiting for your payment")`) {
		t.Fatal("the show page in the payment grace does not say it waits for the payment")
	}
	if eval[bool](tb, `!!document.querySelector('#booking form[action$="/pay"]')`) {
		t.Fatal("the show page offers to pay after the deadline")
	}
	tb.noSidewaysScroll("the show page in the payment grace")
	tb.shot("show-waiting-for-payment")
	tb.axe("the show page in the payment grace")

	s.clock.Advance(grace)
	s.eventually("the hold ended after its payment grace", `SELECT state <> 'HELD' FROM holds WHERE id = $1`, holdID)
	tb.open(fmt.Sprintf("/shows/%d", show))
	tb.waitVisible(`#seatmap[data-ready="true"]`)
	tb.wantSeat("C3", "available", "false")
	if got := scalar[string](s, `SELECT state FROM holds WHERE id = $1`, holdID); got == "HELD" || got == "CONFIRMED" {
		t.Fatalf("the hold is %s after it ran out", got)
	}
	pgtest.CheckInvariants(t, s.Store)
}

// droppedWebhookBooked: the webhook of a payment is lost while the hold
// lasts. The return page says it is confirming, explains once its
// patience is spent (the site's clock moved past it), then shows the
// ticket once reconciliation, which the test sets off only after it has
// read the explanation, has booked the seats.
func droppedWebhookBooked(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{clock: true, reconcileByHand: true})
	show := s.newShow(5, 5)
	tb := s.openTab(t, browser, "dropped-booked", desktop)
	email := tb.signUp("Gita Dropped")
	holdID := tb.holdAndCheckout(email, show, "B2")
	tb.payDropped()

	tb.paymentState("confirming", stepTimeout)
	s.clock.Advance(returnPagePatience)
	tb.paymentState("delayed", workTimeout)
	status := tb.Text("#payment-status")
	wantText(t, "the explanation", status, "taking longer than usual", "My bookings")
	if tb.Attr(`#payment-status a[href="/bookings"]`, "href") == "" {
		t.Fatal("the explanation has no link to My bookings")
	}
	if scalar[int64](s, `SELECT count(*) FROM payments`) != 0 {
		t.Fatal("something was recorded before reconciliation: the webhook was not lost")
	}
	tb.noSidewaysScroll("the return page's explanation")
	tb.shot("return-delayed")

	s.reconcile()
	tb.paymentState("booked", workTimeout)
	wantText(t, "the return page", tb.Text("#payment-status"), "Payment confirmed")
	tb.shot("return-reconciled-booked")
	tb.click("[data-booking-link]")
	tb.waitVisible("#ticket-code")
	if got := scalar[string](s, `SELECT b.payment_id FROM bookings b WHERE b.hold_id = $1`, holdID); got != scalar[string](s, `SELECT id FROM sandbox_payments WHERE hold_id = $1`, holdID) {
		t.Fatalf("the booking's evidence is %s, not the sandbox's payment", got)
	}
	if n := scalar[int64](s, `SELECT count(*) FROM sandbox_webhooks`); n != 0 {
		t.Fatalf("%d webhooks: the drop behaviour sent one", n)
	}
	pgtest.CheckInvariants(t, s.Store)
}

// returnPagePatience is how long the return page says "confirming" before it
// explains (web.Config.ReturnPatience's default).
const returnPagePatience = time.Minute

// droppedWebhookRefunded: the webhook of a payment is lost and the hold runs
// out, and its payment grace with it, before reconciliation asks. The
// payment is refunded; the return page and My bookings say so, on a phone
// and on a desktop. The site's clock moves past the page's patience, then
// past the hold, its grace and the wait before reconciliation asks.
func droppedWebhookRefunded(t *testing.T, browser context.Context) {
	const reconcileDelay = booking.DefaultHoldTTL + booking.DefaultPaymentGrace + time.Minute
	s := newSite(t, siteConfig{clock: true, reconcileDelay: reconcileDelay})
	show := s.newShow(5, 5)
	tb := s.openTab(t, browser, "dropped-refunded", phone)
	email := tb.signUp("Hari Refunded")
	tb.holdAndCheckout(email, show, "A4")
	tb.payDropped()

	tb.paymentState("confirming", stepTimeout)
	s.clock.Advance(returnPagePatience)
	tb.paymentState("delayed", workTimeout)
	tb.shot("return-delayed")
	if n := scalar[int64](s, `SELECT count(*) FROM payments`); n != 0 {
		t.Fatalf("%d payments recorded before reconciliation asked", n)
	}
	s.clock.Advance(reconcileDelay)
	tb.paymentState("refund_required", workTimeout)
	status := tb.Text("#payment-status")
	wantText(t, "the refund notice", status, "not booked", "expired", rupees(pgtest.Prices["STANDARD"]))
	tb.noSidewaysScroll("the return page's refund notice")
	tb.shot("return-reconciled-refund")

	// My bookings lists the payment, the refund, and how far along it is.
	tb.click(`header a[href="/bookings"]`)
	tb.waitVisible("[data-refunded-payment]")
	card := tb.Text("[data-refunded-payment]")
	wantText(t, "the refunded payment", card, "The Last Algorithm", "A4", rupees(pgtest.Prices["STANDARD"]), "expired")
	s.eventually("the refund paid back", `SELECT bool_and(status = 'SUCCEEDED') FROM refunds`)
	tb.open("/bookings")
	tb.waitVisible(`[data-refunded-payment] [data-refund-status="refunded"]`)
	wantText(t, "the refunded payment", tb.Text("[data-refunded-payment]"), "paid to your original payment method")
	tb.noSidewaysScroll("My bookings with a refunded payment")
	tb.shot("my-bookings-refunded")

	wide := s.openTab(t, browser, "dropped-refunded-desktop", desktop)
	wide.logIn(email)
	wide.open("/bookings")
	wide.waitVisible(`[data-refunded-payment] [data-refund-status="refunded"]`)
	wide.shot("my-bookings-refunded")
	pgtest.CheckInvariants(t, s.Store)
}

// cancelPolicy: My bookings offers Cancel only while the refund policy
// allows it, the preview says what comes back from now on, and a cancelled
// Booking leaves Upcoming at once.
func cancelPolicy(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{})
	venue := pgtest.NewVenue(t, s.Store) // the default policy: 100% from 24 h, 50% from 2 h
	soon := pgtest.NewShow(t, s.Store, venue, 3, 3, time.Now().Add(time.Hour))
	later := pgtest.NewShow(t, s.Store, venue, 3, 3, time.Now().Add(10*time.Hour))
	tb := s.openTab(t, browser, "cancel-policy", desktop)
	email := tb.signUp("Ira Cancels")
	user := scalar[string](s, `SELECT id::text FROM users WHERE email = $1`, email)
	book := func(show int64, seat string) string {
		t.Helper()
		ctx := context.Background()
		res, err := s.Store.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: []string{seat}, TTL: time.Minute, Key: seat}, webtest.MaxSeats)
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Store.ConfirmPayment(ctx, booking.Payment{ID: "pay_" + seat, HoldRef: res.Hold.ID, AmountMinor: res.Hold.AmountMinor, Currency: res.Hold.Currency})
		if err != nil || c.Outcome != booking.OutcomeBooked {
			t.Fatalf("book %s = %+v, %v", seat, c, err)
		}
		return c.BookingID
	}
	closed, open := book(soon, "A1"), book(later, "B2")

	tb.open("/bookings")
	closedCard, openCard := "#booking-"+closed, "#booking-"+open
	tb.waitVisible(closedCard)
	if eval[bool](tb, fmt.Sprintf(`!!document.querySelector(%s)`, jsString(closedCard+` a[href$="/cancel"]`))) {
		t.Fatal("Cancel booking is offered for a show an hour away: the policy no longer allows it")
	}
	wantText(t, "the closed booking", tb.Text(closedCard+" [data-refund-now]"), "Non-refundable: the show starts in under 2 hours")
	wantText(t, "the closed booking", tb.Text(closedCard+" [data-cancel-closed]"), "can no longer be cancelled")
	tb.shot("my-bookings-cancel-closed")

	tb.do("mark the page, to tell a reload", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	tb.click(openCard + ` a[hx-get$="/cancel"]`)
	tb.waitVisible(openCard + " [data-cancel-preview]")
	wantText(t, "the preview's tier", tb.Text(openCard+" [data-refund-tier]"), "50% refund until ", ", then no refund")
	wantText(t, "the preview", tb.Text(openCard+" [data-cancel-preview]"), "refunds "+rupees(pgtest.Prices["STANDARD"]/2))
	tb.shot("cancel-preview-tier")
	tb.click(openCard + " [data-cancel-preview] button[type=submit]")
	tb.waitFor("the booking to move to Past and cancelled", fmt.Sprintf(`(() => {
		const past = document.querySelector('[data-section="past"] %s');
		return past && past.textContent.includes("Cancelled") && !document.querySelector('[data-section="upcoming"] %s');
	})()`, openCard, openCard))
	if !eval[bool](tb, `window.notReloaded === true`) {
		t.Fatal("the page was reloaded to move the cancelled booking")
	}
	wantText(t, "the notice", tb.Text("[data-bookings-notice]"), "Booking cancelled", "The Last Algorithm")
	if n := eval[int](tb, `document.querySelectorAll('[data-section="upcoming"] li[id^="booking-"]').length`); n != 1 {
		t.Fatalf("%d bookings under Upcoming after cancelling one of two", n)
	}
	tb.shot("cancelled-moved")
	if got := scalar[string](s, `SELECT status FROM bookings WHERE id = $1`, open); got != "CANCELLED" {
		t.Fatalf("booking is %s", got)
	}
	pgtest.CheckInvariants(t, s.Store)
}
