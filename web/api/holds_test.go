package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// A hold's life over HTTP, with the store's clock moved by the test.
func TestHoldLifecycle(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)

	t.Run("one active hold per user", func(t *testing.T) {
		c := e.User(t)
		first := c.MustHold(t, "A1")
		r := c.Hold("A2")
		webtest.WantError(t, r, http.StatusConflict, "active_hold_exists")
		if r.Str("hold_id") != first.Str("hold_id") {
			t.Fatalf("active_hold_exists names %q, want %q", r.Str("hold_id"), first.Str("hold_id"))
		}
		webtest.Want(t, c.Delete("/api/v1/holds/"+first.Str("hold_id")), http.StatusOK)
		c.MustHold(t, "A2")
	})

	t.Run("seats someone holds are unavailable, and named", func(t *testing.T) {
		e.User(t).MustHold(t, "B1", "B2")
		r := e.User(t).Hold("B2", "B3", "B1")
		webtest.WantError(t, r, http.StatusConflict, "seats_unavailable")
		if got := r.Strs("seats"); !slices.Equal(got, []string{"B1", "B2"}) {
			t.Fatalf("seats_unavailable names %v, want [B1 B2]", got)
		}
		if status, _ := e.Guest().SeatStatus(t); status["B3"] != "AVAILABLE" {
			t.Fatalf("B3 = %s after a refused hold: nothing may be claimed", status["B3"])
		}
	})

	t.Run("a key reused for another request is refused", func(t *testing.T) {
		c := e.User(t)
		webtest.Want(t, c.HoldKey("reused", "C1"), http.StatusCreated)
		webtest.WantError(t, c.HoldKey("reused", "C2"), http.StatusUnprocessableEntity, "idempotency_key_reused")
		// Keys belong to their user: another user's same key is a new request.
		webtest.Want(t, e.User(t).HoldKey("reused", "C3"), http.StatusCreated)
	})

	t.Run("release gives the seats back, and a second release changes nothing", func(t *testing.T) {
		c := e.User(t)
		h := c.MustHold(t, "D1")
		r := c.Delete("/api/v1/holds/" + h.Str("hold_id"))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("state") != "CANCELLED" || r.Str("hold_id") != h.Str("hold_id") {
			t.Fatalf("released = %s", r)
		}
		if status, _ := c.SeatStatus(t); status["D1"] != "AVAILABLE" {
			t.Fatalf("D1 = %s after release", status["D1"])
		}
		again := c.Delete("/api/v1/holds/" + h.Str("hold_id"))
		webtest.Want(t, again, http.StatusOK)
		if again.Str("state") != "CANCELLED" {
			t.Fatalf("second release = %s", again)
		}
		webtest.WantError(t, c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil), http.StatusConflict, "hold_not_active")
	})

	t.Run("a hold lapses exactly at its deadline", func(t *testing.T) {
		c := e.User(t)
		h := c.HoldKey("lapse", "E1")
		webtest.Want(t, h, http.StatusCreated)
		e.Clock.Advance(webtest.HoldTTL - time.Microsecond)
		if r := c.Get("/api/v1/holds/" + h.Str("hold_id")); r.Str("state") != "HELD" {
			t.Fatalf("1µs before the deadline: %s", r)
		}
		webtest.Want(t, c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil), http.StatusCreated)
		e.Clock.Advance(time.Microsecond)
		// With a checkout open it keeps its seats for the payment grace,
		// for a payment made in time, but takes no new one.
		if r := c.Get("/api/v1/holds/" + h.Str("hold_id")); r.Str("state") != "HELD" {
			t.Fatalf("at the deadline, in the grace: %s", r)
		}
		if status, mine := c.SeatStatus(t); status["E1"] != "HELD" || !mine["E1"] {
			t.Fatalf("E1 = %s (mine %v) in the grace", status["E1"], mine["E1"])
		}
		webtest.WantError(t, c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil), http.StatusConflict, "hold_not_active")
		e.Clock.Advance(booking.DefaultPaymentGrace)
		if r := c.Get("/api/v1/holds/" + h.Str("hold_id")); r.Str("state") != "EXPIRED" {
			t.Fatalf("after the grace: %s", r)
		}
		if status, mine := c.SeatStatus(t); status["E1"] != "AVAILABLE" || mine["E1"] {
			t.Fatalf("E1 = %s (mine %v) after the grace", status["E1"], mine["E1"])
		}
		webtest.WantError(t, c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil), http.StatusConflict, "hold_not_active")
		replay := c.HoldKey("lapse", "E1")
		webtest.Want(t, replay, http.StatusOK)
		if replay.Str("state") != "EXPIRED" || replay.Str("expires_at") != h.Str("expires_at") {
			t.Fatalf("replay after the deadline = %s: a retry must not extend the lease", replay)
		}
		r := c.Delete("/api/v1/holds/" + h.Str("hold_id"))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("state") != "EXPIRED" {
			t.Fatalf("release after the deadline = %s", r)
		}
		// The user may hold again: the lapsed hold is no longer active.
		c.MustHold(t, "E2")
	})

	t.Run("a show that has started is closed", func(t *testing.T) {
		started := pgtest.NewShow(t, e.Store, e.Venue, 2, 2, e.Clock.Now().Add(-time.Minute))
		r := e.User(t).Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", started),
			Body: `{"seats":["A1"]}`, Header: map[string]string{"Idempotency-Key": "late"}})
		webtest.WantError(t, r, http.StatusConflict, "show_closed")
	})

	t.Run("a too-big hold names the cap", func(t *testing.T) {
		r := e.User(t).Hold("F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "G1")
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "too_many_seats")
		if r.Num("max") != webtest.MaxSeats {
			t.Fatalf("too_many_seats = %s, want max %d", r, webtest.MaxSeats)
		}
	})
}
