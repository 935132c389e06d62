package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// Cancelling a booking follows the theatre's refund policy (the default:
// all of it up to 24 hours before the show, half up to 2 hours, then none).
func TestCancellationPolicy(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	book := func(t *testing.T, startsIn time.Duration) (*webtest.Client, string) {
		t.Helper()
		show := pgtest.NewShow(t, e.Store, e.Venue, 2, 2, e.Clock.Now().Add(startsIn))
		c := e.User(t)
		h := c.HoldOn(show, "k", "A1")
		webtest.Want(t, h, http.StatusCreated)
		return c, e.Pay(t, h).Str("booking_id")
	}

	t.Run("half back less than a day before the show", func(t *testing.T) {
		c, id := book(t, 10*time.Hour)
		r := c.Post("/api/v1/bookings/"+id+"/cancel", nil)
		webtest.Want(t, r, http.StatusOK)
		refund, _ := r.JSON["refund"].(map[string]any)
		if r.Str("status") != "CANCELLED" || refund["amount_minor"] != 12500.0 || refund["status"] != "PENDING" || r.Str("cancelled_at") == "" {
			t.Fatalf("cancelled = %s, want half of 25000 back", r)
		}
	})

	t.Run("closed less than two hours before the show", func(t *testing.T) {
		c, id := book(t, 3*time.Hour)
		e.Clock.Advance(90 * time.Minute)
		before := e.Snapshot(t)
		webtest.WantError(t, c.Post("/api/v1/bookings/"+id+"/cancel", nil), http.StatusConflict, "cancellation_closed")
		if after := e.Snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
		if r := c.Get("/api/v1/bookings/" + id); r.Str("status") != "CONFIRMED" {
			t.Fatalf("booking after a refused cancel = %s", r)
		}
	})
}
