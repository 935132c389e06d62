package pages_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// LiveSeatMap: two browsers on one show. A holds a seat B had picked; B's
// page shows it held within a second, without reloading, takes it out of
// B's selection and says so; A's hold runs out and B sees the seat free
// again. Then the server drops both sockets: the pages reconnect by
// themselves and catch up with what changed while they were away. The
// holds run out when the test moves the site's clock, not while a loaded
// machine is still checking B's page.
func liveSeatMap(t *testing.T, browser context.Context) {
	const ttl = 4 * time.Second
	s := newSite(t, siteConfig{holdTTL: ttl, live: true, clock: true})
	show := s.newShow(10, 10)
	path := fmt.Sprintf("/shows/%d", show)

	a := s.openTab(t, browser, "live-holder", desktop)
	b := s.openTab(t, browser, "live-watcher", phone)
	a.signUp("Farah Holder")
	b.signUp("Gopal Watcher")
	for _, tb := range []*tab{a, b} {
		tb.open(path)
		tb.waitVisible(`#seatmap[data-ready="true"]`)
	}
	// Both pages have their socket open (the hub counts them), and B's
	// page carries a mark that a reload would wipe.
	deadline := time.Now().Add(stepTimeout)
	for s.hub.Subscribers(show) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("after %v, %d of the 2 pages have connected to the live seat map", stepTimeout, s.hub.Subscribers(show))
		}
		time.Sleep(pollEvery)
	}
	eval[bool](b, `(window.liveTestMark = true)`)
	b.waitFor("B's page to say it is live", `document.querySelector("[data-live-status]").dataset.liveStatus === "live"`)
	wantText(t, "live indicator", b.Text("[data-live-status]"), "Live")
	// What B's page hears from now on: the live status it shows, and the
	// seats each message names.
	eval[bool](b, `(() => {
		window.liveStates = [];
		new MutationObserver(() => window.liveStates.push(document.querySelector("[data-live-status]").dataset.liveStatus))
			.observe(document.querySelector("[data-live-status]"), { attributes: true, attributeFilter: ["data-live-status"] });
		window.liveSeats = [];
		document.addEventListener("htmx:wsBeforeMessage", (ev) => window.liveSeats.push((ev.detail.message.match(/<button/g) || []).length));
		return true;
	})()`)
	b.click("#seat-C5")
	b.click("#seat-C6")
	b.wantSeat("C5", "available", "true")
	b.wantSeat("C6", "available", "true")

	a.click("#seat-C5")
	a.click("[data-hold-button]")
	a.waitVisible("#checkout [data-countdown-display]")
	held := time.Now() // the hold has committed: A has its answer
	b.waitFor("C5 to turn held on B's page", `document.querySelector("#seat-C5").dataset.status === "held"`)
	t.Logf("A's hold showed on B's page %v after A had its answer", time.Since(held).Round(time.Millisecond))
	if !eval[bool](b, `window.liveTestMark === true`) {
		t.Fatal("B's page was reloaded: the change must arrive live")
	}
	b.wantSeat("C5", "held", "")
	if got := b.Attr("#seat-C5", "aria-disabled"); got != "true" {
		t.Fatalf("the seat taken live is not disabled on B's page (aria-disabled=%q)", got)
	}
	b.wantSeat("C6", "available", "true")
	b.waitFor("B's selection to lose C5", `document.querySelector("[data-selection-summary]").textContent.trim() === "1 seat: C6"`)
	b.waitFor("the screen reader to be told", `document.getElementById("sr-status").textContent.includes("C5 was just taken")`)
	wantText(t, "the notice by the hold button", b.Text("[data-taken-notice]"), "Seat C5 was just taken by someone else")
	a.wantSeat("C5", "mine", "")
	b.shot("seat-taken-live")

	// A's hold runs out; the sweeper frees the seat; B sees it free again.
	s.clock.Advance(ttl)
	ranOut := time.Now()
	b.waitForWithin("C5 to turn available again on B's page", `(() => {
		const s = document.querySelector("#seat-C5");
		return s.dataset.status === "available" && s.getAttribute("aria-pressed") === "false";
	})()`, workTimeout)
	t.Logf("C5 free again on B's page %v after the hold ran out", time.Since(ranOut).Round(100*time.Millisecond))
	if !eval[bool](b, `window.liveTestMark === true`) {
		t.Fatal("B's page was reloaded while the hold expired")
	}
	if got := scalar[string](s, `SELECT status FROM show_seats WHERE show_id = $1 AND seat_id = 'C5'`, show); got != "AVAILABLE" {
		t.Fatalf("B shows C5 available, the database says %s", got)
	}

	// The server lets every socket go (as a slow client or a shutting-down
	// instance would be); a seat changes meanwhile. The pages reconnect by
	// themselves and resync: B shows the change, still without a reload.
	s.hub.CloseAll()
	s.holdElsewhere(show, "while-away", "H8")
	s.eventually("the change announced", `SELECT NOT EXISTS (SELECT 1 FROM seat_events)`)
	if n := s.hub.Subscribers(show); n != 0 {
		t.Logf("%d pages were back before H8 was announced: they may have heard it live", n)
	}
	b.waitFor("B's page to reconnect and show H8 held", `document.querySelector("#seat-H8").dataset.status === "held"`)
	deadline = time.Now().Add(stepTimeout)
	for s.hub.Subscribers(show) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("after %v, %d of the 2 pages have reconnected", stepTimeout, s.hub.Subscribers(show))
		}
		time.Sleep(pollEvery)
	}
	if !eval[bool](b, `window.liveTestMark === true`) {
		t.Fatal("B's page was reloaded to reconnect")
	}
	b.waitFor("B's page to say it is live again", `document.querySelector("[data-live-status]").dataset.liveStatus === "live"`)
	if states := eval[[]string](b, `window.liveStates`); !strings.Contains(strings.Join(states, " "), "reconnecting live") {
		t.Errorf("B's live indicator went %v; want it to say it was reconnecting, then live", states)
	}
	// Every message named the seats that changed, never the whole map
	// again, not even after the reconnection.
	if sizes := eval[[]int](b, `window.liveSeats`); len(sizes) == 0 || slices.Max(sizes) > 2 {
		t.Errorf("B's page was sent messages naming %v seats; want only the seats that changed", sizes)
	}
	b.wantSeat("C6", "available", "true") // the pick survives the resync

	// B picks C5 and holds it, with C6 still picked.
	b.click("#seat-C5")
	b.wantSeat("C5", "available", "true")
	b.click("[data-hold-button]")
	b.waitVisible("#checkout [data-countdown-display]")
	b.wantSeat("C5", "mine", "")
	b.wantSeat("C6", "mine", "")
	b.shot("held-after-expiry")
	pgtest.CheckInvariants(t, s.Store)
}
