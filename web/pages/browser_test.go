package pages_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestBrowser drives the moviegoer's pages in headless Chromium against the
// real server and Postgres: a purchase end to end on a phone and on a
// desktop, a hold that runs out in the browser, two users after one seat,
// the seat map by keyboard and screen reader, and two browsers watching
// one seat change live. Screenshots of the key
// Pages go to the folder logged as "screenshots:".
func TestBrowser(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	logScreenshots(t)

	t.Run("Purchase", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, siteConfig{demo: true})
		// Two users buying at once: each browses to a show on its own day,
		// so they never compete for seats.
		t.Run("phone", func(t *testing.T) {
			t.Parallel()
			purchase(t, browser, s, phone, viaMovie)
		})
		t.Run("desktop", func(t *testing.T) {
			t.Parallel()
			purchase(t, browser, s, desktop, viaTheatre)
		})
	})
	t.Run("HoldExpiry", func(t *testing.T) {
		t.Parallel()
		holdExpiry(t, browser)
	})
	t.Run("SeatConflict", func(t *testing.T) {
		t.Parallel()
		seatConflict(t, browser)
	})
	t.Run("Keyboard", func(t *testing.T) {
		t.Parallel()
		keyboard(t, browser)
	})
	t.Run("LiveSeatMap", func(t *testing.T) {
		t.Parallel()
		liveSeatMap(t, browser)
	})
	t.Run("BackAndRefresh", func(t *testing.T) {
		t.Parallel()
		backAndRefresh(t, browser)
	})
	t.Run("StolenPick", func(t *testing.T) {
		t.Parallel()
		stolenPick(t, browser)
	})
	t.Run("PhoneMap", func(t *testing.T) {
		t.Parallel()
		phoneMap(t, browser)
	})
}

type route int

const (
	viaMovie   route = iota // city -> a day -> a movie -> a showtime
	viaTheatre              // city -> a theatre -> a day -> a showtime
)

// browseToShow goes from the home page to a show at least three days ahead
// (the demo's refund policies give a full refund then), by clicking.
func (tb *tab) browseToShow(r route) {
	t := tb.t
	t.Helper()
	tb.open("/")
	tb.waitVisible(`a[href="/cities/bengaluru"]`)
	tb.noSidewaysScroll("the home page")
	tb.shot("home")
	tb.click(`a[href="/cities/bengaluru"]`)
	tb.waitFor("the city page", `document.querySelector("h1") && document.querySelector("h1").textContent.includes("Movies in Bengaluru")`)
	tb.noSidewaysScroll("the city page")
	tb.shot("city")

	// dayLink is the href of the n-th day of the date strip that has shows.
	dayLink := func(n int) string {
		href := eval[string](tb, fmt.Sprintf(`(() => {
			const days = [...document.querySelectorAll('nav[aria-label="Choose a day"] a')];
			return days.length > %d ? days[%d].getAttribute("href") : "";
		})()`, n, n))
		if href == "" {
			t.Fatalf("%s: the date strip has no %d-th day with shows", tb.name, n+1)
		}
		return href
	}
	switch r {
	case viaMovie:
		day := dayLink(3)
		tb.click(fmt.Sprintf(`nav[aria-label="Choose a day"] a[href=%s]`, jsString(day)))
		tb.waitFor("the chosen day", fmt.Sprintf(`location.pathname + location.search === %s && !!document.querySelector('[aria-current="date"]')`, jsString(day)))
		tb.click(`section[aria-labelledby="movies-title"] li a.btn-primary`)
		tb.waitVisible(`section[aria-labelledby="showtimes-title"] a.chip`)
		tb.noSidewaysScroll("the movie page")
		tb.shot("movie")
		tb.click(`section[aria-labelledby="showtimes-title"] a.chip`)
	case viaTheatre:
		tb.click(`section[aria-labelledby="theatres-title"] li a`)
		tb.waitVisible(`section[aria-labelledby="shows-title"]`)
		day := dayLink(4)
		tb.click(fmt.Sprintf(`nav[aria-label="Choose a day"] a[href=%s]`, jsString(day)))
		tb.waitFor("the chosen day", fmt.Sprintf(`location.pathname + location.search === %s && !!document.querySelector('section[aria-labelledby="shows-title"] a.chip')`, jsString(day)))
		tb.noSidewaysScroll("the theatre page")
		tb.shot("theatre")
		tb.click(`section[aria-labelledby="shows-title"] a.chip`)
	}
	tb.waitVisible(`#seatmap[data-ready="true"]`)
}

// seatState is what the page says about one seat.
func (tb *tab) seatState(id string) (status, pressed string) {
	tb.t.Helper()
	sel := "#seat-" + id
	return tb.Attr(sel, "data-status"), tb.Attr(sel, "aria-pressed")
}

func (tb *tab) wantSeat(id, status, pressed string) {
	tb.t.Helper()
	if s, p := tb.seatState(id); s != status || p != pressed {
		tb.t.Fatalf("%s: seat %s has data-status=%q aria-pressed=%q, want %q and %q", tb.name, id, s, p, status, pressed)
	}
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

var countdownText = regexp.MustCompile(`^\d+:\d\d$`)

// purchase buys two seats and cancels them again, in one viewport.
func purchase(t *testing.T, browser context.Context, s *site, vp viewport, r route) {
	began := time.Now()
	tb := s.openTab(t, browser, "purchase-"+vp.name, vp)
	email := tb.signUp("Asha " + vp.name)
	tb.browseToShow(r)
	movie := tb.Text("h1")
	tb.noSidewaysScroll("the show page")
	if vp == desktop {
		tb.checkSeatNames() // the demo hall: four categories, aisles, gaps
	}

	// Two seats side by side, near the middle of the hall.
	seats := eval[[]string](tb, `(() => {
		const rows = [...document.querySelectorAll('#seatmap [role=group][aria-label^="Row "]')];
		const order = rows.slice(Math.floor(rows.length / 2)).concat(rows.slice(0, Math.floor(rows.length / 2)));
		for (const row of order) {
			const free = [...row.querySelectorAll('button.seat[data-status="available"]')];
			for (let i = Math.floor(free.length / 2) - 1; i >= 0 && i + 1 < free.length; i++) {
				if (Number(free[i + 1].dataset.c) === Number(free[i].dataset.c) + 1) return [free[i].dataset.seat, free[i + 1].dataset.seat];
			}
		}
		return [];
	})()`)
	if len(seats) != 2 {
		t.Fatalf("no two free seats side by side on the show page")
	}
	for _, id := range seats {
		tb.wantSeat(id, "available", "false")
		tb.pick(id)
		tb.wantSeat(id, "available", "true") // picked, nothing reserved yet
	}
	price := eval[int64](tb, fmt.Sprintf(`Number(document.querySelector("#seat-%s").dataset.price) + Number(document.querySelector("#seat-%s").dataset.price)`, seats[0], seats[1]))
	total := rupees(price)
	wantText(t, "selection summary", tb.Text("[data-selection-summary]"), "2 seats: "+seats[0]+", "+seats[1])
	if got := tb.Text("[data-selection-total]"); got != total {
		t.Fatalf("running total = %q, want %q", got, total)
	}
	if scalar[int64](s, `SELECT count(*) FROM holds h JOIN users u ON u.id = h.user_id WHERE u.email = $1`, email) != 0 {
		t.Fatal("picking seats made a hold: selection must stay local until Hold")
	}
	tb.shot("show-selected")

	// Hold: the checkout panel, the seats now ours, a countdown that runs.
	tb.click("[data-hold-button]")
	tb.waitVisible("#checkout [data-countdown-display]")
	for _, id := range seats {
		if st, _ := tb.seatState(id); st != "mine" {
			t.Fatalf("held seat %s has data-status=%q, want mine", id, st)
		}
	}
	wantText(t, "checkout panel", tb.Text("#checkout"), seats[0], seats[1], "Pay "+total)
	first := tb.Text("[data-countdown-display]")
	if !countdownText.MatchString(first) || (first[0] != '4' && first[0] != '5') {
		t.Fatalf("countdown shows %q, want about 5:00", first)
	}
	tb.waitFor("the countdown to tick", fmt.Sprintf(`document.querySelector("[data-countdown-display]").textContent !== %s`, jsString(first)))
	holdID := scalar[string](s, `SELECT h.id::text FROM holds h JOIN users u ON u.id = h.user_id WHERE u.email = $1 AND h.state = 'HELD'`, email)
	tb.shot("checkout-panel")

	// Pay: off to Sandbox Pay, which shows the hold and the amount.
	tb.click(`#checkout form[action$="/pay"] button[type=submit]`)
	tb.waitVisible("[data-merchant]")
	if got := tb.Text("[data-amount]"); got != total {
		t.Fatalf("sandbox checkout amount = %q, want %q", got, total)
	}
	if got := tb.Text("[data-hold]"); got != holdID {
		t.Fatalf("sandbox checkout reference = %q, want the hold %s", got, holdID)
	}
	tb.noSidewaysScroll("the sandbox checkout")
	tb.shot("sandbox-checkout")
	tb.click(`#pay-form button[type=submit]`)

	// The return page: confirming, then the ticket link once the webhook
	// (sent by the sandbox's worker) has booked the seats.
	tb.waitVisible("#payment-status")
	if state := tb.Attr("#payment-status", "data-state"); state != "booked" {
		tb.shot("return-" + state)
		tb.waitFor("the booking to be confirmed", `!!document.querySelector('#payment-status[data-state="booked"] [data-booking-link]')`)
	}
	wantText(t, "return page", tb.Text("#payment-status"), "Payment confirmed")
	tb.noSidewaysScroll("the return page")
	tb.shot("return-booked")

	// The e-ticket, with its QR code loaded.
	tb.click("[data-booking-link]")
	tb.waitVisible("#ticket-code")
	tb.waitFor("the QR code image", `(() => { const i = document.querySelector('img[alt^="QR code"]'); return i && i.complete && i.naturalWidth > 0; })()`)
	code := tb.Text("#ticket-code")
	bookingID := scalar[string](s, `SELECT b.id::text FROM bookings b JOIN users u ON u.id = b.user_id WHERE u.email = $1 AND b.code = $2`, email, code)
	wantText(t, "e-ticket", tb.Text("article"), movie, seats[0], seats[1], total)
	tb.noSidewaysScroll("the e-ticket")
	tb.shot("e-ticket")

	// My bookings lists it; cancelling shows the refund first.
	tb.click(`header a[href="/bookings"]`)
	card := "#booking-" + bookingID
	tb.waitVisible(card)
	wantText(t, "booking card", tb.Text(card), movie, seats[0], seats[1], total, "Confirmed")
	tb.noSidewaysScroll("My bookings")
	tb.shot("my-bookings")
	tb.click(card + ` a[hx-get$="/cancel"]`)
	tb.waitVisible(card + " [data-cancel-preview]")
	preview := tb.Text(card + " [data-cancel-preview]")
	wantText(t, "refund preview", preview, "Cancel this booking?", "You paid "+total)
	refund := tb.Text(card + " [data-cancel-preview] strong")
	if !strings.HasPrefix(refund, "₹") {
		t.Fatalf("refund preview names no amount: %q", preview)
	}
	tb.shot("cancel-preview")
	tb.click(card + " [data-cancel-preview] button[type=submit]")
	tb.waitFor("the booking to show as cancelled", fmt.Sprintf(`(() => { const c = document.querySelector(%s); return c && !c.querySelector("[data-cancel-preview]") && c.textContent.includes("Cancelled"); })()`, jsString(card)))
	tb.shot("cancelled")

	// What the database says: one cancelled booking of those seats, the
	// refund the preview promised, the seats back on sale.
	if got := scalar[string](s, `SELECT status FROM bookings WHERE id = $1`, bookingID); got != "CANCELLED" {
		t.Fatalf("booking status = %s, want CANCELLED", got)
	}
	if got := scalar[[]string](s, `SELECT seat_ids FROM bookings WHERE id = $1`, bookingID); !sameSet(got, seats) {
		t.Fatalf("booked seats = %v, want %v", got, seats)
	}
	if got := scalar[int64](s, `SELECT amount_minor FROM bookings WHERE id = $1`, bookingID); got != price {
		t.Fatalf("booking amount = %d, want %d", got, price)
	}
	if got := rupees(scalar[int64](s, `SELECT amount_minor FROM refunds WHERE booking_id = $1`, bookingID)); got != refund {
		t.Fatalf("refund = %s, the preview said %s", got, refund)
	}
	if n := scalar[int64](s, `SELECT count(*) FROM show_seats ss JOIN bookings b ON b.show_id = ss.show_id
		WHERE b.id = $1 AND ss.seat_id = ANY(b.seat_ids) AND ss.status = 'AVAILABLE'`, bookingID); n != 2 {
		t.Fatalf("%d of the 2 cancelled seats are back on sale", n)
	}
	s.eventually("the refund paid back", `SELECT status = 'SUCCEEDED' FROM refunds WHERE booking_id = $1`, bookingID)
	pgtest.CheckInvariants(t, s.Store)
	t.Logf("purchase on a %s took %v", vp.name, time.Since(began).Round(time.Millisecond))
}

// holdExpiry lets a 3-second hold run out in the browser. The site's
// clock stands still until the test has looked at the held seat and moves
// it past the deadline: before, a countdown at zero finds the hold still
// there (the panel comes back as it was), however slow the machine.
func holdExpiry(t *testing.T, browser context.Context) {
	const ttl = 3 * time.Second
	s := newSite(t, siteConfig{holdTTL: ttl, clock: true})
	show := s.newShow(10, 10)
	tb := s.openTab(t, browser, "expiry", desktop)
	email := tb.signUp("Bilal Expiry")
	tb.openShow(show)
	tb.click("#seat-E5")
	tb.click("[data-hold-button]")
	held := time.Now()
	tb.waitVisible("#checkout [data-countdown-display]")
	tb.wantSeat("E5", "mine", "")
	if left := tb.Text("[data-countdown-display]"); !countdownText.MatchString(left) || !strings.HasPrefix(left, "0:0") {
		t.Fatalf("countdown shows %q, want at most 0:03", left)
	}
	tb.shot("checkout-countdown")

	// At zero the panel says so at once, then the map comes back.
	s.clock.Advance(ttl)
	tb.waitForWithin("the countdown to say the hold expired", `(() => {
		const c = document.querySelector("[data-countdown]");
		return !c || c.getAttribute("data-expired") === "true";
	})()`, ttl+workTimeout)
	tb.waitForWithin("the map to refresh with the expired notice", `(() => {
		const n = document.querySelector("[data-notice]");
		return !document.querySelector("#checkout") && n && n.textContent.includes("Your hold expired");
	})()`, ttl+workTimeout)
	t.Logf("hold expired in the browser %v after holding (TTL %v)", time.Since(held).Round(100*time.Millisecond), ttl)
	tb.wantSeat("E5", "available", "false")
	wantText(t, "expired notice", tb.Text("[data-notice]"), "Your hold expired", "nothing was charged")
	tb.waitFor("the focus on the expired notice", `document.activeElement && document.activeElement.matches("[data-notice]")`)
	if got := tb.Text("[data-selection-summary]"); got != "No seats selected yet." {
		t.Fatalf("after expiry the selection summary says %q", got)
	}
	tb.shot("hold-expired")

	// The hold ended by the clock: the sweeper marks it, the seat is free.
	s.eventually("the hold marked expired", `SELECT bool_and(h.state = 'EXPIRED') FROM holds h JOIN users u ON u.id = h.user_id WHERE u.email = $1`, email)
	if got := scalar[string](s, `SELECT status FROM show_seats WHERE show_id = $1 AND seat_id = 'E5'`, show); got != "AVAILABLE" {
		t.Fatalf("seat E5 is %s after the hold expired", got)
	}
	pgtest.CheckInvariants(t, s.Store)
}

// seatConflict: two users pick the same seat; the first holds it; the
// second is told which seat went and keeps the rest of the selection.
// The live seat map stays off here: with it on, the second page would see
// the seat go before asking for it, and the server's answer to a hold that
// loses the race (which a live page can still send in the moment before
// the change arrives) would go untested. liveSeatMap covers the live side.
func seatConflict(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{})
	show := s.newShow(10, 10)
	path := fmt.Sprintf("/shows/%d", show)

	first := s.openTab(t, browser, "conflict-first", desktop)
	second := s.openTab(t, browser, "conflict-second", phone)
	firstEmail := first.signUp("Chitra First")
	secondEmail := second.signUp("Dev Second")
	for _, tb := range []*tab{first, second} {
		tb.open(path)
		tb.waitVisible(`#seatmap[data-ready="true"]`)
	}
	first.click("#seat-C5")
	second.click("#seat-C5")
	second.click("#seat-C6")
	second.wantSeat("C5", "available", "true")
	second.wantSeat("C6", "available", "true")

	first.click("[data-hold-button]")
	first.waitVisible("#checkout")
	first.wantSeat("C5", "mine", "")

	second.click("[data-hold-button]")
	second.waitVisible(`[data-notice="error"]`)
	wantText(t, "conflict notice", second.Text(`[data-notice="error"]`), "Seat C5 is no longer available", "kept the rest of your selection")
	second.wantSeat("C5", "held", "")
	if got := second.Attr("#seat-C5", "data-taken"); got != "true" {
		t.Fatalf("the taken seat C5 is not flagged (data-taken=%q)", got)
	}
	second.wantSeat("C6", "available", "true")
	if got := second.Text("[data-selection-summary]"); got != "1 seat: C6" {
		t.Fatalf("selection after the conflict = %q, want 1 seat: C6", got)
	}
	if got := second.Text("[data-selection-total]"); got != rupees(pgtest.Prices["STANDARD"]) {
		t.Fatalf("total after the conflict = %q, want %s", got, rupees(pgtest.Prices["STANDARD"]))
	}
	if got := eval[[]string](second, `[...document.querySelectorAll('[data-hold-form] input[name=seat]')].map(i => i.value)`); len(got) != 1 || got[0] != "C6" {
		t.Fatalf("the hold form would send %v, want [C6]", got)
	}
	if eval[bool](second, `document.querySelector("[data-hold-button]").disabled`) {
		t.Fatal("the hold button is disabled after the conflict, with C6 still picked")
	}
	second.noSidewaysScroll("the show page with a conflict")
	second.shot("conflict")

	// The kept selection holds as it is.
	second.click("[data-hold-button]")
	second.waitVisible("#checkout")
	second.wantSeat("C6", "mine", "")
	second.wantSeat("C5", "held", "")
	for email, want := range map[string]string{firstEmail: "C5", secondEmail: "C6"} {
		got := s.heldSeats(email)
		if got != want {
			t.Errorf("%s holds %s, want %s", email, got, want)
		}
	}
	pgtest.CheckInvariants(t, s.Store)
}

// keyboard: every seat has a name a screen reader can say, with category
// and price; the map works with Tab, the arrow keys, Enter and Space.
func keyboard(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{})
	show := s.newShow(10, 10)
	// Someone else holds A3: it must be reachable and named, not pickable.
	s.holdElsewhere(show, "other-user", "A3")
	tb := s.openTab(t, browser, "keyboard", desktop)
	email := tb.signUp("Esha Keys")
	tb.openShow(show)

	tb.checkSeatNames()
	if name := tb.seatNames()["A3"]; !strings.Contains(name, "held by someone else") {
		t.Errorf("seat A3, held by another user, is named %q: want its state in its name", name)
	}

	// Tab into the map: it is one tab stop, landing on the first free seat.
	for i := 0; i < 40 && !strings.HasPrefix(tb.focused(), "seat-"); i++ {
		tb.press(kb.Tab)
	}
	if got := tb.focused(); got != "seat-A1" {
		t.Fatalf("tabbing into the map focuses %q, want seat-A1", got)
	}
	step := func(key, want string) {
		t.Helper()
		tb.press(key)
		if got := tb.focused(); got != "seat-"+want {
			t.Fatalf("after %q the focus is on %q, want seat-%s", key, got, want)
		}
	}
	wantSelection := func(summary string, total int64) {
		t.Helper()
		tb.waitFor("the selection "+summary, fmt.Sprintf(`document.querySelector("[data-selection-summary]").textContent.trim() === %s`, jsString(summary)))
		if got := tb.Text("[data-selection-total]"); got != rupees(total) {
			t.Fatalf("running total = %q, want %s", got, rupees(total))
		}
	}
	standard, premium := pgtest.Prices["STANDARD"], pgtest.Prices["PREMIUM"]

	step(kb.ArrowRight, "A2")
	step(kb.ArrowRight, "A3")
	tb.press(kb.Enter) // held by someone else: nothing happens but a message
	tb.wantSeat("A3", "held", "")
	wantSelection("No seats selected yet.", 0)
	tb.waitFor("the screen reader to be told", `document.getElementById("sr-status").textContent.includes("cannot be selected")`)

	step(kb.ArrowDown, "B3")
	tb.press(kb.Enter)
	tb.wantSeat("B3", "available", "true")
	wantSelection("1 seat: B3", standard)

	step(kb.ArrowRight, "B4")
	tb.press(" ")
	tb.wantSeat("B4", "available", "true")
	wantSelection("2 seats: B3, B4", 2*standard)

	step(kb.End, "B10")
	for _, row := range "CDEFGHIJ" {
		step(kb.ArrowDown, string(row)+"10")
	}
	tb.press(kb.Enter)
	wantSelection("3 seats: B3, B4, J10", 2*standard+premium) // the back row is PREMIUM
	tb.shot("keyboard-selection")
	tb.press(" ")
	tb.wantSeat("J10", "available", "false")
	wantSelection("2 seats: B3, B4", 2*standard)
	step(kb.Home, "J1")

	// On to the Hold button, by keyboard too.
	for i := 0; i < 10 && eval[bool](tb, `!document.activeElement.matches("[data-hold-button]")`); i++ {
		tb.press(kb.Tab)
	}
	if !eval[bool](tb, `document.activeElement.matches("[data-hold-button]")`) {
		t.Fatalf("Tab from the map does not reach the Hold button (focus on %q)", tb.focused())
	}
	tb.press(kb.Enter)
	tb.waitVisible("#checkout [data-countdown-display]")
	tb.wantSeat("B3", "mine", "")
	tb.wantSeat("B4", "mine", "")
	if got := tb.focused(); got != "checkout-title" {
		t.Errorf("after holding, the focus is on %q: want it moved to the checkout panel's heading", got)
	}
	tb.shot("keyboard-held")
	if got := s.heldSeats(email); got != "B3,B4" {
		t.Fatalf("the keyboard hold is of %s, want B3,B4", got)
	}
	pgtest.CheckInvariants(t, s.Store)
}
