package adminapi_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// A show may start at most two years ahead, at an offset some place on
// Earth keeps; anything else is a 422 that records nothing.
func TestShowStartBounds(t *testing.T) {
	s := newSite(t)
	latest := s.Now().Add(catalog.MaxScheduleAhead).Truncate(time.Hour)
	before := s.tables(t)
	body := s.showBody(latest)
	for name, c := range map[string]struct {
		starts string
		code   string
	}{
		"a day past two years":       {latest.Add(25 * time.Hour).Format(time.RFC3339), "show_too_far_ahead"},
		"the last hour of year 9999": {"9999-12-31T23:00:00Z", "show_too_far_ahead"},
		"an offset of +24:00":        {s.Now().Add(96*time.Hour).UTC().Format("2006-01-02T15:04:05") + "+24:00", "invalid_starts_at"},
		"an offset of -14:01":        {s.Now().Add(96*time.Hour).UTC().Format("2006-01-02T15:04:05") + "-14:01", "invalid_starts_at"},
	} {
		t.Run(name, func(t *testing.T) {
			r := s.local.Post("/api/v1/admin/shows", with(body, "starts_at", c.starts))
			webtest.WantError(t, r, http.StatusUnprocessableEntity, c.code)
			if c.code == "show_too_far_ahead" && (!strings.Contains(r.Str("message"), "730 days") || r.Num("max_days_ahead") != 730) {
				t.Fatalf("answer %s does not name the bound", r)
			}
			if c.code == "invalid_starts_at" && !strings.Contains(r.Str("message"), "14 hours") {
				t.Fatalf("answer %s does not name the bound", r)
			}
			s.unchanged(t, before)
		})
	}
	t.Run("a series reaching past two years", func(t *testing.T) {
		r := s.local.Post("/api/v1/admin/shows/bulk", map[string]any{"screen_id": s.screen, "movie_id": s.Venue.MovieID,
			"from": "9999-12-30", "to": "9999-12-31", "times": []string{"23:00"},
			"currency": "INR", "prices": map[string]int64{"STANDARD": 25000, "PREMIUM": 45000}})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "show_too_far_ahead")
		s.unchanged(t, before)
	})
	t.Run("the last hour within two years and the outermost offsets are taken", func(t *testing.T) {
		s.createShow(t, latest.Add(-time.Hour))
		for i, offset := range []string{"+14:00", "-14:00"} {
			at := s.Now().Add(time.Duration(200+24*i) * time.Hour).UTC().Format("2006-01-02T15:04:05")
			webtest.Want(t, s.local.Post("/api/v1/admin/shows", with(body, "starts_at", at+offset)), http.StatusCreated)
		}
	})
}

// A layout's grid is bounded in cells, gaps included, through creating and
// replacing alike; the largest grid saves.
func TestLayoutGridBound(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	mine := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	path := fmt.Sprintf("/api/v1/admin/theatres/%d/screens", e.Venue.TheatreID)
	corners := func(rows, cols int) []seat {
		return []seat{
			{ID: "A1", Row: "A", Number: 1, Category: "STANDARD"},
			{ID: "B1", Row: "B", Number: 1, Category: "STANDARD", GridRow: rows - 1, GridCol: cols - 1},
		}
	}
	r := mine.Post(path, map[string]any{"name": "Sparse", "seats": corners(200, 200)})
	webtest.Want(t, r, http.StatusCreated)
	screen := fmt.Sprintf("/api/v1/admin/screens/%d", int64(r.Num("screen_id")))

	before := screenCount(t, e)
	layout := e.Count(t, `SELECT count(*) FROM seats WHERE grid_row > 0`)
	for name, send := range map[string]func() *webtest.Response{
		"a new screen of 1,000 x 1,000": func() *webtest.Response {
			return mine.Post(path, map[string]any{"name": "Huge", "seats": corners(1000, 1000)})
		},
		"a new screen one column past the bound": func() *webtest.Response {
			return mine.Post(path, map[string]any{"name": "Wide", "seats": corners(200, 201)})
		},
		"a layout replaced by 1,000 x 1,000": func() *webtest.Response {
			return put(mine, screen+"/seats", map[string]any{"seats": corners(1000, 1000)})
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := send()
			webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_seats")
			if !strings.Contains(r.Str("message"), fmt.Sprint(admin.MaxGridCells)) {
				t.Fatalf("answer %s does not name the bound", r)
			}
			if after := screenCount(t, e); after != before {
				t.Fatalf("changed: %s -> %s", before, after)
			}
			if got := e.Count(t, `SELECT count(*) FROM seats WHERE grid_row > 0`); got != layout {
				t.Fatalf("seats off the first row: %d, were %d", got, layout)
			}
		})
	}
}

// Names and labels with invisible or text-direction characters are
// refused, naming the character, and nothing is recorded.
func TestHiddenCharactersRefused(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	platform := e.Admin(t, auth.RolePlatformAdmin)
	mine := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	screens := fmt.Sprintf("/api/v1/admin/theatres/%d/screens", e.Venue.TheatreID)
	tables := func() string {
		return fmt.Sprint(screenCount(t, e), e.Count(t, `SELECT count(*) FROM cities`), e.Count(t, `SELECT count(*) FROM movies`),
			pgtest.Scalar[string](t, e.Store.Pool(), `SELECT string_agg(name, ',' ORDER BY id) FROM theatres`))
	}
	labelled := func(row string) []seat {
		return []seat{{ID: "A1", Row: row, Number: 1, Category: "STANDARD"}}
	}
	city := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT slug FROM cities`)
	before := tables()
	for _, tc := range []struct {
		name string
		send func() *webtest.Response
		code string
		char string
	}{
		{"a row label with a zero-width space", func() *webtest.Response {
			return mine.Post(screens, map[string]any{"name": "Hall 9", "seats": labelled("A\u200b")})
		}, "invalid_seats", "U+200B"},
		{"a row label with a right-to-left override", func() *webtest.Response {
			return mine.Post(screens, map[string]any{"name": "Hall 9", "seats": labelled("\u202eA")})
		}, "invalid_seats", "U+202E"},
		{"a screen name with a right-to-left override", func() *webtest.Response {
			return mine.Post(screens, map[string]any{"name": "Hall \u202e9", "seats": labelled("A")})
		}, "invalid_name", "U+202E"},
		{"a theatre name with a zero-width space", func() *webtest.Response {
			return mine.Send(webtest.Req{Method: "PATCH", Path: fmt.Sprintf("/api/v1/admin/theatres/%d", e.Venue.TheatreID),
				Body: map[string]any{"name": "Marquee\u200b"}})
		}, "invalid_name", "U+200B"},
		{"a new theatre's name with a left-to-right isolate", func() *webtest.Response {
			return platform.Post("/api/v1/admin/theatres", map[string]string{"city": city, "name": "\u2066Odeon", "timezone": "UTC"})
		}, "invalid_name", "U+2066"},
		{"a city name with a right-to-left override", func() *webtest.Response {
			return platform.Post("/api/v1/admin/cities", map[string]string{"name": "Pune\u202e", "slug": "pune"})
		}, "invalid_name", "U+202E"},
		{"a movie title with a right-to-left override", func() *webtest.Response {
			return platform.Post("/api/v1/admin/movies", map[string]any{"title": "Monsoon \u202e2", "duration_minutes": 120})
		}, "invalid_title", "U+202E"},
		{"a movie title with a joiner between Latin letters", func() *webtest.Response {
			return platform.Post("/api/v1/admin/movies", map[string]any{"title": "Mon\u200dsoon", "duration_minutes": 120})
		}, "invalid_title", "U+200D"},
		{"a genre with a zero-width space", func() *webtest.Response {
			return platform.Post("/api/v1/admin/movies", map[string]any{"title": "Monsoon", "duration_minutes": 120, "genres": []string{"Dra\u200bma"}})
		}, "invalid_genres", "U+200B"},
		{"a renamed movie with a byte order mark", func() *webtest.Response {
			return patch(platform, fmt.Sprintf("/api/v1/admin/movies/%d", e.Venue.MovieID), map[string]any{"title": "\ufeffMonsoon"})
		}, "invalid_title", "U+FEFF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.send()
			webtest.WantError(t, r, http.StatusUnprocessableEntity, tc.code)
			if !strings.Contains(r.Str("message"), tc.char) || !strings.Contains(r.Str("message"), "invisible or text-direction") {
				t.Fatalf("answer %s does not name the character %s", r, tc.char)
			}
			if after := tables(); after != before {
				t.Fatalf("changed: %s -> %s", before, after)
			}
		})
	}
}

// Names and titles written in scripts that need a zero-width joiner or
// non-joiner keep it: a Malayalam theatre, a Hindi movie, a Persian genre.
func TestJoinersOfScriptsKept(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	platform := e.Admin(t, auth.RolePlatformAdmin)
	theatre := "കൊച്ചിന\u0d4d\u200d Talkies" // a chillu: a joiner after the virama
	r := patch(platform, fmt.Sprintf("/api/v1/admin/theatres/%d", e.Venue.TheatreID), map[string]any{"name": theatre})
	webtest.Want(t, r, http.StatusOK)
	title := "क\u094d\u200dषितिज" // a half form: a joiner after the virama
	r = platform.Post("/api/v1/admin/movies", map[string]any{"title": title, "duration_minutes": 120, "genres": []string{"کتاب\u200cخانه"}})
	webtest.Want(t, r, http.StatusCreated)
	if got := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT name FROM theatres WHERE id = $1`, e.Venue.TheatreID); got != theatre {
		t.Errorf("theatre name stored as %+q, want %+q", got, theatre)
	}
	if got := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT title || '|' || array_to_string(genres, ',') FROM movies WHERE id = $1`, int64(r.Num("movie_id"))); got != title+"|کتاب\u200cخانه" {
		t.Errorf("movie stored as %+q", got)
	}
}

// A name a spreadsheet would read as a formula, however it is dressed up,
// leaves the sales CSV as text.
func TestSalesCSVKeepsFormulasText(t *testing.T) {
	s := newSite(t)
	names := []string{" =HYPERLINK(\"http://x\")", "\u3000=1+1", "＝1+1", "＋1", "－1", "＠SUM(A1)", "\t=1", "\u200b=1", "﹦1", "Audi 3"}
	at := s.Now().Add(120 * time.Hour).Truncate(time.Hour)
	for i, name := range names {
		screen, err := s.Store.CreateScreen(t.Context(), s.Venue.TheatreID, name, pgtest.Grid(3, 4))
		if err != nil {
			t.Fatal(err)
		}
		body := with(s.showBody(at.Add(time.Duration(i)*3*time.Hour)), "screen_id", screen)
		webtest.Want(t, s.platform.Post("/api/v1/admin/shows", body), http.StatusCreated)
	}
	day := func(d time.Time) string { return d.In(s.loc).Format(time.DateOnly) }
	path := fmt.Sprintf("/api/v1/admin/reports/sales?theatre_id=%d&from=%s&to=%s", s.Venue.TheatreID, day(at), day(at.Add(30*time.Hour)))
	r := s.local.Send(webtest.Req{Method: "GET", Path: path, Header: map[string]string{"Accept": "text/csv"}})
	webtest.Want(t, r, http.StatusOK)
	records, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, rec := range records[1:] {
		got[rec[2]] = true
	}
	for _, name := range names {
		want := "'" + name
		if name == "Audi 3" {
			want = name
		}
		if !got[want] {
			t.Errorf("screen %q is not in the CSV as %q (screens: %v)", name, want, got)
		}
	}
}

// The images that took gigabytes to decode are refused from their
// headers, with a 422 that says what to upload instead, and nothing is
// stored.
func TestCraftedPostersRefused(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	platform := e.Admin(t, auth.RolePlatformAdmin)
	path := fmt.Sprintf("/api/v1/admin/movies/%d/poster", e.Venue.MovieID)
	upload := func(data []byte) *webtest.Response {
		return platform.Send(webtest.Req{Method: "PUT", Path: path, Body: data, Header: map[string]string{"Content-Type": "image/png"}})
	}
	webtest.Want(t, upload(pgtest.PlainPNG(400, 600, pgtest.PNGRGBA, 8)), http.StatusOK)
	stored := func() string {
		return pgtest.Scalar[string](t, e.Store.Pool(), `
			SELECT format('%s %s', (SELECT encode(sha256, 'hex') FROM posters WHERE movie_id = $1), (SELECT count(*) FROM audit_log))`,
			e.Venue.MovieID)
	}
	before := stored()
	for _, tc := range []struct {
		name string
		data []byte
		says string
	}{
		{"1 x 39,999,999 pixels", pgtest.PlainPNG(1, 39_999_999, pgtest.PNGGray, 8), "at most 8000 pixels on its longer side"},
		{"6000 x 6600 pixels at 16 bits", pgtest.PlainPNG(6000, 6600, pgtest.PNGRGBA, 16), "at 16 bits a channel, too large to resize"},
		{"a strip of 600 x 3000", pgtest.PlainPNG(600, 3000, pgtest.PNGRGBA, 8), "more than 4 times the other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := upload(tc.data)
			webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_image")
			if !strings.Contains(r.Str("message"), tc.says) || r.Num("width") == 0 {
				t.Fatalf("answer %s does not say %q", r, tc.says)
			}
			if after := stored(); after != before {
				t.Fatalf("poster and audit log changed: %s -> %s", before, after)
			}
		})
	}
}
