package pages_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestBrowserCustomerService runs the box office's customer service in
// Chromium: a customer's name finds their two bookings; one is moved to a
// later show of the movie, the other refunded in full with a reason, all
// from the keyboard where a form has fields. axe-core finds nothing wrong
// with the search, its results and a booking's page with its forms, at a
// desktop's width and a phone's.
func TestBrowserCustomerService(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{})
	v := pgtest.NewVenue(t, s.Store)
	show := pgtest.NewShow(t, s.Store, v, 4, 6, time.Now().Add(72*time.Hour))
	later := pgtest.NewShow(t, s.Store, v, 4, 6, time.Now().Add(96*time.Hour))
	first := s.confirmed(show, "B2", "B3")
	name := scalar[string](s, `SELECT name FROM users WHERE id = $1`, first.UserID)
	// The same customer books again, on the map's other side.
	second := s.confirmedFor(first.UserID, show, "D5", "D6").ID

	desk := pgtest.User(t, s.Store)
	pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, desk)
	pgtest.Exec(t, s.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'box_office')`, v.TheatreID, desk)
	deskEmail := scalar[string](s, `SELECT email FROM users WHERE id = $1`, desk)

	bt := s.adminTab(t, browser, "customer-desk", deskEmail, desktop)
	bt.open("/admin")
	bt.click(`nav[aria-label=Admin] a[href="/admin/bookings"]`)
	bt.waitVisible("#booking-q")
	bt.lookLoaded("find a booking")
	bt.typeInto("booking-q", name)
	bt.press(kb.Enter)
	bt.waitVisible("[data-found]")
	wantText(t, "the results", bt.Text("#found-heading"), "2 bookings")
	bt.lookLoaded("found bookings")

	// The first moves to the later show.
	bt.click(fmt.Sprintf(`[data-found-booking=%s] a`, jsString(first.Code)))
	bt.waitVisible("#move-seats")
	bt.lookLoaded("booking with its forms")
	bt.setValue("move-show_id", fmt.Sprint(later))
	bt.typeInto("move-seats", "c1, c2")
	bt.press(kb.Enter)
	bt.waitVisible(`[data-notice="success"]`)
	wantText(t, "the notice", bt.Text(`[data-notice="success"]`), "Booking moved")
	if got := scalar[int64](s, `SELECT show_id FROM bookings WHERE id = $1`, first.ID); got != later {
		t.Fatalf("the booking is for show %d, want %d", got, later)
	}

	// The second is refunded in full.
	bt.open("/admin/bookings/" + second)
	bt.waitVisible("#refund-reason")
	bt.click(`input[name=full][value=true]`)
	bt.typeInto("refund-reason", "Cannot make it: asked at the desk")
	bt.click(`form[action$="/refund"] button[type=submit]`)
	bt.waitVisible(`[data-notice="success"]`)
	wantText(t, "the status", bt.Text("[data-booking-status]"), "Cancelled by the theatre")
	bt.lookLoaded("booking refunded")
	// In full. (Sandbox Pay never took these fixture payments, so its
	// refund job fails: what the theatre owes is what counts here.)
	if owed := scalar[bool](s, `SELECT r.amount_minor = b.amount_minor FROM refunds r JOIN bookings b ON b.id = r.booking_id WHERE b.id = $1`, second); !owed {
		t.Fatal("the refund is not the full price")
	}

	s.lookOnPhone(t, browser, "customer-phone", deskEmail, []string{
		"/admin/bookings", "/admin/bookings?q=" + url.QueryEscape(name), "/admin/bookings/" + first.ID,
	})
}
