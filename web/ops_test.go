package web_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestOperations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	t.Run("healthz and readyz answer", func(t *testing.T) {
		want(t, e.guest().get("/healthz"), http.StatusOK)
		if r := e.guest().get("/readyz"); r.Status != http.StatusOK || r.str("status") != "ready" {
			t.Fatalf("readyz = %s", r)
		}
	})

	t.Run("metrics count hold outcomes", func(t *testing.T) {
		c := e.user(t)
		c.mustHold(t, "A1")
		wantError(t, e.user(t).hold("A1"), http.StatusConflict, "seats_unavailable")
		r := e.guest().get("/metrics")
		want(t, r, http.StatusOK)
		text := string(r.Body)
		for _, line := range []string{
			`marquee_hold_attempts_total{outcome="held"} 1`,
			`marquee_hold_attempts_total{outcome="conflict"} 1`,
			`marquee_seat_conflicts_total 1`,
			`marquee_hold_duration_seconds_count 2`,
		} {
			if !strings.Contains(text, line) {
				t.Errorf("metrics lack %q", line)
			}
		}
	})

	t.Run("a wrong method says which are allowed", func(t *testing.T) {
		r := e.guest().send(req{method: "PATCH", path: "/api/v1/bookings"})
		wantError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
		if allow := r.Header.Get("Allow"); !strings.Contains(allow, "GET") {
			t.Fatalf("Allow = %q", allow)
		}
	})
}

func TestRateLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withRateLimits)
	holder := e.fixtureUser(t) // one login of the five the address may burst

	t.Run("hammering login is answered 429 with Retry-After", func(t *testing.T) {
		var limited *response
		for i := 0; i < 20 && limited == nil; i++ {
			r := e.guest().post("/api/v1/login", map[string]string{"email": "guess@example.com", "password": "guess " + strconv.Itoa(i)})
			switch r.Status {
			case http.StatusUnauthorized:
			case http.StatusTooManyRequests:
				limited = r
			default:
				t.Fatalf("login %d = %s", i, r)
			}
		}
		if limited == nil {
			t.Fatal("20 logins in a row were never limited")
		}
		wantError(t, limited, http.StatusTooManyRequests, "rate_limited")
		if s, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || s < 1 {
			t.Fatalf("Retry-After = %q", limited.Header.Get("Retry-After"))
		}
		// Sign-up shares the address's allowance.
		r := e.guest().post("/api/v1/signup", map[string]string{"email": "new@example.com", "password": "long enough", "name": "N"})
		wantError(t, r, http.StatusTooManyRequests, "rate_limited")
	})

	t.Run("hammering holds is answered 429", func(t *testing.T) {
		limited := false
		for i := 0; i < 40 && !limited; i++ {
			r := holder.holdKey("same", "A1") // replays after the first
			switch r.Status {
			case http.StatusCreated, http.StatusOK:
			case http.StatusTooManyRequests:
				limited = true
				wantError(t, r, http.StatusTooManyRequests, "rate_limited")
				if r.Header.Get("Retry-After") == "" {
					t.Fatal("429 without Retry-After")
				}
			default:
				t.Fatalf("hold %d = %s", i, r)
			}
		}
		if !limited {
			t.Fatal("40 holds in a row were never limited")
		}
	})
}
