package web_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// A hold's life over HTTP, with the store's clock moved by the test.
func TestHoldLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withClock)

	t.Run("one active hold per user", func(t *testing.T) {
		c := e.user(t)
		first := c.mustHold(t, "A1")
		r := c.hold("A2")
		wantError(t, r, http.StatusConflict, "active_hold_exists")
		if r.str("hold_id") != first.str("hold_id") {
			t.Fatalf("active_hold_exists names %q, want %q", r.str("hold_id"), first.str("hold_id"))
		}
		want(t, c.delete("/api/v1/holds/"+first.str("hold_id")), http.StatusOK)
		c.mustHold(t, "A2")
	})

	t.Run("seats someone holds are unavailable, and named", func(t *testing.T) {
		e.user(t).mustHold(t, "B1", "B2")
		r := e.user(t).hold("B2", "B3", "B1")
		wantError(t, r, http.StatusConflict, "seats_unavailable")
		if got := r.strs("seats"); !slices.Equal(got, []string{"B1", "B2"}) {
			t.Fatalf("seats_unavailable names %v, want [B1 B2]", got)
		}
		if status, _ := e.guest().seatStatus(t); status["B3"] != "AVAILABLE" {
			t.Fatalf("B3 = %s after a refused hold: nothing may be claimed", status["B3"])
		}
	})

	t.Run("a key reused for another request is refused", func(t *testing.T) {
		c := e.user(t)
		want(t, c.holdKey("reused", "C1"), http.StatusCreated)
		wantError(t, c.holdKey("reused", "C2"), http.StatusUnprocessableEntity, "idempotency_key_reused")
		// Keys belong to their user: another user's same key is a new request.
		want(t, e.user(t).holdKey("reused", "C3"), http.StatusCreated)
	})

	t.Run("release gives the seats back, and a second release changes nothing", func(t *testing.T) {
		c := e.user(t)
		h := c.mustHold(t, "D1")
		r := c.delete("/api/v1/holds/" + h.str("hold_id"))
		want(t, r, http.StatusOK)
		if r.str("state") != "CANCELLED" || r.str("hold_id") != h.str("hold_id") {
			t.Fatalf("released = %s", r)
		}
		if status, _ := c.seatStatus(t); status["D1"] != "AVAILABLE" {
			t.Fatalf("D1 = %s after release", status["D1"])
		}
		again := c.delete("/api/v1/holds/" + h.str("hold_id"))
		want(t, again, http.StatusOK)
		if again.str("state") != "CANCELLED" {
			t.Fatalf("second release = %s", again)
		}
		wantError(t, c.post("/api/v1/holds/"+h.str("hold_id")+"/checkout", nil), http.StatusConflict, "hold_not_active")
	})

	t.Run("a hold lapses exactly at its deadline", func(t *testing.T) {
		c := e.user(t)
		h := c.holdKey("lapse", "E1")
		want(t, h, http.StatusCreated)
		e.clock.Advance(holdTTL - time.Microsecond)
		if r := c.get("/api/v1/holds/" + h.str("hold_id")); r.str("state") != "HELD" {
			t.Fatalf("1µs before the deadline: %s", r)
		}
		want(t, c.post("/api/v1/holds/"+h.str("hold_id")+"/checkout", nil), http.StatusCreated)
		e.clock.Advance(time.Microsecond)
		if r := c.get("/api/v1/holds/" + h.str("hold_id")); r.str("state") != "EXPIRED" {
			t.Fatalf("at the deadline: %s", r)
		}
		if status, mine := c.seatStatus(t); status["E1"] != "AVAILABLE" || mine["E1"] {
			t.Fatalf("E1 = %s (mine %v) after the deadline", status["E1"], mine["E1"])
		}
		wantError(t, c.post("/api/v1/holds/"+h.str("hold_id")+"/checkout", nil), http.StatusConflict, "hold_not_active")
		replay := c.holdKey("lapse", "E1")
		want(t, replay, http.StatusOK)
		if replay.str("state") != "EXPIRED" || replay.str("expires_at") != h.str("expires_at") {
			t.Fatalf("replay after the deadline = %s: a retry must not extend the lease", replay)
		}
		r := c.delete("/api/v1/holds/" + h.str("hold_id"))
		want(t, r, http.StatusOK)
		if r.str("state") != "EXPIRED" {
			t.Fatalf("release after the deadline = %s", r)
		}
		// The user may hold again: the lapsed hold is no longer active.
		c.mustHold(t, "E2")
	})

	t.Run("a show that has started is closed", func(t *testing.T) {
		started := pgtest.NewShow(t, e.store, e.venue, 2, 2, e.clock.Now().Add(-time.Minute))
		r := e.user(t).send(req{method: "POST", path: fmt.Sprintf("/api/v1/shows/%d/holds", started),
			body: `{"seats":["A1"]}`, header: map[string]string{"Idempotency-Key": "late"}})
		wantError(t, r, http.StatusConflict, "show_closed")
	})

	t.Run("a too-big hold names the cap", func(t *testing.T) {
		r := e.user(t).hold("F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "G1")
		wantError(t, r, http.StatusUnprocessableEntity, "too_many_seats")
		if r.num("max") != maxSeats {
			t.Fatalf("too_many_seats = %s, want max %d", r, maxSeats)
		}
	})
}
