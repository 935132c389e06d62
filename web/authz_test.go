package web_test

import (
	"fmt"
	"net/http"
	"testing"
)

// Another user's hold or booking does not exist, on every verb; a guest is
// told to sign in.
func TestAuthorization(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.user(t), e.user(t)
	paidHold := a.mustHold(t, "A1")
	booking := e.pay(t, paidHold).str("booking_id")
	liveHold := a.mustHold(t, "A2").str("hold_id")
	const unknown = "6f1c1d2e-0000-4000-8000-000000000001"

	t.Run("user B cannot see or touch user A's holds and bookings", func(t *testing.T) {
		before := e.snapshot(t)
		for _, tc := range []struct{ name, method, path, other string }{
			{"get a live hold", "GET", "/api/v1/holds/" + liveHold, "/api/v1/holds/" + unknown},
			{"get a paid hold", "GET", "/api/v1/holds/" + paidHold.str("hold_id"), "/api/v1/holds/" + unknown},
			{"release a live hold", "DELETE", "/api/v1/holds/" + liveHold, "/api/v1/holds/" + unknown},
			{"release a paid hold", "DELETE", "/api/v1/holds/" + paidHold.str("hold_id"), "/api/v1/holds/" + unknown},
			{"checkout a live hold", "POST", "/api/v1/holds/" + liveHold + "/checkout", "/api/v1/holds/" + unknown + "/checkout"},
			{"get a booking", "GET", "/api/v1/bookings/" + booking, "/api/v1/bookings/" + unknown},
			{"cancel a booking", "POST", "/api/v1/bookings/" + booking + "/cancel", "/api/v1/bookings/" + unknown + "/cancel"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := b.send(req{method: tc.method, path: tc.path})
				wantError(t, r, http.StatusNotFound, "not_found")
				// Exactly the answer for an id that names nothing.
				if other := b.send(req{method: tc.method, path: tc.other}); string(other.Body) != string(r.Body) {
					t.Fatalf("someone else's: %s\nnobody's: %s", r, other)
				}
			})
		}
		if after := e.snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
		if r := b.get("/api/v1/bookings"); len(r.JSON["bookings"].([]any)) != 0 {
			t.Fatalf("B's bookings = %s", r)
		}
	})

	t.Run("A still has both", func(t *testing.T) {
		if r := a.get("/api/v1/holds/" + liveHold); r.str("state") != "HELD" {
			t.Fatalf("A's hold = %s", r)
		}
		if r := a.get("/api/v1/bookings/" + booking); r.str("status") != "CONFIRMED" {
			t.Fatalf("A's booking = %s", r)
		}
	})

	t.Run("a guest must sign in", func(t *testing.T) {
		guest := e.guest()
		for _, r := range []req{
			{"GET", "/api/v1/me", nil, nil},
			{"POST", fmt.Sprintf("/api/v1/shows/%d/holds", e.show), `{"seats":["A3"]}`, map[string]string{"Idempotency-Key": "g"}},
			{"GET", "/api/v1/holds/" + liveHold, nil, nil},
			{"DELETE", "/api/v1/holds/" + liveHold, nil, nil},
			{"POST", "/api/v1/holds/" + liveHold + "/checkout", nil, nil},
			{"GET", "/api/v1/bookings", nil, nil},
			{"GET", "/api/v1/bookings/" + booking, nil, nil},
			{"POST", "/api/v1/bookings/" + booking + "/cancel", nil, nil},
		} {
			t.Run(r.method+" "+r.path, func(t *testing.T) {
				wantError(t, guest.send(r), http.StatusUnauthorized, "unauthenticated")
			})
		}
	})

	t.Run("a forged session cookie is a guest", func(t *testing.T) {
		forged := e.guest()
		r := forged.send(req{method: "GET", path: "/api/v1/bookings", header: map[string]string{"Cookie": "marquee_session=forged-token"}})
		wantError(t, r, http.StatusUnauthorized, "unauthenticated")
	})
}
