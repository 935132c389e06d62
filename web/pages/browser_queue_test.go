package pages_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admitter"
	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// TestBrowserWaitingRoom: a show's waiting room is on. A moviegoer who
// opens the show is sent to the queue page, sees their place, waits
// without touching anything while the room lets people in, is taken to
// the seat map by the page itself, asks for the 3 best seats and pays.
func TestBrowserWaitingRoom(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	logScreenshots(t)
	ctx := context.Background()
	s := newSite(t, siteConfig{live: true})
	show := s.newShow(10, 10)
	admin := pgtest.User(t, s.Store)
	set := waitroom.Settings{Enabled: true, AdmitPerMinute: 60, MaxActive: 10}
	if err := s.Store.SetRoom(ctx, show, set, 5*time.Minute, audit.Entry{ActorID: admin, Action: "show.waiting_room", Object: "show"}); err != nil {
		t.Fatal(err)
	}
	// Two people are in line already.
	for range 2 {
		if _, ok, err := s.Store.JoinQueue(ctx, show); err != nil || !ok {
			t.Fatalf("join: %v, %v", ok, err)
		}
	}
	showPath := fmt.Sprintf("/shows/%d", show)

	a := s.openTab(t, browser, "queue-desktop", desktop)
	email := a.signUp("Ines Waiting")
	a.open(showPath)
	a.waitVisible("[data-queue-position]")
	if path := eval[string](a, `location.pathname`); path != showPath+"/queue" {
		t.Fatalf("the show page of a room that is on led to %s, want the queue", path)
	}
	wantText(t, "the place in line", a.Text("[data-queue-position]"), "3")
	wantText(t, "the queue page", a.Text("main"), "You’re in the queue", "Estimated wait", "2 ahead of you", "Keep this page open")
	a.noSidewaysScroll("the queue page")
	a.axe("the queue page")
	a.shot("queue")

	b := s.openTab(t, browser, "queue-phone", phone)
	b.open(showPath) // a guest may wait too
	b.waitVisible("[data-queue-position]")
	wantText(t, "the second browser's place", b.Text("[data-queue-position]"), "4")
	b.noSidewaysScroll("the queue page on a phone")
	b.axe("the queue page on a phone")
	b.shot("queue")
	// A reload keeps the place.
	b.open(showPath + "/queue")
	b.waitVisible("[data-queue-position]")
	wantText(t, "the place after a reload", b.Text("[data-queue-position]"), "4")

	c := s.openTab(t, browser, "queue-narrow", narrow)
	c.open(showPath)
	c.waitVisible("[data-queue-position]")
	c.noSidewaysScroll("the queue page at 320 px")
	c.shot("queue")

	// The room starts letting people in, one a second. A's page follows
	// the front over its socket and moves on by itself: nothing here
	// touches it.
	wctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	w := &admitter.Worker{Store: s.Store, TTL: 5 * time.Minute, Interval: 250 * time.Millisecond, Log: slog.New(slog.DiscardHandler)}
	go w.Run(wctx)
	a.waitForWithin("the page to take its place in line to the seat map by itself",
		fmt.Sprintf(`location.pathname === %q && !!document.querySelector('#seatmap[data-ready="true"]')`, showPath), time.Minute)
	wantText(t, "the show page of the admitted", a.Text("[data-admitted]"), "You’re in.", "Hold your seats by")
	a.shot("admitted")
	if state := scalar[string](s, `SELECT state FROM queue_tickets WHERE show_id = $1 AND number = 3`, show); state != "ADMITTED" {
		t.Fatalf("the ticket of the page that moved on is %s", state)
	}

	// Admitted: the 3 best seats, held at once, and paid.
	a.setValue("best-count", "3")
	a.click("[data-best-button]")
	a.heldNow(email, "G4,G5,G6")
	if n := eval[int](a, `document.querySelectorAll("[data-admitted]").length`); n != 0 {
		t.Fatal("the page still asks to hold seats once they are held")
	}
	wantText(t, "the notice", a.Text("[data-notice]"), "We found you 3 seats together in row G.")
	a.click(`#checkout form[action$="/pay"] button[type=submit]`)
	a.waitVisible("[data-merchant]")
	a.click(`#pay-form button[type=submit]`)
	a.waitFor("the booking to be confirmed", `!!document.querySelector('#payment-status[data-state="booked"] [data-booking-link]')`)
	if got := scalar[[]string](s, `SELECT b.seat_ids FROM bookings b JOIN users u ON u.id = b.user_id WHERE u.email = $1`, email); !sameSet(got, []string{"G4", "G5", "G6"}) {
		t.Fatalf("booked %v", got)
	}
	// The booking ends the admission, and frees its place for the next.
	s.eventually("the admission to end with the booking",
		`SELECT state = 'DONE' FROM queue_tickets q JOIN users u ON u.id = q.user_id WHERE q.show_id = $1 AND u.email = $2`, show, email)
	pgtest.CheckInvariants(t, s.Store)
}
