package adminapi_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

type seat struct {
	ID         string `json:"id"`
	Row        string `json:"row"`
	Number     int    `json:"number"`
	Category   string `json:"category"`
	GridRow    int    `json:"grid_row"`
	GridCol    int    `json:"grid_col"`
	Accessible bool   `json:"accessible"`
	Companion  bool   `json:"companion,omitempty"`
}

// grid is rows x cols STANDARD seats, A1 at the top left.
func grid(rows, cols int) []seat {
	var seats []seat
	for r := range rows {
		for c := range cols {
			row := string(rune('A' + r))
			seats = append(seats, seat{ID: fmt.Sprintf("%s%d", row, c+1), Row: row, Number: c + 1, Category: "STANDARD", GridRow: r, GridCol: c})
		}
	}
	return seats
}

// fixtureLayout is the env show's layout (10x10, row J PREMIUM), as JSON.
func fixtureLayout() []seat {
	seats := grid(10, 10)
	for i := range seats {
		if seats[i].Row == "J" {
			seats[i].Category = "PREMIUM"
		}
	}
	return seats
}

func put(c *webtest.Client, path string, body any) *webtest.Response {
	return c.Send(webtest.Req{Method: "PUT", Path: path, Body: body})
}

func screenCount(t *testing.T, e *webtest.Env) string {
	return fmt.Sprint(e.Count(t, `SELECT count(*) FROM screens`), e.Count(t, `SELECT count(*) FROM seats`), e.Count(t, `SELECT count(*) FROM audit_log`))
}

func TestCreateAndReadScreen(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	platform := e.Admin(t, auth.RolePlatformAdmin)
	mine := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	other, err := e.Store.CreateTheatre(context.Background(), catalog.Theatre{CityID: e.Venue.CityID, Name: "Other", TimeZone: "Asia/Kolkata"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stranger := e.Admin(t, auth.RoleTheatreAdmin, other)
	path := fmt.Sprintf("/api/v1/admin/theatres/%d/screens", e.Venue.TheatreID)

	layout := grid(2, 3)
	layout[0].Accessible, layout[1].Companion, layout[5].Category = true, true, "PREMIUM"
	r := mine.Post(path, map[string]any{"name": "Audi 2", "seats": layout})
	webtest.Want(t, r, http.StatusCreated)
	if r.Num("seats") != 6 || r.Num("screen_id") == 0 {
		t.Fatalf("created = %s", r)
	}
	screen := fmt.Sprintf("/api/v1/admin/screens/%d", int64(r.Num("screen_id")))

	t.Run("it reads back with its categories", func(t *testing.T) {
		got := mine.Get(screen)
		webtest.Want(t, got, http.StatusOK)
		if got.Str("name") != "Audi 2" || got.Num("theatre_id") != float64(e.Venue.TheatreID) ||
			!slices.Equal(got.Strs("categories"), []string{"PREMIUM", "STANDARD"}) {
			t.Fatalf("screen = %s", got)
		}
		seats := got.JSON["seats"].([]any)
		first, second := seats[0].(map[string]any), seats[1].(map[string]any)
		if len(seats) != 6 || first["id"] != "A1" || first["accessible"] != true || second["companion"] != true || first["grid_col"] != 0.0 {
			t.Fatalf("seats = %v", seats)
		}
	})
	t.Run("an admin of another theatre finds nothing", func(t *testing.T) {
		before := screenCount(t, e)
		webtest.WantError(t, stranger.Get(screen), http.StatusNotFound, "not_found")
		webtest.WantError(t, put(stranger, screen+"/seats", map[string]any{"seats": grid(1, 1)}), http.StatusNotFound, "not_found")
		webtest.WantError(t, stranger.Post(path, map[string]any{"name": "Mine now", "seats": grid(1, 1)}), http.StatusNotFound, "not_found")
		if after := screenCount(t, e); after != before {
			t.Fatalf("changed: %s -> %s", before, after)
		}
	})
	t.Run("a moviegoer is forbidden, a guest must sign in", func(t *testing.T) {
		webtest.WantError(t, e.User(t).Get(screen), http.StatusForbidden, "forbidden")
		webtest.WantError(t, e.User(t).Post(path, map[string]any{"name": "X", "seats": grid(1, 1)}), http.StatusForbidden, "forbidden")
		webtest.WantError(t, e.Guest().Get(screen), http.StatusUnauthorized, "unauthenticated")
	})
	t.Run("the platform admin reads any screen", func(t *testing.T) {
		webtest.Want(t, platform.Get(screen), http.StatusOK)
		webtest.WantError(t, platform.Get("/api/v1/admin/screens/999999"), http.StatusNotFound, "not_found")
		webtest.WantError(t, platform.Get("/api/v1/admin/screens/abc"), http.StatusNotFound, "not_found")
	})

	t.Run("bad input is refused and changes nothing", func(t *testing.T) {
		before := screenCount(t, e)
		dupCell := grid(1, 2)
		dupCell[1].GridCol = 0
		badCat := grid(1, 2)
		badCat[1].Category = "premium"
		for _, tc := range []struct {
			name   string
			body   any
			status int
			code   string
			seat   string
		}{
			{"a duplicate seat id", map[string]any{"name": "Dup", "seats": slices.Concat(grid(1, 1), []seat{{ID: "A1", Row: "A", Number: 2, Category: "STANDARD", GridCol: 1}})}, 422, "invalid_seats", "A1"},
			{"a duplicate grid cell", map[string]any{"name": "Dup", "seats": dupCell}, 422, "invalid_seats", "A2"},
			{"a bad category", map[string]any{"name": "Cat", "seats": badCat}, 422, "invalid_seats", "A2"},
			{"no seats", map[string]any{"name": "Empty", "seats": []seat{}}, 422, "invalid_seats", ""},
			{"a name the theatre has", map[string]any{"name": "Audi 2", "seats": grid(1, 1)}, 422, "invalid_name", ""},
			{"no name", map[string]any{"seats": grid(1, 1)}, 422, "invalid_name", ""},
			{"an unknown field", map[string]any{"name": "X", "seats": grid(1, 1), "colour": "red"}, 400, "unknown_field", ""},
			{"not JSON", "{", 400, "malformed_json", ""},
			{"a body over 64 KiB", strings.Repeat(" ", 70<<10) + "{}", 413, "body_too_large", ""},
			{"a seat number as text", `{"name":"X","seats":[{"id":"A1","row":"A","number":"one","category":"STANDARD","grid_row":0,"grid_col":0}]}`, 400, "invalid_field_type", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := mine.Post(path, tc.body)
				webtest.WantError(t, r, tc.status, tc.code)
				if tc.seat != "" && (r.Str("seat") != tc.seat || !strings.Contains(r.Str("message"), "Seat "+tc.seat)) {
					t.Fatalf("answer %s does not name seat %s", r, tc.seat)
				}
			})
		}
		if after := screenCount(t, e); after != before {
			t.Fatalf("changed: %s -> %s", before, after)
		}
	})
}

func TestReplaceLayoutOverHTTP(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	mine := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	screenID := e.Count(t, `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
	path := fmt.Sprintf("/api/v1/admin/screens/%d/seats", screenID)
	buyer := e.User(t)
	buyer.MustHold(t, "A1", "A2")

	t.Run("removing, moving or re-categorizing a held seat is refused", func(t *testing.T) {
		seats := fixtureLayout()
		seats[1].GridRow = 20         // A2 moves
		seats[2].Category = "PREMIUM" // A3 is free: fine on its own
		before := e.Snapshot(t) + screenCount(t, e)
		r := put(mine, path, map[string]any{"seats": seats[1:]}) // A1 goes
		webtest.WantError(t, r, http.StatusConflict, "layout_in_use")
		if !slices.Equal(r.Strs("seats"), []string{"A1", "A2"}) || fmt.Sprint(r.JSON["shows"]) != fmt.Sprintf("[%d]", e.Show) {
			t.Fatalf("answer = %s", r)
		}
		if after := e.Snapshot(t) + screenCount(t, e); after != before {
			t.Fatalf("changed:\n%s\n%s", before, after)
		}
	})
	t.Run("a new category without a price is refused", func(t *testing.T) {
		seats := fixtureLayout()
		seats[50].Category = "RECLINER"
		r := put(mine, path, map[string]any{"seats": seats})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "missing_prices")
		if !slices.Equal(r.Strs("categories"), []string{"RECLINER"}) {
			t.Fatalf("answer = %s", r)
		}
	})
	t.Run("changes to free seats apply, and a new seat is bookable at once", func(t *testing.T) {
		seats := fixtureLayout()
		seats[2].Category = "PREMIUM"
		seats = slices.Concat(seats[:99], []seat{{ID: "K1", Row: "K", Number: 1, Category: "STANDARD", GridRow: 11, GridCol: 0, Accessible: true}}) // J10 goes
		r := put(mine, path, map[string]any{"seats": seats})
		webtest.Want(t, r, http.StatusOK)
		if r.Num("seats") != 100 || r.Num("screen_id") != float64(screenID) ||
			!slices.Equal(r.Strs("added"), []string{"K1"}) || !slices.Equal(r.Strs("removed"), []string{"J10"}) ||
			!slices.Equal(r.Strs("recategorized"), []string{"A3"}) {
			t.Fatalf("answer = %s", r)
		}
		status, _ := e.User(t).SeatStatus(t)
		if _, gone := status["J10"]; gone || status["K1"] != "AVAILABLE" {
			t.Fatalf("seat map: J10 %q, K1 %q", status["J10"], status["K1"])
		}
		h := e.User(t).HoldOn(e.Show, "new-seat", "K1", "A3")
		webtest.Want(t, h, http.StatusCreated)
		if h.Num("amount_minor") != float64(pgtest.Prices["STANDARD"]+pgtest.Prices["PREMIUM"]) {
			t.Fatalf("hold = %s", h)
		}
		if n := e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'screen.replace_layout'`); n != 1 {
			t.Fatalf("%d audit entries", n)
		}
	})
	t.Run("a bad seat is named", func(t *testing.T) {
		seats := fixtureLayout()
		seats[7].Number = 0
		r := put(mine, path, map[string]any{"seats": seats})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_seats")
		if r.Str("seat") != "A8" || r.Num("index") != 7 {
			t.Fatalf("answer = %s", r)
		}
	})
}

func TestCreateMovieOverHTTP(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	platform := e.Admin(t, auth.RolePlatformAdmin)
	theatre := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	body := map[string]any{"title": "Monsoon", "duration_minutes": 142, "rating": "U", "language": "Tamil",
		"synopsis": "Rain.", "genres": []string{"Drama"}}

	r := platform.Post("/api/v1/admin/movies", body)
	webtest.Want(t, r, http.StatusCreated)
	if r.Num("movie_id") == 0 || r.Str("title") != "Monsoon" || r.Num("duration_minutes") != 142 {
		t.Fatalf("created = %s", r)
	}
	movies := e.Count(t, `SELECT count(*) FROM movies`)
	webtest.WantError(t, theatre.Post("/api/v1/admin/movies", body), http.StatusForbidden, "forbidden")
	webtest.WantError(t, e.User(t).Post("/api/v1/admin/movies", body), http.StatusForbidden, "forbidden")
	for field, value := range map[string]any{"title": "", "duration_minutes": 0, "genres": []string{"a", "b", "c", "d", "e", "f", "g"}} {
		bad := map[string]any{}
		for k, v := range body {
			bad[k] = v
		}
		bad[field] = value
		webtest.WantError(t, platform.Post("/api/v1/admin/movies", bad), http.StatusUnprocessableEntity, "invalid_"+field)
	}
	if n := e.Count(t, `SELECT count(*) FROM movies`); n != movies {
		t.Fatalf("%d movies, want %d", n, movies)
	}
}

// noisy is a PNG of w x h pixels that does not compress much.
func noisy(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(rand.IntN(256))
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestUploadPoster(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	platform := e.Admin(t, auth.RolePlatformAdmin)
	path := fmt.Sprintf("/api/v1/admin/movies/%d/poster", e.Venue.MovieID)
	upload := func(c *webtest.Client, data []byte, contentType string) *webtest.Response {
		return c.Send(webtest.Req{Method: "PUT", Path: path + "?alt=The+poster", Body: data, Header: map[string]string{"Content-Type": contentType}})
	}

	big := noisy(t, 800, 400) // over the 64 KiB every other body is held to
	if len(big) < 100<<10 {
		t.Fatalf("test image is only %d bytes", len(big))
	}
	r := upload(platform, big, "application/octet-stream")
	webtest.Want(t, r, http.StatusOK)
	if r.Num("movie_id") != float64(e.Venue.MovieID) || r.Num("width") != 640 || r.Num("height") != 320 || r.Str("version") == "" {
		t.Fatalf("uploaded = %s", r)
	}

	t.Run("the public page serves it", func(t *testing.T) {
		got := e.Guest().Get(fmt.Sprintf("/movies/%d/poster", e.Venue.MovieID))
		webtest.Want(t, got, http.StatusOK)
		cfg, format, err := image.DecodeConfig(bytes.NewReader(got.Body))
		if err != nil || format != "png" || got.Header.Get("Content-Type") != "image/png" || cfg.Width != 640 || cfg.Height != 320 {
			t.Fatalf("served %s %dx%d (%v), Content-Type %q", format, cfg.Width, cfg.Height, err, got.Header.Get("Content-Type"))
		}
		if etag := got.Header.Get("ETag"); etag != `"`+r.Str("version")+`"` {
			t.Fatalf("ETag %s, version %s", etag, r.Str("version"))
		}
	})

	t.Run("bad uploads are refused and change nothing", func(t *testing.T) {
		version := e.Count(t, `SELECT count(*) FROM audit_log`)
		var gifData bytes.Buffer
		if err := gif.Encode(&gifData, image.NewPaletted(image.Rect(0, 0, 4, 4), []color.Color{color.Black}), nil); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, contentType string
			data              []byte
			status            int
			code              string
		}{
			{"a GIF that says it is a PNG", "image/png", gifData.Bytes(), 415, "unsupported_image"},
			{"HTML", "image/jpeg", []byte("<html><script>alert(1)</script></html>"), 415, "unsupported_image"},
			{"a broken PNG", "image/png", big[:500], 422, "invalid_image"},
			{"over 2 MiB", "image/png", append(slices.Clone(big), make([]byte, 2<<20)...), 413, "poster_too_large"},
			{"nothing", "image/png", nil, 400, "body_required"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				webtest.WantError(t, upload(platform, tc.data, tc.contentType), tc.status, tc.code)
			})
		}
		webtest.WantError(t, upload(e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID), big, "image/png"), http.StatusForbidden, "forbidden")
		webtest.WantError(t, platform.Send(webtest.Req{Method: "PUT", Path: "/api/v1/admin/movies/999999/poster", Body: big}), http.StatusNotFound, "not_found")
		if n := e.Count(t, `SELECT count(*) FROM audit_log`); n != version {
			t.Fatalf("audit log grew from %d to %d", version, n)
		}
		if v := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT encode(substr(sha256, 1, 8), 'hex') FROM posters WHERE movie_id = $1`, e.Venue.MovieID); v != r.Str("version") {
			t.Fatalf("poster version %s, want %s", v, r.Str("version"))
		}
	})
}

// A screen's ideal viewing point over the API: set with a new screen or a
// layout, kept by a layout that does not send it, reset by null, and moved
// where best available seats a party; bad points change nothing; another
// theatre's screen is not found.
func TestScreenIdealOverHTTP(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	mine := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	other := pgtest.NewVenue(t, e.Store)
	stranger := e.Admin(t, auth.RoleTheatreAdmin, other.TheatreID)
	screenID := e.Count(t, `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
	screen := fmt.Sprintf("/api/v1/admin/screens/%d", screenID)
	ideal := func(r *webtest.Response) string {
		t.Helper()
		return fmt.Sprint(r.JSON["ideal"])
	}
	// best holds the best 2 seats of the show for a new moviegoer and lets
	// them go again.
	best := func() []string {
		t.Helper()
		u := e.User(t)
		h := u.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", e.Show),
			Header: map[string]string{"Idempotency-Key": "best"}, Body: map[string]any{"best_available": map[string]any{"count": 2}}})
		webtest.Want(t, h, http.StatusCreated)
		webtest.Want(t, u.Delete("/api/v1/holds/"+h.Str("hold_id")), http.StatusOK)
		return h.Strs("seats")
	}

	if got := ideal(mine.Get(screen)); got != "<nil>" {
		t.Fatalf("a new screen's ideal = %s, want null", got)
	}
	// The fixture is 10 rows of 10: two thirds back is row G, the centre
	// between seats 5 and 6.
	if got := best(); !slices.Equal(got, []string{"G5", "G6"}) {
		t.Fatalf("by default: %v, want G5, G6", got)
	}

	t.Run("set with the layout, the choice moves there", func(t *testing.T) {
		r := put(mine, screen+"/seats", map[string]any{"seats": fixtureLayout(), "ideal": map[string]int{"grid_row": 2, "grid_col": 1}})
		webtest.Want(t, r, http.StatusOK)
		if got := ideal(r); got != "map[grid_col:1 grid_row:2]" {
			t.Fatalf("answer's ideal = %s", got)
		}
		if got := ideal(mine.Get(screen)); got != "map[grid_col:1 grid_row:2]" {
			t.Fatalf("read back: %s", got)
		}
		if got := best(); !slices.Equal(got, []string{"C1", "C2"}) {
			t.Fatalf("with the best view at row C, seat 2: %v, want C1, C2", got)
		}
	})
	t.Run("a layout without it keeps it", func(t *testing.T) {
		r := put(mine, screen+"/seats", map[string]any{"seats": fixtureLayout()})
		webtest.Want(t, r, http.StatusOK)
		if got := ideal(r); got != "map[grid_col:1 grid_row:2]" {
			t.Fatalf("ideal = %s, want it kept", got)
		}
	})
	t.Run("bad points are refused and change nothing", func(t *testing.T) {
		before := e.Count(t, `SELECT count(*) FROM audit_log`)
		for _, tc := range []struct {
			name   string
			ideal  any
			status int
			code   string
		}{
			{"past the last row", map[string]int{"grid_row": 10, "grid_col": 0}, 422, "invalid_ideal"},
			{"left of the grid", map[string]int{"grid_row": 0, "grid_col": -1}, 422, "invalid_ideal"},
			{"text", "middle", 400, "invalid_field_type"},
			{"an unknown field", map[string]int{"row": 1, "col": 1}, 400, "invalid_field_type"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := put(mine, screen+"/seats", map[string]any{"seats": fixtureLayout(), "ideal": tc.ideal})
				webtest.WantError(t, r, tc.status, tc.code)
				if r.Str("field") != "ideal" {
					t.Fatalf("answer %s names no field ideal", r)
				}
			})
		}
		if got := ideal(mine.Get(screen)); got != "map[grid_col:1 grid_row:2]" {
			t.Fatalf("ideal = %s after refusals", got)
		}
		if after := e.Count(t, `SELECT count(*) FROM audit_log`); after != before {
			t.Fatalf("audit entries %d -> %d", before, after)
		}
	})
	t.Run("another theatre's admin finds nothing and changes nothing", func(t *testing.T) {
		webtest.WantError(t, put(stranger, screen+"/seats", map[string]any{"seats": fixtureLayout(), "ideal": nil}), http.StatusNotFound, "not_found")
		if got := ideal(mine.Get(screen)); got != "map[grid_col:1 grid_row:2]" {
			t.Fatalf("ideal = %s after a stranger's try", got)
		}
	})
	t.Run("null resets it to the default", func(t *testing.T) {
		r := put(mine, screen+"/seats", map[string]any{"seats": fixtureLayout(), "ideal": nil})
		webtest.Want(t, r, http.StatusOK)
		if got := ideal(r); got != "<nil>" {
			t.Fatalf("ideal = %s, want null", got)
		}
		if got := best(); !slices.Equal(got, []string{"G5", "G6"}) {
			t.Fatalf("reset: %v, want G5, G6", got)
		}
	})
	t.Run("a new screen may name it", func(t *testing.T) {
		r := mine.Post(fmt.Sprintf("/api/v1/admin/theatres/%d/screens", e.Venue.TheatreID),
			map[string]any{"name": "Audi 7", "seats": grid(3, 3), "ideal": map[string]int{"grid_row": 0, "grid_col": 2}})
		webtest.Want(t, r, http.StatusCreated)
		got := mine.Get(fmt.Sprintf("/api/v1/admin/screens/%d", int64(r.Num("screen_id"))))
		if ideal(got) != "map[grid_col:2 grid_row:0]" {
			t.Fatalf("new screen = %s", got)
		}
		webtest.WantError(t, mine.Post(fmt.Sprintf("/api/v1/admin/theatres/%d/screens", e.Venue.TheatreID),
			map[string]any{"name": "Audi 8", "seats": grid(3, 3), "ideal": map[string]int{"grid_row": 3, "grid_col": 0}}), http.StatusUnprocessableEntity, "invalid_ideal")
	})
}
