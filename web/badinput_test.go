package web_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"
)

// Every endpoint refuses garbage with a clear 4xx JSON error and leaves the
// database exactly as it was.
func TestBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.user(t)
	// Some state for the refusals to leave alone: a booking and a live hold.
	e.pay(t, e.user(t).mustHold(t, "J1"))
	c.mustHold(t, "J2")

	holds := fmt.Sprintf("/api/v1/shows/%d/holds", e.show)
	key := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }
	seats := func(ids ...string) map[string][]string { return map[string][]string{"seats": ids} }
	many := make([]string, maxSeats+1)
	for i := range many {
		many[i] = fmt.Sprintf("B%d", i+1)
	}
	oversize := `{"seats":["A1"]` + strings.Repeat(" ", 65<<10) + `}`
	const uuid = "6f1c1d2e-0000-4000-8000-000000000001"

	// A second user, so that "one active hold per user" does not decide the
	// Hold cases: c already holds J2.
	h := e.user(t)

	cases := []struct {
		name   string
		as     *client
		req    req
		status int
		code   string
	}{
		// Holds: the seats.
		{"hold with an empty seat list", h, req{"POST", holds, seats(), key("k1")}, 422, "no_seats"},
		{"hold without seats", h, req{"POST", holds, "{}", key("k2")}, 422, "no_seats"},
		{"hold with null seats", h, req{"POST", holds, `{"seats":null}`, key("k2n")}, 422, "no_seats"},
		{"hold with a duplicate seat", h, req{"POST", holds, seats("A1", "A2", "A1"), key("k3")}, 422, "duplicate_seats"},
		{"hold with an unknown seat", h, req{"POST", holds, seats("A1", "Z99"), key("k4")}, 422, "unknown_seats"},
		{"hold with too many seats", h, req{"POST", holds, seats(many...), key("k5")}, 422, "too_many_seats"},
		{"hold with an impossible seat id", h, req{"POST", holds, seats("A 1"), key("k6")}, 422, "invalid_seat"},
		{"hold with a NUL in a seat id", h, req{"POST", holds, seats("A\x001"), key("k6n")}, 422, "invalid_seat"},
		{"hold of seats already held", h, req{"POST", holds, seats("J2", "A1"), key("k6t")}, 409, "seats_unavailable"},
		{"hold of seats already booked", h, req{"POST", holds, seats("J1"), key("k6b")}, 409, "seats_unavailable"},
		{"hold while holding other seats", c, req{"POST", holds, seats("A1"), key("k6a")}, 409, "active_hold_exists"},
		// Holds: the body.
		{"hold with malformed JSON", h, req{"POST", holds, `{"seats":["A1"`, key("k7")}, 400, "malformed_json"},
		{"hold with trailing garbage", h, req{"POST", holds, `{"seats":["A1"]} junk`, key("k8")}, 400, "malformed_json"},
		{"hold with two objects", h, req{"POST", holds, `{"seats":["A1"]}{"seats":["A2"]}`, key("k8b")}, 400, "malformed_json"},
		{"hold with an unknown field", h, req{"POST", holds, `{"seats":["A1"],"vip":true}`, key("k9")}, 400, "unknown_field"},
		{"hold with seats as a string", h, req{"POST", holds, `{"seats":"A1"}`, key("k10")}, 400, "invalid_field_type"},
		{"hold with a list body", h, req{"POST", holds, `["A1"]`, key("k11")}, 400, "malformed_json"},
		{"hold with an empty body", h, req{"POST", holds, "", key("k12")}, 400, "body_required"},
		{"hold sent as text", h, req{"POST", holds, `{"seats":["A1"]}`, map[string]string{"Idempotency-Key": "k13", "Content-Type": "text/plain"}}, 415, "unsupported_media_type"},
		{"hold sent as a form", h, req{"POST", holds, "seats=A1", map[string]string{"Idempotency-Key": "k14", "Content-Type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"},
		{"hold without a content type", h, req{"POST", holds, `{"seats":["A1"]}`, map[string]string{"Idempotency-Key": "k15", "Content-Type": ""}}, 415, "unsupported_media_type"},
		{"hold over 64 KiB", h, req{"POST", holds, oversize, key("k16")}, 413, "body_too_large"},
		{"hold over 64 KiB, streamed", h, req{"POST", holds, io.MultiReader(strings.NewReader(oversize)), key("k17")}, 413, "body_too_large"},
		// Holds: the key.
		{"hold without an Idempotency-Key", h, req{"POST", holds, seats("A1"), nil}, 400, "idempotency_key_required"},
		{"hold with a blank Idempotency-Key", h, req{"POST", holds, seats("A1"), key(" ")}, 400, "idempotency_key_required"},
		{"hold with a tab in the Idempotency-Key", h, req{"POST", holds, seats("A1"), key("a\tb")}, 400, "invalid_idempotency_key"},
		{"hold with a 256-character Idempotency-Key", h, req{"POST", holds, seats("A1"), key(strings.Repeat("k", 256))}, 400, "invalid_idempotency_key"},
		{"hold with a non-ASCII Idempotency-Key", h, req{"POST", holds, seats("A1"), key("clé")}, 400, "invalid_idempotency_key"},
		// Holds: the show.
		{"hold for an unknown show", h, req{"POST", "/api/v1/shows/999999/holds", seats("A1"), key("k20")}, 404, "not_found"},
		{"hold for a non-numeric show id", h, req{"POST", "/api/v1/shows/abc/holds", seats("A1"), key("k21")}, 404, "not_found"},
		{"hold for show 0", h, req{"POST", "/api/v1/shows/0/holds", seats("A1"), key("k22")}, 404, "not_found"},
		{"hold for a negative show id", h, req{"POST", "/api/v1/shows/-1/holds", seats("A1"), key("k23")}, 404, "not_found"},
		{"hold for a show id past int64", h, req{"POST", "/api/v1/shows/99999999999999999999/holds", seats("A1"), key("k24")}, 404, "not_found"},
		// Holds by id.
		{"get a garbage hold id", c, req{"GET", "/api/v1/holds/nope", nil, nil}, 404, "not_found"},
		{"get an unknown hold", c, req{"GET", "/api/v1/holds/" + uuid, nil, nil}, 404, "not_found"},
		{"release a garbage hold id", c, req{"DELETE", "/api/v1/holds/%27;drop", nil, nil}, 404, "not_found"},
		{"release an unknown hold", c, req{"DELETE", "/api/v1/holds/" + uuid, nil, nil}, 404, "not_found"},
		{"checkout of a garbage hold id", c, req{"POST", "/api/v1/holds/x/checkout", nil, nil}, 404, "not_found"},
		{"checkout of an unknown hold", c, req{"POST", "/api/v1/holds/" + uuid + "/checkout", "{}", nil}, 404, "not_found"},
		{"checkout with a body", c, req{"POST", "/api/v1/holds/" + uuid + "/checkout", `{"x":1}`, nil}, 400, "unknown_field"},
		// Bookings.
		{"get a garbage booking id", c, req{"GET", "/api/v1/bookings/1", nil, nil}, 404, "not_found"},
		{"get an unknown booking", c, req{"GET", "/api/v1/bookings/" + uuid, nil, nil}, 404, "not_found"},
		{"cancel a garbage booking id", c, req{"POST", "/api/v1/bookings/zzz/cancel", nil, nil}, 404, "not_found"},
		{"cancel an unknown booking", c, req{"POST", "/api/v1/bookings/" + uuid + "/cancel", nil, nil}, 404, "not_found"},
		{"cancel with a text body", c, req{"POST", "/api/v1/bookings/" + uuid + "/cancel", "please", map[string]string{"Content-Type": "text/plain"}}, 415, "unsupported_media_type"},
		{"cancel with an unknown field", c, req{"POST", "/api/v1/bookings/" + uuid + "/cancel", `{"reason":"x"}`, nil}, 400, "unknown_field"},
		// Accounts.
		{"signup with a bad email", e.guest(), req{"POST", "/api/v1/signup", `{"email":"nope","password":"long enough","name":"N"}`, nil}, 422, "invalid_email"},
		{"signup with a NUL in the email", e.guest(), req{"POST", "/api/v1/signup", `{"email":"a\u0000@example.com","password":"long enough","name":"N"}`, nil}, 422, "invalid_email"},
		{"signup with a NUL in the name", e.guest(), req{"POST", "/api/v1/signup", `{"email":"nul@example.com","password":"long enough","name":"N\u0000"}`, nil}, 422, "invalid_name"},
		{"signup with a short password", e.guest(), req{"POST", "/api/v1/signup", `{"email":"a@example.com","password":"short","name":"N"}`, nil}, 422, "invalid_password"},
		{"signup with a 73-byte password", e.guest(), req{"POST", "/api/v1/signup", `{"email":"a@example.com","password":"` + strings.Repeat("p", 73) + `","name":"N"}`, nil}, 422, "invalid_password"},
		{"signup without a name", e.guest(), req{"POST", "/api/v1/signup", `{"email":"a@example.com","password":"long enough"}`, nil}, 422, "invalid_name"},
		{"signup with malformed JSON", e.guest(), req{"POST", "/api/v1/signup", `{"email":`, nil}, 400, "malformed_json"},
		{"signup sent as a form", e.guest(), req{"POST", "/api/v1/signup", "email=a", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"},
		{"login with a NUL in the email", e.guest(), req{"POST", "/api/v1/login", `{"email":"\u0000","password":"x"}`, nil}, 401, "bad_credentials"},
		{"login without a body", e.guest(), req{"POST", "/api/v1/login", nil, nil}, 400, "body_required"},
		{"logout with an unknown field", c, req{"POST", "/api/v1/logout", `{"all":true}`, nil}, 400, "unknown_field"},
		// Browsing.
		{"shows with a junk limit", e.guest(), req{"GET", "/api/v1/shows?limit=ten", nil, nil}, 400, "invalid_query"},
		{"shows with limit 0", e.guest(), req{"GET", "/api/v1/shows?limit=0", nil, nil}, 400, "invalid_query"},
		{"shows with limit 501", e.guest(), req{"GET", "/api/v1/shows?limit=501", nil, nil}, 400, "invalid_query"},
		{"shows with a junk cursor", e.guest(), req{"GET", "/api/v1/shows?cursor=%25%25%25", nil, nil}, 400, "invalid_query"},
		{"shows with a cursor of the wrong size", e.guest(), req{"GET", "/api/v1/shows?cursor=" + base64.RawURLEncoding.EncodeToString([]byte("short")), nil, nil}, 400, "invalid_query"},
		{"shows with a junk date", e.guest(), req{"GET", "/api/v1/shows?date=2026-13-45", nil, nil}, 400, "invalid_query"},
		{"shows on the year 0", e.guest(), req{"GET", "/api/v1/shows?date=0000-01-01", nil, nil}, 400, "invalid_query"},
		{"shows with a junk movie", e.guest(), req{"GET", "/api/v1/shows?movie=x", nil, nil}, 400, "invalid_query"},
		{"shows with a junk theatre", e.guest(), req{"GET", "/api/v1/shows?theatre=-1", nil, nil}, 400, "invalid_query"},
		{"shows with a NUL in the city", e.guest(), req{"GET", "/api/v1/shows?city=a%00b", nil, nil}, 400, "invalid_query"},
		{"seat map of a non-numeric show", e.guest(), req{"GET", "/api/v1/shows/abc/seats", nil, nil}, 404, "not_found"},
		{"seat map of an unknown show", e.guest(), req{"GET", "/api/v1/shows/424242/seats", nil, nil}, 404, "not_found"},
		// Routing.
		{"unknown route", e.guest(), req{"GET", "/api/v1/nothing-here", nil, nil}, 404, "not_found"},
		{"unknown route outside the API", e.guest(), req{"GET", "/nothing-here", nil, nil}, 404, "not_found"},
		{"wrong method", c, req{"PUT", "/api/v1/holds/" + uuid, "{}", nil}, 405, "method_not_allowed"},
		{"wrong method on the webhook", e.guest(), req{"GET", "/payments/webhook", nil, nil}, 405, "method_not_allowed"},
	}
	before := e.snapshot(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, tc.as.send(tc.req), tc.status, tc.code)
			if after := e.snapshot(t); after != before {
				t.Fatalf("database changed:\n before %s\n after  %s", before, after)
			}
		})
	}
}
