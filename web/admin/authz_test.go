package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// pageMatrix is the pages' authorization matrix's world: theatres X and Y,
// and one browser of each kind of person.
type pageMatrix struct {
	e    *webtest.Env
	x, y pgtest.Venue
	seq  int
}

// show is a fresh show of X on a screen of its own (a cancel or a block
// needs one nobody touched), with its screen.
func (m *pageMatrix) show(t *testing.T) (show, screen int64) {
	t.Helper()
	m.seq++
	show = pgtest.NewShow(t, m.e.Store, m.x, 3, 4, time.Now().Add(72*time.Hour+time.Duration(m.seq)*time.Minute))
	screen = pgtest.Scalar[int64](t, m.e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, show)
	return show, screen
}

// pageRoute is one admin page route: a GET, or a form POST with form, for
// an object of theatre X made fresh for every caller.
type pageRoute struct {
	name string
	who  scope
	post bool
	req  func(t *testing.T, m *pageMatrix) (path string, form url.Values)
}

// scope is who may use a route.
type scope int

const (
	ofTheatre scope = iota // the admins of the object's theatre, and platform admins
	anyAdmin               // every admin: a list of what is theirs
	platform               // platform admins only
)

func get(path string) func(*testing.T, *pageMatrix) (string, url.Values) {
	return func(*testing.T, *pageMatrix) (string, url.Values) { return path, nil }
}

var pageRoutes = []pageRoute{
	{"dashboard", anyAdmin, false, get("/admin")},
	{"theatres", anyAdmin, false, get("/admin/theatres")},
	{"new theatre", platform, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return "/admin/theatres", url.Values{}
	}},
	{"new city", platform, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return "/admin/cities", url.Values{}
	}},
	{"theatre", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/theatres/%d", m.x.TheatreID), nil
	}},
	{"edit theatre", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/theatres/%d", m.x.TheatreID), url.Values{"address": {"3 Market St"}}
	}},
	{"grant", platform, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		email := pgtest.Scalar[string](t, m.e.Store.Pool(), `SELECT email FROM users WHERE id = $1`, pgtest.User(t, m.e.Store))
		return fmt.Sprintf("/admin/theatres/%d/admins", m.x.TheatreID), url.Values{"email": {email}}
	}},
	{"revoke", platform, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		_, u := m.e.Account(t, auth.RoleTheatreAdmin, m.x.TheatreID)
		return fmt.Sprintf("/admin/theatres/%d/admins/%s/revoke", m.x.TheatreID, u.ID), url.Values{}
	}},
	{"new screen", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/theatres/%d/screens/new", m.x.TheatreID), nil
	}},
	{"create screen", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/theatres/%d/screens", m.x.TheatreID), url.Values{}
	}},
	{"layout editor", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		_, screen := m.show(t)
		return fmt.Sprintf("/admin/screens/%d", screen), nil
	}},
	{"save layout", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		_, screen := m.show(t)
		return fmt.Sprintf("/admin/screens/%d/seats", screen), url.Values{"seats": {"[]"}}
	}},
	{"rename screen", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		_, screen := m.show(t)
		return fmt.Sprintf("/admin/screens/%d/name", screen), url.Values{"name": {fmt.Sprintf("Renamed %d", screen)}}
	}},
	{"retire screen", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		_, screen := m.show(t) // a show to come: refused, the page again
		return fmt.Sprintf("/admin/screens/%d/retire", screen), url.Values{}
	}},
	{"unretire screen", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		_, screen := m.show(t)
		return fmt.Sprintf("/admin/screens/%d/unretire", screen), url.Values{}
	}},
	{"layout preview", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		_, screen := m.show(t)
		return fmt.Sprintf("/admin/screens/%d/preview", screen), url.Values{"seats": {"[]"}}
	}},
	{"movies", platform, false, get("/admin/movies")},
	{"new movie", platform, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return "/admin/movies", url.Values{}
	}},
	{"movie", platform, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/movies/%d", m.x.MovieID), nil
	}},
	{"edit movie", platform, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/movies/%d", m.x.MovieID), url.Values{"title": {"The Last Algorithm"}, "duration_minutes": {"120"}}
	}},
	{"poster", platform, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/movies/%d/poster", m.x.MovieID), url.Values{}
	}},
	{"schedule", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/theatres/%d/schedule", m.x.TheatreID), nil
	}},
	{"schedule a show", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/theatres/%d/schedule", m.x.TheatreID), url.Values{}
	}},
	{"schedule many", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/theatres/%d/schedule/bulk", m.x.TheatreID), url.Values{}
	}},
	{"prices", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/prices", show), url.Values{}
	}},
	{"show", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d", show), nil
	}},
	{"show admitted", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/admitted", show), nil
	}},
	{"block", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/blocks", show), url.Values{"seats": {"A1"}}
	}},
	{"unblock", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/unblock", show), url.Values{"seats": {"A1"}}
	}},
	{"cancel show", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/cancel", show), url.Values{}
	}},
	{"reschedule show", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		at := pgtest.Scalar[time.Time](t, m.e.Store.Pool(), `SELECT starts_at FROM shows WHERE id = $1`, show)
		kolkata, _ := time.LoadLocation("Asia/Kolkata")
		return fmt.Sprintf("/admin/shows/%d/reschedule", show), url.Values{"starts_at": {at.Add(time.Hour).In(kolkata).Format("2006-01-02T15:04")}}
	}},
	{"sales", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/reports/sales?theatre_id=%d", m.x.TheatreID), nil
	}},
	{"payments to check", anyAdmin, false, get("/admin/reconciliation")},
	{"resolve a payment", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		// A charge of the wrong amount for a hold of X's show: a payment
		// to check, of X.
		show, _ := m.show(t)
		h := m.e.User(t).HoldOn(show, "mismatch", "A1")
		webtest.Want(t, h, http.StatusCreated)
		wrong := m.e.PaymentFor(h)
		wrong.AmountMinor++
		webtest.Want(t, m.e.Webhook(wrong), http.StatusUnprocessableEntity)
		return "/admin/reconciliation", url.Values{"payment_id": {wrong.PaymentID}, "action": {"resolve"}, "note": {"Called the bank."}}
	}},
	{"audit log", platform, false, get("/admin/audit")},
	{"find a booking", anyAdmin, false, get("/admin/bookings")},
	{"booking", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return "/admin/bookings/" + m.booking(t), nil
	}},
	{"resend ticket", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return "/admin/bookings/" + m.booking(t) + "/resend", url.Values{}
	}},
	{"refund booking", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return "/admin/bookings/" + m.booking(t) + "/refund", url.Values{"full": {"true"}, "reason": {"Asked at the desk"}}
	}},
	{"record counter refund", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		// A counter sale, refunded: owed at the counter.
		show, _ := m.show(t)
		desk := m.e.Admin(t, auth.RolePlatformAdmin)
		m.seq++
		sold := desk.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/sales", show),
			Header: map[string]string{"Idempotency-Key": fmt.Sprint("paid-", m.seq)},
			Body:   map[string]any{"seats": []string{"A1"}, "paid_by": "cash", "customer": map[string]any{"name": "Walk-in"}}})
		webtest.Want(t, sold, http.StatusCreated)
		id := sold.Str("booking_id")
		webtest.Want(t, desk.Send(webtest.Req{Method: "POST", Path: "/api/v1/admin/bookings/" + id + "/refund",
			Body: map[string]any{"full": true, "reason": "Changed their mind"}}), http.StatusOK)
		return "/admin/bookings/" + id + "/refund/paid", url.Values{}
	}},
	{"move booking", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		id := m.booking(t)
		to, _ := m.show(t)
		return "/admin/bookings/" + id + "/move", url.Values{"show_id": {fmt.Sprint(to)}, "seats": {"A1"}}
	}},
	{"background jobs", platform, false, get("/admin/jobs")},
	{"staff", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return fmt.Sprintf("/admin/theatres/%d/staff", m.x.TheatreID), nil
	}},
	{"grant staff", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		email := pgtest.Scalar[string](t, m.e.Store.Pool(), `SELECT email FROM users WHERE id = $1`, pgtest.User(t, m.e.Store))
		return fmt.Sprintf("/admin/theatres/%d/staff", m.x.TheatreID), url.Values{"email": {email}, "role": {"usher"}}
	}},
	{"revoke staff", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		_, u := m.e.Staff(t, auth.StaffUsher, m.x.TheatreID)
		return fmt.Sprintf("/admin/theatres/%d/staff/%s/revoke", m.x.TheatreID, u.ID), url.Values{}
	}},
	{"attendees", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/attendees", show), nil
	}},
	{"attendees csv", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/attendees.csv", show), nil
	}},
	{"box office", anyAdmin, false, get("/admin/box-office")},
	{"counter", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/sell", show), nil
	}},
	{"sell", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/sell", show), url.Values{"seats": {"A1"}, "paid_by": {"cash"}, "name": {"Walk-in"}, "key": {fmt.Sprint("k-", show)}}
	}},
	{"print ticket", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		return "/admin/bookings/" + m.booking(t) + "/print", nil
	}},
	{"door", anyAdmin, false, get("/admin/door")},
	{"show door", ofTheatre, false, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/door", show), nil
	}},
	{"check in", ofTheatre, true, func(t *testing.T, m *pageMatrix) (string, url.Values) {
		show, _ := m.show(t)
		return fmt.Sprintf("/admin/shows/%d/door", show), url.Values{"code": {m.e.Book(t, show, "A1").Code}}
	}},
}

// pagePower is what a route of one theatre's needs when it is not the
// manager's alone.
var pagePower = map[string]admin.Power{
	"show": admin.SeeShows, "show admitted": admin.SeeShows, "booking": admin.Sell, "resend ticket": admin.Sell,
	"refund booking": admin.Sell, "record counter refund": admin.Sell, "move booking": admin.Sell,
	"show door": admin.CheckIn, "check in": admin.CheckIn,
	"counter": admin.Sell, "sell": admin.Sell, "print ticket": admin.Sell,
	"attendees": admin.SeeAttendees, "attendees csv": admin.SeeAttendees,
}

func (r pageRoute) power() admin.Power {
	if p, ok := pagePower[r.name]; ok {
		return p
	}
	return admin.Manage
}

// booking is a confirmed booking of a fresh show of X.
func (m *pageMatrix) booking(t *testing.T) string {
	t.Helper()
	show, _ := m.show(t)
	h := m.e.User(t).HoldOn(show, "booking", "A1")
	webtest.Want(t, h, http.StatusCreated)
	return m.e.Pay(t, h).Str("booking_id")
}

// pageAs is a browser signed in as a new account of role, granted theatres.
func pageAs(t *testing.T, e *webtest.Env, role auth.Role, theatres ...int64) *webtest.Browser {
	t.Helper()
	_, u := e.Account(t, role, theatres...)
	b := e.Browser()
	b.Token(t) // the CSRF cookie, while still a guest
	webtest.Want(t, b.API().Login(u.Email), http.StatusOK)
	return b
}

// TestPagesAuthorizationMatrix opens every admin page and posts every admin
// form as each kind of person: a guest is sent to log in, a moviegoer gets
// 403, a theatre admin 403 on what only a platform admin may and 404 for
// an object of a theatre not theirs, and the admin of the object's theatre
// and a platform admin get through (a page, a redirect after a change, or
// the form again with what to correct).
func TestPagesAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	m := &pageMatrix{e: webtest.NewEnv(t)}
	m.x = m.e.Venue
	m.y = pgtest.NewVenue(t, m.e.Store)

	const through = 0
	callers := []struct {
		name string
		b    *webtest.Browser
		want func(r pageRoute) int
	}{
		{"guest", m.e.Browser(), func(pageRoute) int { return http.StatusSeeOther }},
		{"moviegoer", m.e.PageUser(t), func(pageRoute) int { return http.StatusForbidden }},
		{"admin of Y", pageAs(t, m.e, auth.RoleTheatreAdmin, m.y.TheatreID), func(r pageRoute) int {
			switch r.who {
			case platform:
				return http.StatusForbidden
			case anyAdmin:
				return through
			}
			return http.StatusNotFound
		}},
		{"admin of X", pageAs(t, m.e, auth.RoleTheatreAdmin, m.x.TheatreID), func(r pageRoute) int {
			if r.who == platform {
				return http.StatusForbidden
			}
			return through
		}},
		{"platform admin", pageAs(t, m.e, auth.RolePlatformAdmin), func(pageRoute) int { return through }},
	}
	for _, role := range []auth.StaffRole{auth.StaffBoxOffice, auth.StaffUsher} {
		_, u := m.e.Staff(t, role, m.x.TheatreID)
		b := m.e.Browser()
		b.Token(t)
		webtest.Want(t, b.API().Login(u.Email), http.StatusOK)
		callers = append(callers, struct {
			name string
			b    *webtest.Browser
			want func(r pageRoute) int
		}{string(role) + " of X", b, func(r pageRoute) int {
			switch {
			case r.who == platform:
				return http.StatusForbidden
			case r.who == anyAdmin || admin.RoleCan(role, r.power()):
				return through
			}
			return http.StatusForbidden
		}})
	}
	for _, r := range pageRoutes {
		for _, c := range callers {
			path, form := r.req(t, m)
			var p *webtest.HTMLDoc
			if r.post {
				p = c.b.Submit(t, path, form)
			} else {
				p = c.b.Get(t, path)
			}
			where := p.Header.Get("Location")
			toLogin := p.Status == http.StatusSeeOther && strings.HasPrefix(where, "/login")
			want := c.want(r)
			switch {
			case want == http.StatusSeeOther && !toLogin:
				t.Errorf("%s as %s: %d to %q, want a redirect to log in", r.name, c.name, p.Status, where)
			case want == through && (toLogin || p.Status >= 500 || p.Status == http.StatusForbidden || p.Status == http.StatusNotFound):
				t.Errorf("%s as %s: %s (to %q), want the page, a redirect or the form again", r.name, c.name, p, where)
			case want != through && want != http.StatusSeeOther && p.Status != want:
				t.Errorf("%s as %s: %s, want %d", r.name, c.name, p, want)
			case want == http.StatusForbidden || want == http.StatusNotFound:
				if !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
					t.Errorf("%s as %s: a %d of type %q, want the friendly page", r.name, c.name, p.Status, p.Header.Get("Content-Type"))
				}
			}
		}
	}
}
