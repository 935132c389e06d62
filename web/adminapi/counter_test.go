package adminapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestCounterSaleAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	desk, _ := e.Staff(t, auth.StaffBoxOffice, e.Venue.TheatreID)
	path := fmt.Sprintf("/api/v1/admin/shows/%d/sales", e.Show)
	sell := func(key string, body map[string]any) *webtest.Response {
		return desk.Send(webtest.Req{Method: "POST", Path: path, Body: body, Header: map[string]string{"Idempotency-Key": key}})
	}

	r := sell("s1", map[string]any{"seats": []string{"A1", "A2"}, "paid_by": "cash", "customer": map[string]any{"name": "Ada", "email": "ada@example.com"}})
	webtest.Want(t, r, http.StatusCreated)
	if r.Str("status") != "CONFIRMED" || r.Str("channel") != "box_office" || r.JSON["amount_minor"].(float64) <= 0 ||
		!strings.HasPrefix(r.Str("code"), "MQ1.") {
		t.Fatalf("sale = %s", r)
	}
	again := sell("s1", map[string]any{"seats": []string{"A1", "A2"}, "paid_by": "cash", "customer": map[string]any{"name": "Ada", "email": "ada@example.com"}})
	webtest.Want(t, again, http.StatusCreated)
	if again.Str("booking_id") != r.Str("booking_id") {
		t.Fatalf("a retry sold again: %s", again)
	}
	before := e.Snapshot(t)
	webtest.WantError(t, sell("s2", map[string]any{"seats": []string{"B1"}, "paid_by": "complimentary", "customer": map[string]any{"name": "Press"}}),
		http.StatusUnprocessableEntity, "invalid_reason")
	webtest.WantError(t, sell("s3", map[string]any{"seats": []string{"A2"}, "paid_by": "card", "customer": map[string]any{"name": "Bo"}}),
		http.StatusConflict, "seats_unavailable")
	if after := e.Snapshot(t); after != before {
		t.Fatal("a refused sale changed something")
	}
	r = sell("s4", map[string]any{"seats": []string{"B1"}, "paid_by": "complimentary", "customer": map[string]any{"name": "Press"}, "reason": "Critic"})
	webtest.Want(t, r, http.StatusCreated)
	if r.Str("channel") != "complimentary" || r.JSON["amount_minor"] != float64(0) {
		t.Fatalf("complimentary = %s", r)
	}
	// The ticket of a sale checks in at the door.
	usher, _ := e.Staff(t, auth.StaffUsher, e.Venue.TheatreID)
	in := usher.Post(fmt.Sprintf("/api/v1/admin/shows/%d/checkins", e.Show), map[string]any{"code": r.Str("code")})
	webtest.Want(t, in, http.StatusOK)
	if in.Str("name") != "Press" {
		t.Fatalf("admitted = %s", in)
	}

	// The attendees: every confirmed booking, who came in, as JSON and CSV.
	list := desk.Get(fmt.Sprintf("/api/v1/admin/shows/%d/attendees", e.Show))
	webtest.Want(t, list, http.StatusOK)
	attendees := list.JSON["attendees"].([]any)
	if len(attendees) != 2 {
		t.Fatalf("attendees = %s", list)
	}
	for _, a := range attendees {
		a := a.(map[string]any)
		switch a["name"] {
		case "Ada":
			if a["email"] != "ada@example.com" || a["channel"] != "box_office" || a["checked_in_at"] != nil {
				t.Fatalf("Ada = %v", a)
			}
		case "Press":
			if a["channel"] != "complimentary" || a["checked_in_at"] == nil {
				t.Fatalf("Press = %v", a)
			}
		default:
			t.Fatalf("attendee %v", a)
		}
	}
	csv := desk.Send(webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/shows/%d/attendees", e.Show),
		Header: map[string]string{"Accept": "text/csv"}})
	webtest.Want(t, csv, http.StatusOK)
	if body := string(csv.Body); !strings.HasPrefix(body, "booking_id,name,email,seats,channel,checked_in_at (") ||
		!strings.Contains(body, "Ada,ada@example.com,A1 A2,box_office,") {
		t.Fatalf("CSV = %q", body)
	}
	webtest.Want(t, usher.Get(fmt.Sprintf("/api/v1/admin/shows/%d/attendees", e.Show)), http.StatusForbidden)
}
