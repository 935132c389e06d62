package adminapi_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// matrix is the authorization matrix's world: two theatres, X and Y, each
// with a screen and a show, and one client of each kind of person.
type matrix struct {
	e         *webtest.Env
	x, y      pgtest.Venue
	guest     *webtest.Client
	moviegoer *webtest.Client
	adminX    *webtest.Client // theatre admin of X only
	adminY    *webtest.Client // theatre admin of Y only
	platform  *webtest.Client
	seq       int
}

// show is a fresh show of venue v, on a screen of its own, in three days
// plus a few minutes per call (so no two overlap), with its screen.
func (m *matrix) show(t *testing.T, v pgtest.Venue) (show, screen int64) {
	t.Helper()
	m.seq++
	show = pgtest.NewShow(t, m.e.Store, v, 3, 4, time.Now().Add(72*time.Hour+time.Duration(m.seq)*time.Minute))
	screen = pgtest.Scalar[int64](t, m.e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, show)
	return show, screen
}

func (m *matrix) screen(t *testing.T, v pgtest.Venue) int64 {
	_, screen := m.show(t, v)
	return screen
}

// layout is a valid seat layout of one row of n seats.
func layout(n int) []map[string]any {
	var seats []map[string]any
	for i := range n {
		seats = append(seats, map[string]any{
			"id": fmt.Sprintf("A%d", i+1), "row": "A", "number": i + 1, "category": "STANDARD",
			"grid_row": 0, "grid_col": i, "accessible": false,
		})
	}
	return seats
}

// route is one admin route: the request for an object of theatre X, made
// fresh for every caller (a cancel needs a show not yet cancelled), and
// what it needs: platformOnly, or the power a staff role of X must have.
type route struct {
	name string
	need admin.Power
	req  func(t *testing.T, m *matrix) webtest.Req
}

// platformOnly is a route only platform admins may use.
const platformOnly admin.Power = 0

var routes = []route{
	{"POST cities", platformOnly, func(t *testing.T, m *matrix) webtest.Req {
		m.seq++
		return webtest.Req{Method: "POST", Path: "/api/v1/admin/cities",
			Body: map[string]any{"name": "Nowhere", "slug": fmt.Sprintf("nowhere-%d-%d", m.seq, time.Now().UnixNano())}}
	}},
	{"POST theatres", platformOnly, func(t *testing.T, m *matrix) webtest.Req {
		m.seq++
		slug := pgtest.Scalar[string](t, m.e.Store.Pool(), `SELECT slug FROM cities WHERE id = $1`, m.x.CityID)
		return webtest.Req{Method: "POST", Path: "/api/v1/admin/theatres", Body: map[string]any{
			"city": slug, "name": fmt.Sprintf("Cinema %d", m.seq), "address": "1 Main St", "timezone": "Europe/London"}}
	}},
	{"POST theatre admins", platformOnly, func(t *testing.T, m *matrix) webtest.Req {
		// Someone else than the matrix's moviegoer, who must stay one.
		email := pgtest.Scalar[string](t, m.e.Store.Pool(), `SELECT email FROM users WHERE id = $1`, pgtest.User(t, m.e.Store))
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/theatres/%d/admins", m.x.TheatreID),
			Body: map[string]any{"email": email}}
	}},
	{"DELETE theatre admin", platformOnly, func(t *testing.T, m *matrix) webtest.Req {
		id := pgtest.User(t, m.e.Store)
		pgtest.Exec(t, m.e.Store.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, id)
		pgtest.Exec(t, m.e.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'manager')`, m.x.TheatreID, id)
		return webtest.Req{Method: "DELETE", Path: fmt.Sprintf("/api/v1/admin/theatres/%d/admins/%s", m.x.TheatreID, id)}
	}},
	{"GET audit", platformOnly, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "GET", Path: "/api/v1/admin/audit"}
	}},
	{"POST movies", platformOnly, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "POST", Path: "/api/v1/admin/movies", Body: map[string]any{
			"title": "A New Film", "duration_minutes": 100, "rating": "U", "language": "English", "synopsis": "New."}}
	}},
	{"PATCH movie", platformOnly, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "PATCH", Path: fmt.Sprintf("/api/v1/admin/movies/%d", m.x.MovieID),
			Body: map[string]any{"rating": "UA", "synopsis": "Edited."}}
	}},
	{"PUT movie poster", platformOnly, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "PUT", Path: fmt.Sprintf("/api/v1/admin/movies/%d/poster", m.x.MovieID),
			Body: tinyPNG(t), Header: map[string]string{"Content-Type": "image/png"}}
	}},

	{"GET theatre", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/theatres/%d", m.x.TheatreID)}
	}},
	{"PATCH theatre", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "PATCH", Path: fmt.Sprintf("/api/v1/admin/theatres/%d", m.x.TheatreID),
			Body: map[string]any{"address": "2 High St"}}
	}},
	{"POST screens", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		m.seq++
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/theatres/%d/screens", m.x.TheatreID),
			Body: map[string]any{"name": fmt.Sprintf("Audi %d", m.seq), "seats": layout(4)}}
	}},
	{"GET screen", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/screens/%d", m.screen(t, m.x))}
	}},
	{"PATCH screen", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		m.seq++
		return webtest.Req{Method: "PATCH", Path: fmt.Sprintf("/api/v1/admin/screens/%d", m.screen(t, m.x)),
			Body: map[string]any{"name": fmt.Sprintf("Renamed %d", m.seq)}}
	}},
	{"PUT screen seats", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "PUT", Path: fmt.Sprintf("/api/v1/admin/screens/%d/seats", m.screen(t, m.x)),
			Body: map[string]any{"seats": layout(5)}}
	}},
	{"POST shows", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		screen := m.screen(t, m.x)
		return webtest.Req{Method: "POST", Path: "/api/v1/admin/shows", Body: map[string]any{
			"screen_id": screen, "movie_id": m.x.MovieID,
			"starts_at": time.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339),
			"currency":  "INR", "prices": pgtest.Prices}}
	}},
	{"POST shows bulk", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		screen := m.screen(t, m.x)
		day := time.Now().Add(40 * 24 * time.Hour).Format(time.DateOnly)
		return webtest.Req{Method: "POST", Path: "/api/v1/admin/shows/bulk", Body: map[string]any{
			"screen_id": screen, "movie_id": m.x.MovieID, "from": day, "to": day, "times": []string{"10:00", "18:00"},
			"currency": "INR", "prices": pgtest.Prices}}
	}},
	{"GET theatre shows", admin.SeeShows, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/theatres/%d/shows", m.x.TheatreID)}
	}},
	{"PUT show prices", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		return webtest.Req{Method: "PUT", Path: fmt.Sprintf("/api/v1/admin/shows/%d/prices", show),
			Body: map[string]any{"prices": map[string]int64{"STANDARD": 30000, "PREMIUM": 50000}}}
	}},
	{"GET show", admin.SeeShows, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/shows/%d", show)}
	}},
	{"POST blocks", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/blocks", show),
			Body: map[string]any{"seats": []string{"A1"}}}
	}},
	{"DELETE blocks", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		return webtest.Req{Method: "DELETE", Path: fmt.Sprintf("/api/v1/admin/shows/%d/blocks", show),
			Body: map[string]any{"seats": []string{"A1"}}}
	}},
	{"POST show cancel", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/cancel", show)}
	}},
	{"POST show reschedule", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		at := pgtest.Scalar[time.Time](t, m.e.Store.Pool(), `SELECT starts_at FROM shows WHERE id = $1`, show)
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/reschedule", show),
			Body: map[string]any{"starts_at": at.Add(time.Hour).Format(time.RFC3339)}}
	}},
	{"GET theatre staff", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/theatres/%d/staff", m.x.TheatreID)}
	}},
	{"POST theatre staff", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		email := pgtest.Scalar[string](t, m.e.Store.Pool(), `SELECT email FROM users WHERE id = $1`, pgtest.User(t, m.e.Store))
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/theatres/%d/staff", m.x.TheatreID),
			Body: map[string]any{"email": email, "role": "usher"}}
	}},
	{"DELETE theatre staff", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		_, u := m.e.Staff(t, auth.StaffUsher, m.x.TheatreID)
		return webtest.Req{Method: "DELETE", Path: fmt.Sprintf("/api/v1/admin/theatres/%d/staff/%s", m.x.TheatreID, u.ID)}
	}},
	{"POST show sales", admin.Sell, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		m.seq++
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/sales", show),
			Header: map[string]string{"Idempotency-Key": fmt.Sprint("sale-", m.seq)},
			Body:   map[string]any{"seats": []string{"A1"}, "paid_by": "cash", "customer": map[string]any{"name": "Walk-in"}}}
	}},
	{"GET show attendees", admin.SeeAttendees, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/shows/%d/attendees", show)}
	}},
	{"GET show door", admin.CheckIn, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/shows/%d/door", show)}
	}},
	{"POST checkins", admin.CheckIn, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		code := m.e.Book(t, show, "A1").Code
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/checkins", show),
			Body: map[string]any{"code": code}}
	}},
	{"POST checkins sync", admin.CheckIn, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		return webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/checkins/sync", show),
			Body: map[string]any{"scans": []any{}}}
	}},
	{"GET bookings search", admin.Sell, func(t *testing.T, m *matrix) webtest.Req {
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/bookings?theatre_id=%d&q=Walk-in", m.x.TheatreID)}
	}},
	{"POST booking refund", admin.Sell, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		b := m.e.Book(t, show, "A1")
		return webtest.Req{Method: "POST", Path: "/api/v1/admin/bookings/" + b.ID + "/refund",
			Body: map[string]any{"full": true, "reason": "Asked at the desk"}}
	}},
	{"POST booking refund paid", admin.Sell, func(t *testing.T, m *matrix) webtest.Req {
		show, _ := m.show(t, m.x)
		m.seq++
		sold := m.platform.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/sales", show),
			Header: map[string]string{"Idempotency-Key": fmt.Sprint("paid-", m.seq)},
			Body:   map[string]any{"seats": []string{"A1"}, "paid_by": "cash", "customer": map[string]any{"name": "Walk-in"}}})
		webtest.Want(t, sold, http.StatusCreated)
		id := sold.Str("booking_id")
		webtest.Want(t, m.platform.Send(webtest.Req{Method: "POST", Path: "/api/v1/admin/bookings/" + id + "/refund",
			Body: map[string]any{"full": true, "reason": "Changed their mind"}}), http.StatusOK)
		return webtest.Req{Method: "POST", Path: "/api/v1/admin/bookings/" + id + "/refund/paid"}
	}},
	{"POST booking move", admin.Sell, func(t *testing.T, m *matrix) webtest.Req {
		from, _ := m.show(t, m.x)
		to, _ := m.show(t, m.x)
		b := m.e.Book(t, from, "A2")
		return webtest.Req{Method: "POST", Path: "/api/v1/admin/bookings/" + b.ID + "/move",
			Body: map[string]any{"show_id": to, "seats": []string{"A2"}}}
	}},
	{"GET sales report", admin.Manage, func(t *testing.T, m *matrix) webtest.Req {
		from := time.Now().Format(time.DateOnly)
		to := time.Now().Add(7 * 24 * time.Hour).Format(time.DateOnly)
		return webtest.Req{Method: "GET", Path: fmt.Sprintf("/api/v1/admin/reports/sales?theatre_id=%d&from=%s&to=%s", m.x.TheatreID, from, to)}
	}},
}

// tinyPNG is a 2x3 PNG.
func tinyPNG(t *testing.T) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 3))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAuthorizationMatrix sends every admin route as each kind of person:
// a guest gets 401, a moviegoer 403, a theatre admin 403 on what only a
// platform admin may do and 404 for an object of a theatre not theirs, and
// the admin of the object's theatre and a platform admin get through.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	m := &matrix{e: webtest.NewEnv(t)}
	m.x = m.e.Venue
	m.y = pgtest.NewVenue(t, m.e.Store)
	m.guest = m.e.Guest()
	m.moviegoer = m.e.Admin(t, auth.RoleMoviegoer)
	m.adminX = m.e.Admin(t, auth.RoleTheatreAdmin, m.x.TheatreID)
	m.adminY = m.e.Admin(t, auth.RoleTheatreAdmin, m.y.TheatreID)
	m.platform = m.e.Admin(t, auth.RolePlatformAdmin)

	type caller struct {
		name string
		c    *webtest.Client
		want func(r route) int // 0: any 2xx
	}
	callers := []caller{
		{"guest", m.guest, func(route) int { return http.StatusUnauthorized }},
		{"moviegoer", m.moviegoer, func(route) int { return http.StatusForbidden }},
		{"admin of Y", m.adminY, func(r route) int {
			if r.need == platformOnly {
				return http.StatusForbidden
			}
			return http.StatusNotFound
		}},
		{"admin of X", m.adminX, func(r route) int {
			if r.need == platformOnly {
				return http.StatusForbidden
			}
			return 0
		}},
		{"platform admin", m.platform, func(route) int { return 0 }},
	}
	for _, role := range []auth.StaffRole{auth.StaffBoxOffice, auth.StaffUsher} {
		c, _ := m.e.Staff(t, role, m.x.TheatreID)
		callers = append(callers, caller{string(role) + " of X", c, func(r route) int {
			if r.need != platformOnly && admin.RoleCan(role, r.need) {
				return 0
			}
			return http.StatusForbidden
		}})
	}
	for _, r := range routes {
		for _, c := range callers {
			resp := c.c.Send(r.req(t, m))
			want := c.want(r)
			switch {
			case want == 0 && (resp.Status < 200 || resp.Status > 299):
				t.Errorf("%s as %s: %s, want a 2xx", r.name, c.name, resp)
			case want != 0 && resp.Status != want:
				t.Errorf("%s as %s: %s, want %d", r.name, c.name, resp, want)
			case want != 0 && !strings.Contains(resp.Header.Get("Content-Type"), "json"):
				t.Errorf("%s as %s: %s answered %q, want JSON", r.name, c.name, resp, resp.Header.Get("Content-Type"))
			}
		}
	}

	// The list of theatres is every admin's; a guest or a moviegoer gets none.
	webtest.Want(t, m.guest.Get("/api/v1/admin/theatres"), http.StatusUnauthorized)
	webtest.Want(t, m.moviegoer.Get("/api/v1/admin/theatres"), http.StatusForbidden)
	for _, c := range callers[2:] {
		webtest.Want(t, c.c.Get("/api/v1/admin/theatres"), http.StatusOK)
	}
}
