package api_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"
)

// Another user's hold or booking does not exist, on every verb; a guest is
// told to sign in.
func TestAuthorization(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	a, b := e.User(t), e.User(t)
	paidHold := a.MustHold(t, "A1")
	booking := e.Pay(t, paidHold).Str("booking_id")
	liveHold := a.MustHold(t, "A2").Str("hold_id")
	const unknown = "6f1c1d2e-0000-4000-8000-000000000001"

	t.Run("user B cannot see or touch user A's holds and bookings", func(t *testing.T) {
		before := e.Snapshot(t)
		for _, tc := range []struct{ name, method, path, other string }{
			{"get a live hold", "GET", "/api/v1/holds/" + liveHold, "/api/v1/holds/" + unknown},
			{"get a paid hold", "GET", "/api/v1/holds/" + paidHold.Str("hold_id"), "/api/v1/holds/" + unknown},
			{"release a live hold", "DELETE", "/api/v1/holds/" + liveHold, "/api/v1/holds/" + unknown},
			{"release a paid hold", "DELETE", "/api/v1/holds/" + paidHold.Str("hold_id"), "/api/v1/holds/" + unknown},
			{"checkout a live hold", "POST", "/api/v1/holds/" + liveHold + "/checkout", "/api/v1/holds/" + unknown + "/checkout"},
			{"get a booking", "GET", "/api/v1/bookings/" + booking, "/api/v1/bookings/" + unknown},
			{"cancel a booking", "POST", "/api/v1/bookings/" + booking + "/cancel", "/api/v1/bookings/" + unknown + "/cancel"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := b.Send(webtest.Req{Method: tc.method, Path: tc.path})
				webtest.WantError(t, r, http.StatusNotFound, "not_found")
				// Exactly the answer for an id that names nothing.
				if other := b.Send(webtest.Req{Method: tc.method, Path: tc.other}); string(other.Body) != string(r.Body) {
					t.Fatalf("someone else's: %s\nnobody's: %s", r, other)
				}
			})
		}
		if after := e.Snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
		if r := b.Get("/api/v1/bookings"); len(r.JSON["bookings"].([]any)) != 0 {
			t.Fatalf("B's bookings = %s", r)
		}
	})

	t.Run("A still has both", func(t *testing.T) {
		if r := a.Get("/api/v1/holds/" + liveHold); r.Str("state") != "HELD" {
			t.Fatalf("A's hold = %s", r)
		}
		if r := a.Get("/api/v1/bookings/" + booking); r.Str("status") != "CONFIRMED" {
			t.Fatalf("A's booking = %s", r)
		}
	})

	t.Run("a guest must sign in", func(t *testing.T) {
		guest := e.Guest()
		for _, r := range []webtest.Req{
			{Method: "GET", Path: "/api/v1/me"},
			{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", e.Show), Body: `{"seats":["A3"]}`, Header: map[string]string{"Idempotency-Key": "g"}},
			{Method: "GET", Path: "/api/v1/holds/" + liveHold},
			{Method: "DELETE", Path: "/api/v1/holds/" + liveHold},
		} {
			t.Run(r.Method+" "+r.Path, func(t *testing.T) {
				webtest.WantError(t, guest.Send(r), http.StatusUnauthorized, "unauthenticated")
			})
		}
	})

	t.Run("a forged session cookie is a guest", func(t *testing.T) {
		forged := e.Guest()
		r := forged.Send(webtest.Req{Method: "GET", Path: "/api/v1/bookings", Header: map[string]string{"Cookie": "marquee_session=forged-token"}})
		webtest.WantError(t, r, http.StatusUnauthorized, "unauthenticated")
	})
}
