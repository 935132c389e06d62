package account_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// TestMovedBookingPages: after the theatre moves a show, a booking made
// before says so, from when to when, at the new time, and promises
// everything back until the show starts, which its cancellation gives even
// inside the policy's window of no refund; a booking made after follows
// the policy.
func TestMovedBookingPages(t *testing.T) {
	e := webtest.NewEnv(t, webtest.WithClock)
	before, id := e.Booked(t, "A1", "A2")
	was := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT starts_at FROM shows WHERE id = $1`, e.Show)
	// Ninety minutes on: inside the default policy's last two hours,
	// where it gives nothing back.
	to := e.Now().Add(90 * time.Minute).Truncate(time.Minute)
	r := e.Admin(t, auth.RolePlatformAdmin).Post(fmt.Sprintf("/api/v1/admin/shows/%d/reschedule", e.Show),
		map[string]any{"starts_at": to.Format(time.RFC3339)})
	webtest.Want(t, r, http.StatusOK)
	after, lateID := e.Booked(t, "B1")
	tz := "Asia/Kolkata"
	moved := "The theatre moved this show from " + format.When(was, tz) + " to " + format.When(to, tz) + "."

	t.Run("the e-ticket says the show moved, and reads the new time", func(t *testing.T) {
		p := before.Get(t, "/bookings/"+id)
		webtest.Want200(t, p)
		if got := p.Text("[data-moved]"); !strings.Contains(got, moved) || !strings.Contains(got, "still valid") {
			t.Fatalf("moved note %q, want %q", got, moved)
		}
		if got := p.Text("article dd"); !strings.Contains(got, format.Date(to, tz)+", "+format.Clock(to, tz)) {
			t.Fatalf("the ticket's time %q", got)
		}
		if got := p.Text("[data-refund-now]"); !strings.HasPrefix(got, "Full refund until "+format.Clock(to, tz)) {
			t.Fatalf("refund line %q", got)
		}
		if p.Attr("[data-moved] a", "href") != "/bookings/"+id+"/cancel" {
			t.Fatal("no way to decline from the ticket")
		}
		if p := after.Get(t, "/bookings/"+lateID); p.Has("[data-moved]") {
			t.Fatalf("a booking made after the move says it moved: %q", p.Text("[data-moved]"))
		}
	})

	t.Run("My bookings says it too", func(t *testing.T) {
		p := before.Get(t, "/bookings")
		if got := p.Text("#booking-" + id + " [data-moved]"); got != moved {
			t.Fatalf("card's moved note %q, want %q", got, moved)
		}
	})

	t.Run("the booking made after the move follows the policy: closed now", func(t *testing.T) {
		p := after.Get(t, "/bookings/"+lateID+"/cancel")
		webtest.Want200(t, p)
		if !strings.Contains(p.Text("[data-cancel-preview]"), "can no longer be cancelled") {
			t.Fatalf("preview %q", p.Text("[data-cancel-preview]"))
		}
		webtest.WantStatus(t, after.Submit(t, "/bookings/"+lateID+"/cancel", nil), http.StatusConflict)
	})

	t.Run("the booking made before: what the preview promises is refunded", func(t *testing.T) {
		p := before.Get(t, "/bookings/"+id+"/cancel")
		webtest.Want200(t, p)
		amount := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT amount_minor FROM bookings WHERE id = $1`, id)
		if got := p.Text("[data-refund-tier]"); !strings.Contains(got, "The theatre moved this show after you booked it") {
			t.Fatalf("preview %q", got)
		}
		if got := p.Text("[data-cancel-preview] strong"); got != format.Money(amount, "INR") {
			t.Fatalf("preview refunds %q, want all of %s", got, format.Money(amount, "INR"))
		}
		webtest.WantSeeOther(t, before.Submit(t, "/bookings/"+id+"/cancel", nil), "/bookings")
		if got := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT amount_minor FROM refunds WHERE booking_id = $1`, id); got != amount {
			t.Fatalf("refunded %d, want %d", got, amount)
		}
	})
}
