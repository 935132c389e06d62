package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// Cancelling a booking follows the theatre's refund policy (the default:
// all of it up to 24 hours before the show, half up to 2 hours, then none).
func TestCancellationPolicy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withClock)
	book := func(t *testing.T, startsIn time.Duration) (*client, string) {
		t.Helper()
		show := pgtest.NewShow(t, e.store, e.venue, 2, 2, e.clock.Now().Add(startsIn))
		c := e.user(t)
		h := c.holdOn(show, "k", "A1")
		want(t, h, http.StatusCreated)
		return c, e.pay(t, h).str("booking_id")
	}

	t.Run("half back less than a day before the show", func(t *testing.T) {
		c, id := book(t, 10*time.Hour)
		r := c.post("/api/v1/bookings/"+id+"/cancel", nil)
		want(t, r, http.StatusOK)
		refund, _ := r.JSON["refund"].(map[string]any)
		if r.str("status") != "CANCELLED" || refund["amount_minor"] != 12500.0 || refund["status"] != "PENDING" || r.str("cancelled_at") == "" {
			t.Fatalf("cancelled = %s, want half of 25000 back", r)
		}
	})

	t.Run("closed less than two hours before the show", func(t *testing.T) {
		c, id := book(t, 3*time.Hour)
		e.clock.Advance(90 * time.Minute)
		before := e.snapshot(t)
		wantError(t, c.post("/api/v1/bookings/"+id+"/cancel", nil), http.StatusConflict, "cancellation_closed")
		if after := e.snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
		if r := c.get("/api/v1/bookings/" + id); r.str("status") != "CONFIRMED" {
			t.Fatalf("booking after a refused cancel = %s", r)
		}
	})
}
