package adminapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestCheckInAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	usher, u := e.Staff(t, auth.StaffUsher, e.Venue.TheatreID)
	other := e.NewShow(t)
	path := fmt.Sprintf("/api/v1/admin/shows/%d/checkins", e.Show)
	b := e.Book(t, e.Show, "A1", "A2")
	if !strings.HasPrefix(b.Code, "MQ1.") {
		t.Fatalf("the booking's code %q is not a signed code", b.Code)
	}

	r := usher.Post(path, map[string]any{"code": b.Code, "gate": "Main door"})
	webtest.Want(t, r, http.StatusOK)
	if r.Str("result") != "ADMITTED" || r.Str("booking_id") != b.ID || r.Str("name") == "" || r.Str("admitted_at") == "" ||
		fmt.Sprint(r.JSON["seats"]) != "[A1 A2]" {
		t.Fatalf("admitted = %s", r)
	}
	r = usher.Post(path, map[string]any{"code": b.Code})
	webtest.WantError(t, r, http.StatusConflict, "already_admitted")
	if r.Str("by") != u.Name || r.Str("gate") != "Main door" || r.Str("admitted_at") == "" {
		t.Fatalf("again = %s", r)
	}

	o := e.Book(t, other, "A1")
	r = usher.Post(path, map[string]any{"code": o.Code})
	webtest.WantError(t, r, http.StatusConflict, "wrong_show")
	if r.JSON["show_id"] != float64(other) {
		t.Fatalf("wrong show = %s", r)
	}

	c := e.Book(t, e.Show, "B1")
	webtest.Want(t, c.Owner.Post("/api/v1/bookings/"+c.ID+"/cancel", nil), http.StatusOK)
	webtest.WantError(t, usher.Post(path, map[string]any{"code": c.Code}), http.StatusConflict, "ticket_cancelled")

	forged := b.Code[:strings.LastIndex(b.Code, ".")+1] + strings.Repeat("A", 86)
	before := e.Count(t, `SELECT count(*) FROM checkins`)
	webtest.WantError(t, usher.Post(path, map[string]any{"code": forged}), http.StatusNotFound, "unknown_ticket")
	webtest.WantError(t, usher.Post(path, map[string]any{"code": "NOSUCHCODE"}), http.StatusNotFound, "unknown_ticket")
	if after := e.Count(t, `SELECT count(*) FROM checkins`); after != before {
		t.Fatalf("a forged code changed the admissions: %d -> %d", before, after)
	}

	// The door list a phone downloads: the tickets and the public keys.
	r = usher.Get(fmt.Sprintf("/api/v1/admin/shows/%d/door", e.Show))
	webtest.Want(t, r, http.StatusOK)
	if r.JSON["admitted"] != float64(1) || len(r.JSON["tickets"].([]any)) != 2 || len(r.JSON["keys"].([]any)) != 1 {
		t.Fatalf("door = %s", r)
	}
}

func TestStaffAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	manager := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	id := pgtest.User(t, e.Store)
	email := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT email FROM users WHERE id = $1`, id)
	path := fmt.Sprintf("/api/v1/admin/theatres/%d/staff", e.Venue.TheatreID)

	r := manager.Post(path, map[string]any{"email": email, "role": "box_office"})
	webtest.Want(t, r, http.StatusCreated)
	if r.Str("user_id") != id || r.Str("email") != email || r.Str("role") != "box_office" || r.JSON["theatre_id"] != float64(e.Venue.TheatreID) {
		t.Fatalf("grant = %s", r)
	}
	r = manager.Post(path, map[string]any{"email": email, "role": "usher"})
	webtest.Want(t, r, http.StatusCreated)
	if r.Str("role") != "usher" {
		t.Fatalf("change = %s", r)
	}
	before := e.Snapshot(t)
	webtest.WantError(t, manager.Post(path, map[string]any{"email": email, "role": "owner"}), http.StatusUnprocessableEntity, "invalid_role")
	webtest.WantError(t, manager.Post(path, map[string]any{"email": "nobody@example.com", "role": "usher"}), http.StatusUnprocessableEntity, "unknown_account")
	if after := e.Snapshot(t); after != before {
		t.Fatal("a refused grant changed something")
	}
	r = manager.Get(path)
	webtest.Want(t, r, http.StatusOK)
	if staff := r.JSON["staff"].([]any); len(staff) != 2 || staff[1].(map[string]any)["role"] != "usher" {
		t.Fatalf("staff = %s", r)
	}
	webtest.Want(t, manager.Delete(path+"/"+id), http.StatusNoContent)
	if role := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT role FROM users WHERE id = $1`, id); role != "moviegoer" {
		t.Fatalf("revoked usher is %s", role)
	}
}
