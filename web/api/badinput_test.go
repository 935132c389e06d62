package api_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"
)

// Every endpoint refuses garbage with a clear 4xx JSON error and leaves the
// database exactly as it was.
func TestBadInput(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	c := e.User(t)
	// Some state for the refusals to leave alone: a booking and a live hold.
	e.Pay(t, e.User(t).MustHold(t, "J1"))
	c.MustHold(t, "J2")

	holds := fmt.Sprintf("/api/v1/shows/%d/holds", e.Show)
	key := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }
	seats := func(ids ...string) map[string][]string { return map[string][]string{"seats": ids} }
	many := make([]string, webtest.MaxSeats+1)
	for i := range many {
		many[i] = fmt.Sprintf("B%d", i+1)
	}
	oversize := `{"seats":["A1"]` + strings.Repeat(" ", 65<<10) + `}`
	const uuid = "6f1c1d2e-0000-4000-8000-000000000001"

	// A second user, so that "one active hold per user" does not decide the
	// Hold cases: c already holds J2.
	h := e.User(t)

	cases := []struct {
		name   string
		as     *webtest.Client
		req    webtest.Req
		status int
		code   string
	}{
		// Holds: the seats.
		{"hold with an empty seat list", h, webtest.Req{Method: "POST", Path: holds, Body: seats(), Header: key("k1")}, 422, "no_seats"},
		{"hold without seats", h, webtest.Req{Method: "POST", Path: holds, Body: "{}", Header: key("k2")}, 422, "no_seats"},
		{"hold with null seats", h, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":null}`, Header: key("k2n")}, 422, "no_seats"},
		{"hold with a duplicate seat", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A1", "A2", "A1"), Header: key("k3")}, 422, "duplicate_seats"},
		{"hold with an unknown seat", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A1", "Z99"), Header: key("k4")}, 422, "unknown_seats"},
		{"hold with too many seats", h, webtest.Req{Method: "POST", Path: holds, Body: seats(many...), Header: key("k5")}, 422, "too_many_seats"},
		{"hold with an impossible seat id", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A 1"), Header: key("k6")}, 422, "invalid_seat"},
		{"hold with a NUL in a seat id", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A\x001"), Header: key("k6n")}, 400, "invalid_text"},
		{"hold of seats already held", h, webtest.Req{Method: "POST", Path: holds, Body: seats("J2", "A1"), Header: key("k6t")}, 409, "seats_unavailable"},
		{"hold of seats already booked", h, webtest.Req{Method: "POST", Path: holds, Body: seats("J1"), Header: key("k6b")}, 409, "seats_unavailable"},
		{"hold while holding other seats", c, webtest.Req{Method: "POST", Path: holds, Body: seats("A1"), Header: key("k6a")}, 409, "active_hold_exists"},
		// Holds: the body.
		{"hold with malformed JSON", h, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A1"`, Header: key("k7")}, 400, "malformed_json"},
		{"hold with trailing garbage", h, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A1"]} junk`, Header: key("k8")}, 400, "malformed_json"},
		{"hold with two objects", h, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A1"]}{"seats":["A2"]}`, Header: key("k8b")}, 400, "malformed_json"},
		{"hold with an unknown field", h, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A1"],"vip":true}`, Header: key("k9")}, 400, "unknown_field"},
		{"hold with seats as a string", h, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":"A1"}`, Header: key("k10")}, 400, "invalid_field_type"},
		{"hold with a list body", h, webtest.Req{Method: "POST", Path: holds, Body: `["A1"]`, Header: key("k11")}, 400, "malformed_json"},
		{"hold with an empty body", h, webtest.Req{Method: "POST", Path: holds, Body: "", Header: key("k12")}, 400, "body_required"},
		{"hold sent as text", h, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A1"]}`, Header: map[string]string{"Idempotency-Key": "k13", "Content-Type": "text/plain"}}, 415, "unsupported_media_type"},
		{"hold sent as a form", h, webtest.Req{Method: "POST", Path: holds, Body: "seats=A1", Header: map[string]string{"Idempotency-Key": "k14", "Content-Type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"},
		{"hold without a content type", h, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A1"]}`, Header: map[string]string{"Idempotency-Key": "k15", "Content-Type": ""}}, 415, "unsupported_media_type"},
		{"hold over 64 KiB", h, webtest.Req{Method: "POST", Path: holds, Body: oversize, Header: key("k16")}, 413, "body_too_large"},
		{"hold over 64 KiB, streamed", h, webtest.Req{Method: "POST", Path: holds, Body: io.MultiReader(strings.NewReader(oversize)), Header: key("k17")}, 413, "body_too_large"},
		// Holds: the key.
		{"hold without an Idempotency-Key", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A1"), Header: nil}, 400, "idempotency_key_required"},
		{"hold with a blank Idempotency-Key", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A1"), Header: key(" ")}, 400, "idempotency_key_required"},
		{"hold with a tab in the Idempotency-Key", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A1"), Header: key("a\tb")}, 400, "invalid_idempotency_key"},
		{"hold with a 256-character Idempotency-Key", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A1"), Header: key(strings.Repeat("k", 256))}, 400, "invalid_idempotency_key"},
		{"hold with a non-ASCII Idempotency-Key", h, webtest.Req{Method: "POST", Path: holds, Body: seats("A1"), Header: key("clé")}, 400, "invalid_idempotency_key"},
		// Holds: the show.
		{"hold for an unknown show", h, webtest.Req{Method: "POST", Path: "/api/v1/shows/999999/holds", Body: seats("A1"), Header: key("k20")}, 404, "not_found"},
		{"hold for a non-numeric show id", h, webtest.Req{Method: "POST", Path: "/api/v1/shows/abc/holds", Body: seats("A1"), Header: key("k21")}, 404, "not_found"},
		{"hold for show 0", h, webtest.Req{Method: "POST", Path: "/api/v1/shows/0/holds", Body: seats("A1"), Header: key("k22")}, 404, "not_found"},
		{"hold for a negative show id", h, webtest.Req{Method: "POST", Path: "/api/v1/shows/-1/holds", Body: seats("A1"), Header: key("k23")}, 404, "not_found"},
		{"hold for a show id past int64", h, webtest.Req{Method: "POST", Path: "/api/v1/shows/99999999999999999999/holds", Body: seats("A1"), Header: key("k24")}, 404, "not_found"},
		// Holds by id.
		{"get a garbage hold id", c, webtest.Req{Method: "GET", Path: "/api/v1/holds/nope", Body: nil, Header: nil}, 404, "not_found"},
		{"get an unknown hold", c, webtest.Req{Method: "GET", Path: "/api/v1/holds/" + uuid, Body: nil, Header: nil}, 404, "not_found"},
		{"release a garbage hold id", c, webtest.Req{Method: "DELETE", Path: "/api/v1/holds/%27;drop", Body: nil, Header: nil}, 404, "not_found"},
		{"release an unknown hold", c, webtest.Req{Method: "DELETE", Path: "/api/v1/holds/" + uuid, Body: nil, Header: nil}, 404, "not_found"},
		{"checkout of a garbage hold id", c, webtest.Req{Method: "POST", Path: "/api/v1/holds/x/checkout", Body: nil, Header: nil}, 404, "not_found"},
		{"checkout of an unknown hold", c, webtest.Req{Method: "POST", Path: "/api/v1/holds/" + uuid + "/checkout", Body: "{}", Header: nil}, 404, "not_found"},
		{"checkout with a body", c, webtest.Req{Method: "POST", Path: "/api/v1/holds/" + uuid + "/checkout", Body: `{"x":1}`, Header: nil}, 400, "unknown_field"},
		// Bookings.
		{"get a garbage booking id", c, webtest.Req{Method: "GET", Path: "/api/v1/bookings/1", Body: nil, Header: nil}, 404, "not_found"},
		{"get an unknown booking", c, webtest.Req{Method: "GET", Path: "/api/v1/bookings/" + uuid, Body: nil, Header: nil}, 404, "not_found"},
		{"cancel a garbage booking id", c, webtest.Req{Method: "POST", Path: "/api/v1/bookings/zzz/cancel", Body: nil, Header: nil}, 404, "not_found"},
		{"cancel an unknown booking", c, webtest.Req{Method: "POST", Path: "/api/v1/bookings/" + uuid + "/cancel", Body: nil, Header: nil}, 404, "not_found"},
		{"cancel with a text body", c, webtest.Req{Method: "POST", Path: "/api/v1/bookings/" + uuid + "/cancel", Body: "please", Header: map[string]string{"Content-Type": "text/plain"}}, 415, "unsupported_media_type"},
		{"cancel with an unknown field", c, webtest.Req{Method: "POST", Path: "/api/v1/bookings/" + uuid + "/cancel", Body: `{"reason":"x"}`, Header: nil}, 400, "unknown_field"},
		// Accounts.
		{"signup with a bad email", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"nope","password":"long enough","name":"N"}`, Header: nil}, 422, "invalid_email"},
		{"signup with a NUL in the email", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"a\u0000@example.com","password":"long enough","name":"N"}`, Header: nil}, 400, "invalid_text"},
		{"signup with a NUL in the name", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"nul@example.com","password":"long enough","name":"N\u0000"}`, Header: nil}, 400, "invalid_text"},
		{"signup with a short password", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"a@example.com","password":"short","name":"N"}`, Header: nil}, 422, "invalid_password"},
		{"signup with a 73-byte password", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"a@example.com","password":"` + strings.Repeat("p", 73) + `","name":"N"}`, Header: nil}, 422, "invalid_password"},
		{"signup without a name", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"a@example.com","password":"long enough"}`, Header: nil}, 422, "invalid_name"},
		{"signup with malformed JSON", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":`, Header: nil}, 400, "malformed_json"},
		{"signup sent as a form", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: "email=a", Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"},
		{"login with a NUL in the email", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/login", Body: `{"email":"\u0000","password":"x"}`, Header: nil}, 400, "invalid_text"},
		{"login without a body", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/login", Body: nil, Header: nil}, 400, "body_required"},
		{"logout with an unknown field", c, webtest.Req{Method: "POST", Path: "/api/v1/logout", Body: `{"all":true}`, Header: nil}, 400, "unknown_field"},
		// Browsing.
		{"shows with a junk limit", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?limit=ten", Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows with limit 0", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?limit=0", Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows with limit 501", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?limit=501", Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows with a junk cursor", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?cursor=%25%25%25", Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows with a cursor of the wrong size", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?cursor=" + base64.RawURLEncoding.EncodeToString([]byte("short")), Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows with a junk date", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?date=2026-13-45", Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows on the year 0", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?date=0000-01-01", Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows with a junk movie", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?movie=x", Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows with a junk theatre", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?theatre=-1", Body: nil, Header: nil}, 400, "invalid_query"},
		{"shows with a NUL in the city", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?city=a%00b", Body: nil, Header: nil}, 400, "invalid_text"},
		{"seat map of a non-numeric show", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows/abc/seats", Body: nil, Header: nil}, 404, "not_found"},
		{"seat map of an unknown show", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows/424242/seats", Body: nil, Header: nil}, 404, "not_found"},
		// Routing.
		{"unknown route", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/nothing-here", Body: nil, Header: nil}, 404, "not_found"},
		{"unknown route outside the API", e.Guest(), webtest.Req{Method: "GET", Path: "/nothing-here", Body: nil, Header: nil}, 404, "not_found"},
		{"wrong method", c, webtest.Req{Method: "PUT", Path: "/api/v1/holds/" + uuid, Body: "{}", Header: nil}, 405, "method_not_allowed"},
		{"wrong method on the webhook", e.Guest(), webtest.Req{Method: "GET", Path: "/payments/webhook", Body: nil, Header: nil}, 405, "method_not_allowed"},
	}
	before := e.Snapshot(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			webtest.WantError(t, tc.as.Send(tc.req), tc.status, tc.code)
			if after := e.Snapshot(t); after != before {
				t.Fatalf("database changed:\n before %s\n after  %s", before, after)
			}
		})
	}
}
