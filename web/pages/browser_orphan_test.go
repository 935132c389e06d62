package pages_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// orphanRule turns the orphan rule of show's theatre on or off.
func (s *site) orphanRule(show int64, on bool) {
	s.t.Helper()
	theatre := scalar[int64](s, `SELECT sc.theatre_id FROM shows sh JOIN screens sc ON sc.id = sh.screen_id WHERE sh.id = $1`, show)
	if err := pgtest.SetOrphanRule(context.Background(), s.Store, theatre, on); err != nil {
		s.t.Fatal(err)
	}
}

// TestBrowserOrphanRule: seats picked that would leave one empty on its
// own, in Chromium at 1280 and 390 px. The page says so at once (an alert,
// focused), in a moviegoer's words; the seats offered instead are one
// click away, or Tab and Enter, and are held; "Keep choosing" goes back to
// the map with the picks kept. axe-core finds nothing on the offer.
func TestBrowserOrphanRule(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{})

	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			show := s.newShow(10, 10)
			s.orphanRule(show, true)
			s.holdElsewhere(show, "c1-c3", "C1", "C2", "C3")
			tb := s.openTab(t, browser, "orphan-"+vp.name, vp)
			email := tb.signUp("Esha Seth")
			tb.openShow(show)
			picks := []string{"C5", "C6", "C7"} // C4 left between C3 and C5
			for _, id := range picks {
				tb.pick(id)
			}
			tb.click("[data-hold-button]")
			tb.waitVisible("[data-orphan-offer]")
			wantText(t, "the offer", tb.Text("[data-orphan-offer]"),
				"That would leave C4 empty on its own.", "Take C4–C6 instead?", "Keep choosing")
			if got := tb.Attr("[data-orphan-offer]", "role"); got != "alert" {
				t.Fatalf("the offer's role is %q, want alert: a screen reader says it at once", got)
			}
			tb.waitFor("focus on the offer", `document.activeElement && document.activeElement.matches("[data-orphan-offer]")`)
			for _, id := range picks {
				tb.wantSeat(id, "available", "true") // still picked, nothing held
			}
			if n := scalar[int64](s, `SELECT count(*) FROM holds h JOIN users u ON u.id = h.user_id WHERE u.email = $1`, email); n != 0 {
				t.Fatalf("refused, yet %s has %d holds", email, n)
			}
			tb.noSidewaysScroll("the show page offering other seats")
			tb.axe("the show page offering other seats")
			tb.shot("offer")

			if vp.mobile {
				tb.click("[data-keep-choosing]")
				tb.waitFor("the offer put away", `!document.querySelector("[data-orphan-offer]")`)
				tb.waitFor("focus back on the seat map", `document.activeElement && document.activeElement.matches("#seatmap button.seat")`)
				for _, id := range picks {
					tb.wantSeat(id, "available", "true")
				}
				tb.click("[data-hold-button]")
				tb.waitVisible("[data-orphan-offer]")
				tb.click("[data-orphan-take]")
			} else {
				tb.press(kb.Tab)
				tb.waitFor("focus on the offer's button", `document.activeElement && document.activeElement.matches("[data-orphan-take]")`)
				tb.press(kb.Enter)
			}
			tb.waitVisible("#checkout")
			for _, id := range []string{"C4", "C5", "C6"} {
				tb.wantSeat(id, "mine", "")
			}
			tb.wantSeat("C7", "available", "")
			if got := s.heldSeats(email); got != "C4,C5,C6" {
				t.Fatalf("%s holds %q, want C4,C5,C6", email, got)
			}
			tb.shot("taken")
		})
	}
}
