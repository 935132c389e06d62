package pages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// backAndRefresh: picks survive a refresh; Back from the payment page shows
// the live hold, never a cached page; Release clears the selection and
// says so where the focus lands; a form's old key never refuses new seats.
func backAndRefresh(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{})
	show := s.newShow(10, 10)
	tb := s.openTab(t, browser, "back", desktop)
	email := tb.signUp("Ira Back")
	tb.openShow(show)

	tb.click("#seat-D5")
	tb.click("#seat-D6")
	tb.do("reload", chromedp.Reload())
	tb.waitVisible(`#seatmap[data-ready="true"]`)
	tb.wantSeat("D5", "available", "true")
	tb.wantSeat("D6", "available", "true")
	wantText(t, "summary after a refresh", tb.Text("[data-selection-summary]"), "2 seats: D5, D6")
	wantText(t, "hold button", tb.Text("[data-hold-button]"), "Hold 2 seats")
	// Picked in this tab, taken by someone else before the next refresh:
	// the page names it rather than dropping it without a word.
	s.holdElsewhere(show, "before-refresh", "D6")
	tb.do("reload", chromedp.Reload())
	tb.waitVisible(`#seatmap[data-ready="true"]`)
	tb.wantSeat("D5", "available", "true")
	tb.wantSeat("D6", "held", "")
	wantText(t, "taken notice after a refresh", tb.Text("[data-taken-notice]"), "Seat D6 was just taken by someone else")
	wantText(t, "summary after a refresh", tb.Text("[data-selection-summary]"), "1 seat: D5")
	tb.click("#seat-D7")
	firstKey := tb.Attr(`[data-hold-form] input[name="key"]`, "value")

	tb.click("[data-hold-button]")
	tb.waitVisible("#checkout [data-countdown-display]")
	tb.click(`#checkout form[action$="/pay"] button[type=submit]`)
	tb.waitFor("Sandbox Pay", `location.pathname.startsWith("/sandbox/")`)
	tb.do("go back", chromedp.NavigateBack())
	tb.waitVisible("#checkout [data-countdown-display]")
	tb.waitFor("the page's script to run again", `!!document.querySelector('[data-countdown][data-ready="true"]')`)
	wantText(t, "the show page after Back", tb.Text("#checkout"), "Your seats are held", "Pay ₹500", "Release seats")
	tb.wantSeat("D5", "mine", "")
	tb.wantSeat("D7", "mine", "")
	first := tb.Text("[data-countdown-display]")
	tb.waitFor("the countdown to tick after Back", fmt.Sprintf(`document.querySelector("[data-countdown-display]").textContent !== %s`, jsString(first)))
	tb.shot("back-from-payment")

	tb.click(`#checkout form[action$="/release"] button`)
	tb.waitFor("the release notice", `(() => { const n = document.querySelector("[data-notice]"); return n && n.textContent.includes("Seats released"); })()`)
	tb.waitFor("the focus on the notice", `document.activeElement && document.activeElement.matches("[data-notice]")`)
	if n := eval[int](tb, `document.querySelectorAll('#seatmap button.seat[aria-pressed="true"]').length`); n != 0 {
		t.Fatalf("after Release %d seats are still picked", n)
	}
	wantText(t, "summary after Release", tb.Text("[data-selection-summary]"), "No seats selected yet.")

	// The form comes back with the first form's key, as a page restored
	// from the browser's cache would: a new pick must still hold, alone.
	eval[bool](tb, fmt.Sprintf(`(document.querySelector('[data-hold-form] input[name="key"]').value = %s, true)`, jsString(firstKey)))
	tb.click("#seat-B2")
	tb.click("[data-hold-button]")
	tb.waitVisible("#checkout")
	if got := tb.Text("#booking"); strings.Contains(got, "Idempotency") || strings.Contains(got, "key") {
		t.Fatalf("developer wording on the page: %s", got)
	}
	got := s.heldSeats(email)
	if got != "B2" {
		t.Fatalf("the hold after Release is of %q, want B2 alone", got)
	}
	pgtest.CheckInvariants(t, s.Store)
}

// stolenPick: someone else holds a seat the shopper picked; the page says
// so where the shopper looks, names it, and Hold then asks for the rest only
// as the shopper can see.
func stolenPick(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{live: true})
	show := s.newShow(10, 10)
	tb := s.openTab(t, browser, "stolen", phone)
	email := tb.signUp("Jaya Stolen")
	tb.openShow(show)
	tb.waitFor("the live connection", `document.querySelector("[data-live-status]").dataset.liveStatus === "live"`)
	tb.click("#seat-D5")
	tb.click("#seat-D6")
	s.holdElsewhere(show, "thief", "D5")
	tb.waitFor("the visible notice", `(() => {
		const n = document.querySelector("[data-taken-notice]");
		return n && !n.hidden && n.getBoundingClientRect().height > 0 && n.textContent.includes("D5");
	})()`)
	wantText(t, "taken notice", tb.Text("[data-taken-notice]"), "Seat D5 was just taken by someone else", "D6")
	tb.wantSeat("D5", "held", "")
	wantText(t, "summary", tb.Text("[data-selection-summary]"), "1 seat: D6")
	wantText(t, "hold button", tb.Text("[data-hold-button]"), "Hold 1 seat")
	if n := eval[[]float64](tb, `(() => { const r = document.querySelector("[data-taken-notice]").getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; })()`); n[0] < 0 || n[1] > n[2] {
		t.Errorf("the taken notice is off screen (top %v, bottom %v, viewport %v)", n[0], n[1], n[2])
	}
	tb.shot("pick-taken")
	tb.click("[data-hold-button]")
	tb.waitVisible("#checkout")
	got := s.heldSeats(email)
	if got != "D6" {
		t.Fatalf("held %q, want D6", got)
	}
	pgtest.CheckInvariants(t, s.Store)
}

// phoneMap: a hall wider than a phone opens as an overview that fits, with
// the legend and the summary in sight; a tap zooms into that part at full
// size, the next tap picks; Zoom out goes back, the pick kept.
func phoneMap(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{})
	show := s.newShow(15, 24)
	tb := s.openTab(t, browser, "phone-map", phone)
	tb.signUp("Kabir Phone")
	tb.openShow(show)
	if z := tb.Attr("#seatmap", "data-zoom"); z != "overview" {
		t.Fatalf("a 24-seat-wide hall on a phone opens with data-zoom=%q, want overview", z)
	}
	tb.noSidewaysScroll("the overview")
	inView := func(sel string) bool {
		return eval[bool](tb, fmt.Sprintf(`(() => { const r = document.querySelector(%s).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight && r.height > 0; })()`, jsString(sel)))
	}
	if !inView(`[aria-label="Prices"]`) {
		t.Error("the legend's prices are not on screen when the page opens")
	}
	if !inView(`[data-selection-summary]`) {
		t.Error("the selection summary is not on screen")
	}
	tb.shot("overview")

	width := func(id string) float64 {
		return eval[float64](tb, fmt.Sprintf(`document.querySelector("#seat-%s").getBoundingClientRect().width`, id))
	}
	if w := width("H12"); w >= 24 {
		t.Fatalf("overview seats are %.0f px wide: this hall would fit without an overview", w)
	}
	tb.click("#seat-H12")
	tb.waitFor("the zoom", `document.querySelector("#seatmap").dataset.zoom === "in"`)
	tb.wantSeat("H12", "available", "false") // the tap zoomed, it did not pick
	if w := width("H12"); w < 32 {
		t.Fatalf("zoomed in, seats are %.0f px wide, want at least 32", w)
	}
	tb.click("#seat-H12")
	tb.wantSeat("H12", "available", "true")
	if !inView(`[data-selection-summary]`) {
		t.Error("zoomed in, the selection summary is not on screen")
	}
	wantText(t, "summary", tb.Text("[data-selection-summary]"), "1 seat: H12")
	tb.noSidewaysScroll("the zoomed map")
	tb.shot("zoomed-in")
	tb.click("[data-zoom-out]")
	tb.waitFor("the overview again", `document.querySelector("#seatmap").dataset.zoom === "overview"`)
	tb.wantSeat("H12", "available", "true")

	// By keyboard: tabbing into the overview shows the seats at full size.
	for i := 0; i < 40 && !strings.HasPrefix(tb.focused(), "seat-"); i++ {
		tb.press(kb.Tab)
	}
	if got := tb.focused(); got != "seat-H12" {
		t.Fatalf("tabbing into the map focuses %q, want the picked seat-H12", got)
	}
	tb.waitFor("the zoom on keyboard focus", `document.querySelector("#seatmap").dataset.zoom === "in"`)
	tb.press(kb.ArrowRight)
	if got := tb.focused(); got != "seat-H13" {
		t.Fatalf("ArrowRight from H12 focuses %q, want seat-H13", got)
	}
}
