package adminapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// site is a test server whose venue (Asia/Kolkata, a 120-minute movie) has
// an empty 3x4 screen (rows A-B STANDARD, C PREMIUM), and a platform admin
// and an admin of that theatre signed in.
type site struct {
	*webtest.Env
	screen   int64
	platform *webtest.Client
	local    *webtest.Client // theatre admin of the venue's theatre only
	loc      *time.Location
}

func newSite(t *testing.T) *site {
	t.Helper()
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	s := &site{Env: e}
	var err error
	if s.screen, err = e.Store.CreateScreen(t.Context(), e.Venue.TheatreID, "Hall 2", pgtest.Grid(3, 4)); err != nil {
		t.Fatal(err)
	}
	s.platform = s.admin(t, auth.RolePlatformAdmin)
	s.local = s.admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	s.loc, _ = time.LoadLocation("Asia/Kolkata")
	return s
}

// admin is a signed-in client of a new account with role, granted theatres.
func (s *site) admin(t *testing.T, role auth.Role, theatres ...int64) *webtest.Client {
	t.Helper()
	id := pgtest.User(t, s.Store)
	pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = $2 WHERE id = $1`, id, role)
	for _, th := range theatres {
		pgtest.Exec(t, s.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'manager')`, th, id)
	}
	u, err := s.Store.User(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Guest()
	webtest.Want(t, c.Login(u.Email), http.StatusOK)
	return c
}

// showBody is a request for a show on the site's screen at at.
func (s *site) showBody(at time.Time) map[string]any {
	return map[string]any{"screen_id": s.screen, "movie_id": s.Venue.MovieID, "starts_at": at.Format(time.RFC3339),
		"currency": "INR", "prices": map[string]int64{"STANDARD": 25000, "PREMIUM": 45000}}
}

func with(body map[string]any, key string, value any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	if value == nil {
		delete(out, key)
	} else {
		out[key] = value
	}
	return out
}

func (s *site) createShow(t *testing.T, at time.Time) int64 {
	t.Helper()
	r := s.platform.Post("/api/v1/admin/shows", s.showBody(at))
	webtest.Want(t, r, http.StatusCreated)
	return int64(r.Num("show_id"))
}

// tables is what a refused request must leave as it was.
func (s *site) tables(t *testing.T) string {
	t.Helper()
	return pgtest.Scalar[string](t, s.Store.Pool(), `
		SELECT format('shows=%s seats=%s prices=%s audit=%s', (SELECT count(*) FROM shows), (SELECT count(*) FROM show_seats),
		              (SELECT string_agg(show_id || category || price_minor, ',' ORDER BY show_id, category) FROM show_prices),
		              (SELECT count(*) FROM audit_log))`)
}

func (s *site) unchanged(t *testing.T, before string) {
	t.Helper()
	if after := s.tables(t); after != before {
		t.Fatalf("a refused request changed the database:\n%s\n%s", before, after)
	}
}

func TestCreateShowAPI(t *testing.T) {
	s := newSite(t)
	at := s.Now().Add(96 * time.Hour).Truncate(time.Hour).In(s.loc)

	r := s.local.Post("/api/v1/admin/shows", s.showBody(at))
	webtest.Want(t, r, http.StatusCreated)
	id := int64(r.Num("show_id"))
	if r.Str("starts_at") != at.UTC().Format(time.RFC3339) || r.Str("ends_at") != at.Add(135*time.Minute).UTC().Format(time.RFC3339) {
		t.Fatalf("created = %s, want %s to 2h15m later (runtime and cleaning buffer), in UTC", r, at.UTC())
	}
	moviegoer := s.User(t)
	webtest.Want(t, moviegoer.HoldOn(id, "k", "C1"), http.StatusCreated)

	before := s.tables(t)
	body := s.showBody(at.Add(2 * time.Hour))
	for name, c := range map[string]struct {
		body   any
		status int
		code   string
	}{
		"overlap":           {body, http.StatusConflict, "show_overlap"},
		"in the past":       {with(body, "starts_at", s.Now().Add(-time.Minute).Format(time.RFC3339)), http.StatusUnprocessableEntity, "show_in_past"},
		"no offset":         {with(body, "starts_at", "2027-03-26T18:30:00"), http.StatusUnprocessableEntity, "invalid_starts_at"},
		"not a time":        {with(body, "starts_at", "tomorrow"), http.StatusUnprocessableEntity, "invalid_starts_at"},
		"no start":          {with(body, "starts_at", nil), http.StatusUnprocessableEntity, "invalid_starts_at"},
		"a price missing":   {with(body, "prices", map[string]int64{"STANDARD": 1}), http.StatusUnprocessableEntity, "missing_prices"},
		"unknown category":  {with(body, "prices", map[string]int64{"STANDARD": 1, "PREMIUM": 1, "VIP": 1}), http.StatusUnprocessableEntity, "invalid_prices"},
		"negative price":    {with(body, "prices", map[string]int64{"STANDARD": -1, "PREMIUM": 1}), http.StatusUnprocessableEntity, "invalid_prices"},
		"bad currency":      {with(body, "currency", "rupees"), http.StatusUnprocessableEntity, "invalid_currency"},
		"unknown movie":     {with(body, "movie_id", 99999), http.StatusUnprocessableEntity, "invalid_movie_id"},
		"bad format":        {with(body, "format", "8K"), http.StatusUnprocessableEntity, "invalid_format"},
		"unknown screen":    {with(body, "screen_id", 99999), http.StatusNotFound, "not_found"},
		"no screen":         {with(body, "screen_id", nil), http.StatusNotFound, "not_found"},
		"price not integer": {with(body, "prices", map[string]any{"STANDARD": 1.5, "PREMIUM": 1}), http.StatusBadRequest, "invalid_field_type"},
		"unknown field":     {with(body, "colour", "red"), http.StatusBadRequest, "unknown_field"},
		"not JSON":          {"{", http.StatusBadRequest, "malformed_json"},
		"no body":           {nil, http.StatusBadRequest, "body_required"},
	} {
		t.Run(name, func(t *testing.T) {
			r := s.local.Send(webtest.Req{Method: "POST", Path: "/api/v1/admin/shows", Body: c.body})
			webtest.WantError(t, r, c.status, c.code)
			s.unchanged(t, before)
		})
	}
	r = s.local.Post("/api/v1/admin/shows", body)
	if r.Num("conflicting_show_id") != float64(id) || r.Str("starts_at") != at.Add(2*time.Hour).UTC().Format(time.RFC3339) {
		t.Fatalf("overlap answer = %s, want show %d named", r, id)
	}
	r = s.local.Post("/api/v1/admin/shows", with(body, "prices", map[string]int64{}))
	if got := r.Strs("categories"); len(got) != 2 || got[0] != "PREMIUM" || got[1] != "STANDARD" {
		t.Fatalf("missing prices answer = %s, want both categories", r)
	}

	t.Run("who may", func(t *testing.T) {
		webtest.WantError(t, s.Guest().Post("/api/v1/admin/shows", body), http.StatusUnauthorized, "unauthenticated")
		webtest.WantError(t, s.User(t).Post("/api/v1/admin/shows", body), http.StatusForbidden, "forbidden")
		other := s.admin(t, auth.RoleTheatreAdmin, s.otherTheatre(t))
		webtest.WantError(t, other.Post("/api/v1/admin/shows", s.showBody(at.Add(24*time.Hour))), http.StatusNotFound, "not_found")
		s.unchanged(t, before)
	})
}

// otherTheatre is a second theatre, in the venue's city.
func (s *site) otherTheatre(t *testing.T) int64 {
	t.Helper()
	return pgtest.Scalar[int64](t, s.Store.Pool(), `
		INSERT INTO theatres (city_id, name, timezone) VALUES ($1, $2, 'Asia/Kolkata') RETURNING id`,
		s.Venue.CityID, fmt.Sprintf("Other %d", time.Now().UnixNano()))
}

func TestScheduleShowsAPI(t *testing.T) {
	s := newSite(t)
	day := func(d int) string { return s.Now().In(s.loc).AddDate(0, 0, d).Format(time.DateOnly) }
	series := func(from, to string, times ...string) map[string]any {
		return map[string]any{"screen_id": s.screen, "movie_id": s.Venue.MovieID, "from": from, "to": to, "times": times,
			"currency": "INR", "prices": map[string]int64{"STANDARD": 25000, "PREMIUM": 45000}}
	}
	r := s.local.Post("/api/v1/admin/shows/bulk", series(day(10), day(11), "10:00", "21:30"))
	webtest.Want(t, r, http.StatusCreated)
	shows, _ := r.JSON["shows"].([]any)
	if len(shows) != 4 {
		t.Fatalf("bulk = %s, want 4 shows", r)
	}
	first := shows[0].(map[string]any)
	wantStart := fmt.Sprintf("%sT04:30:00Z", day(10)) // 10:00 IST
	if first["starts_at"] != wantStart || first["show_id"] == nil || first["ends_at"] == nil {
		t.Fatalf("first show = %v, want it at %s", first, wantStart)
	}

	before := s.tables(t)
	r = s.local.Post("/api/v1/admin/shows/bulk", series(day(9), day(12), "11:00"))
	webtest.WantError(t, r, http.StatusConflict, "show_overlap")
	if r.Num("conflicting_show_id") != first["show_id"] || r.Str("starts_at") != fmt.Sprintf("%sT05:30:00Z", day(10)) {
		t.Fatalf("overlap answer = %s, want the %s 11:00 show refused for show %v", r, day(10), first["show_id"])
	}
	r = s.local.Post("/api/v1/admin/shows/bulk", series(day(20), day(20), "10:00", "11:00"))
	webtest.WantError(t, r, http.StatusConflict, "show_overlap")
	if v, ok := r.JSON["conflicting_show_id"]; !ok || v != nil || r.Str("conflicting_starts_at") == "" {
		t.Fatalf("overlap within the series = %s, want conflicting_show_id null and the other start", r)
	}
	webtest.WantError(t, s.local.Post("/api/v1/admin/shows/bulk", series(day(-1), day(20), "23:00")), http.StatusUnprocessableEntity, "show_in_past")
	webtest.WantError(t, s.local.Post("/api/v1/admin/shows/bulk", series(day(20), day(20), "7pm")), http.StatusUnprocessableEntity, "invalid_times")
	webtest.WantError(t, s.local.Post("/api/v1/admin/shows/bulk", series(day(20), day(19), "10:00")), http.StatusUnprocessableEntity, "invalid_to")
	webtest.WantError(t, s.local.Post("/api/v1/admin/shows/bulk", series("soon", day(19), "10:00")), http.StatusUnprocessableEntity, "invalid_from")
	webtest.WantError(t, s.local.Post("/api/v1/admin/shows/bulk", series(day(20), day(140), "10:00", "22:00")), http.StatusUnprocessableEntity, "invalid_times")
	s.unchanged(t, before)
}

func TestTheatreShowsAPI(t *testing.T) {
	s := newSite(t)
	// Two days after the env's own show (72 h from now): no time zone
	// puts the two on one local day, which the day filter below tells apart.
	at := s.Now().Add(120 * time.Hour).Truncate(time.Hour)
	id := s.createShow(t, at)
	webtest.Want(t, s.User(t).HoldOn(id, "k", "A1", "A2"), http.StatusCreated)

	r := s.local.Get(fmt.Sprintf("/api/v1/admin/theatres/%d/shows", s.Venue.TheatreID))
	webtest.Want(t, r, http.StatusOK)
	shows, _ := r.JSON["shows"].([]any)
	if len(shows) != 2 { // the env's own show and this one
		t.Fatalf("shows = %s, want 2", r)
	}
	var got map[string]any
	for _, sh := range shows {
		if m := sh.(map[string]any); m["show_id"] == float64(id) {
			got = m
		}
	}
	counts, _ := got["counts"].(map[string]any)
	prices, _ := got["prices"].(map[string]any)
	if got["movie_title"] != "The Last Algorithm" || got["screen"] != "Hall 2" || got["status"] != "SCHEDULED" ||
		got["currency"] != "INR" || got["starts_at"] != at.UTC().Format(time.RFC3339) ||
		prices["PREMIUM"] != 45000.0 || counts["held"] != 2.0 || counts["available"] != 10.0 || counts["booked"] != 0.0 {
		t.Fatalf("show = %v", got)
	}
	day := at.In(s.loc).Format(time.DateOnly)
	r = s.local.Get(fmt.Sprintf("/api/v1/admin/theatres/%d/shows?from=%s&to=%s", s.Venue.TheatreID, day, day))
	if shows, _ := r.JSON["shows"].([]any); len(shows) != 1 {
		t.Fatalf("shows of %s = %s, want 1", day, r)
	}
	webtest.WantError(t, s.local.Get(fmt.Sprintf("/api/v1/admin/theatres/%d/shows?from=tomorrow", s.Venue.TheatreID)), http.StatusBadRequest, "invalid_query")
	webtest.WantError(t, s.local.Get(fmt.Sprintf("/api/v1/admin/theatres/%d/shows", s.otherTheatre(t))), http.StatusNotFound, "not_found")
	webtest.WantError(t, s.local.Get("/api/v1/admin/theatres/x/shows"), http.StatusNotFound, "not_found")
}

func TestUpdatePricesAPI(t *testing.T) {
	s := newSite(t)
	id := s.createShow(t, s.Now().Add(96*time.Hour).Truncate(time.Hour))
	path := fmt.Sprintf("/api/v1/admin/shows/%d/prices", id)
	put := func(c *webtest.Client, body any) *webtest.Response {
		return c.Send(webtest.Req{Method: "PUT", Path: path, Body: body})
	}
	r := put(s.local, map[string]any{"prices": map[string]int64{"STANDARD": 30000, "PREMIUM": 50000}})
	webtest.Want(t, r, http.StatusOK)
	if prices, _ := r.JSON["prices"].(map[string]any); r.Num("show_id") != float64(id) || prices["STANDARD"] != 30000.0 {
		t.Fatalf("answer = %s", r)
	}
	h := s.User(t).HoldOn(id, "k", "A1")
	webtest.Want(t, h, http.StatusCreated)
	if h.Num("amount_minor") != 30000 {
		t.Fatalf("hold after the change = %s, want the new price", h)
	}

	before := s.tables(t)
	webtest.WantError(t, put(s.local, map[string]any{"prices": map[string]int64{"STANDARD": 1, "PREMIUM": 1}}), http.StatusConflict, "show_has_sales")
	webtest.WantError(t, put(s.local, map[string]any{"prices": map[string]int64{"STANDARD": 1}}), http.StatusUnprocessableEntity, "missing_prices")
	webtest.WantError(t, put(s.local, map[string]any{}), http.StatusUnprocessableEntity, "missing_prices")
	other := s.admin(t, auth.RoleTheatreAdmin, s.otherTheatre(t))
	webtest.WantError(t, put(other, map[string]any{"prices": map[string]int64{"STANDARD": 1, "PREMIUM": 1}}), http.StatusNotFound, "not_found")
	webtest.WantError(t, s.local.Send(webtest.Req{Method: "PUT", Path: "/api/v1/admin/shows/99999/prices",
		Body: map[string]any{"prices": map[string]int64{"STANDARD": 1}}}), http.StatusNotFound, "not_found")
	s.unchanged(t, before)
}
