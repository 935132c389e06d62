package adminapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestUpdateMovieOverHTTP(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	platform := e.Admin(t, auth.RolePlatformAdmin)
	path := fmt.Sprintf("/api/v1/admin/movies/%d", e.Venue.MovieID)
	movie := func() string {
		return pgtest.Scalar[string](t, e.Store.Pool(), `SELECT format('%s|%s|%s', title, duration_minutes, rating) FROM movies WHERE id = $1`, e.Venue.MovieID)
	}
	ends := func(show int64) time.Time {
		return pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT ends_at FROM shows WHERE id = $1`, show)
	}
	was := movie()

	t.Run("every field at fault is named, nothing changes", func(t *testing.T) {
		r := patch(platform, path, map[string]any{"title": "", "duration_minutes": 0, "synopsis": "ok"})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_title")
		fields, _ := r.JSON["fields"].(map[string]any)
		if len(fields) != 2 || fields["title"] == nil || fields["duration_minutes"] == nil {
			t.Fatalf("fields = %v, want title and duration_minutes", r.JSON["fields"])
		}
		if movie() != was || e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'movie.update'`) != 0 {
			t.Fatalf("a refused change left %s", movie())
		}
	})
	t.Run("garbage is refused with a 4xx", func(t *testing.T) {
		webtest.WantError(t, patch(platform, path, `{"title": 12}`), http.StatusBadRequest, "invalid_field_type")
		webtest.WantError(t, patch(platform, path, `{"titel": "x"}`), http.StatusBadRequest, "unknown_field")
		webtest.WantError(t, patch(platform, "/api/v1/admin/movies/999999999", map[string]any{"title": "X"}), http.StatusNotFound, "not_found")
		webtest.WantError(t, patch(platform, "/api/v1/admin/movies/abc", map[string]any{"title": "X"}), http.StatusNotFound, "not_found")
		if movie() != was {
			t.Fatalf("garbage changed the movie to %s", movie())
		}
	})
	t.Run("the fields sent change", func(t *testing.T) {
		r := patch(platform, path, map[string]any{"title": "The Lost Algorithm", "rating": "UA"})
		webtest.Want(t, r, http.StatusOK)
		if r.Str("title") != "The Lost Algorithm" || r.Str("rating") != "UA" || r.Num("duration_minutes") != 120 || r.Num("ends_moved_minutes") != 0 {
			t.Fatalf("answer = %s", r)
		}
	})
	t.Run("a longer running time moves the show's end", func(t *testing.T) {
		before := ends(e.Show)
		r := patch(platform, path, map[string]any{"duration_minutes": 150})
		webtest.Want(t, r, http.StatusOK)
		moved, _ := r.JSON["shows_moved"].([]any)
		if len(moved) != 1 || moved[0] != float64(e.Show) || r.Num("ends_moved_minutes") != 30 {
			t.Fatalf("answer = %s, want show %d moved by 30 minutes", r, e.Show)
		}
		if got := ends(e.Show).Sub(before); got != 30*time.Minute {
			t.Fatalf("the show ends %v later", got)
		}
	})
	t.Run("one that would run into the next show is a 409 naming both", func(t *testing.T) {
		screen := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
		next, err := e.Store.CreateShow(t.Context(), catalog.Show{MovieID: e.Venue.MovieID, ScreenID: screen,
			StartsAt: ends(e.Show).Add(15 * time.Minute), EndsAt: ends(e.Show).Add(3 * time.Hour), Currency: "INR", Prices: pgtest.Prices})
		if err != nil {
			t.Fatal(err)
		}
		r := patch(platform, path, map[string]any{"duration_minutes": 170})
		webtest.WantError(t, r, http.StatusConflict, "runtime_overlap")
		shows, _ := r.JSON["shows"].([]any)
		first, _ := shows[0].(map[string]any)
		if len(shows) != 1 || first["show_id"] != float64(e.Show) || first["conflicting_show_id"] != float64(next) {
			t.Fatalf("answer = %s, want show %d running into %d", r, e.Show, next)
		}
		if movie() != "The Lost Algorithm|150|UA" {
			t.Fatalf("a refused change left %s", movie())
		}
	})
}

func TestRenameAndRetireScreenOverHTTP(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	manager := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	screen := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
	path := fmt.Sprintf("/api/v1/admin/screens/%d", screen)

	t.Run("renamed", func(t *testing.T) {
		r := patch(manager, path, map[string]any{"name": "Audi 1"})
		webtest.Want(t, r, http.StatusOK)
		if r.Str("name") != "Audi 1" || r.JSON["retired"] != false {
			t.Fatalf("answer = %s", r)
		}
		webtest.WantError(t, patch(manager, path, map[string]any{"name": ""}), http.StatusUnprocessableEntity, "invalid_name")
		webtest.WantError(t, patch(manager, path, map[string]any{"retired": "yes"}), http.StatusBadRequest, "invalid_field_type")
	})
	t.Run("not retired while a show is to come, which the answer names", func(t *testing.T) {
		r := patch(manager, path, map[string]any{"retired": true})
		webtest.WantError(t, r, http.StatusConflict, "screen_has_shows")
		shows, _ := r.JSON["shows"].([]any)
		first, _ := shows[0].(map[string]any)
		if r.Num("count") != 1 || len(shows) != 1 || first["show_id"] != float64(e.Show) {
			t.Fatalf("answer = %s", r)
		}
		if n := e.Count(t, `SELECT count(*) FROM screens WHERE retired_at IS NOT NULL`); n != 0 {
			t.Fatal("a refused retirement retired the screen")
		}
	})
	t.Run("retired once its show is cancelled: no new shows, marked in the theatre", func(t *testing.T) {
		webtest.Want(t, manager.Post(fmt.Sprintf("/api/v1/admin/shows/%d/cancel", e.Show), nil), http.StatusOK)
		r := patch(manager, path, map[string]any{"retired": true})
		webtest.Want(t, r, http.StatusOK)
		if r.JSON["retired"] != true || r.Str("retired_at") == "" {
			t.Fatalf("answer = %s", r)
		}
		r = manager.Post("/api/v1/admin/shows", map[string]any{
			"screen_id": screen, "movie_id": e.Venue.MovieID, "starts_at": time.Now().Add(96 * time.Hour).UTC().Format(time.RFC3339),
			"currency": "INR", "prices": pgtest.Prices})
		webtest.WantError(t, r, http.StatusConflict, "screen_retired")
		th := manager.Get(fmt.Sprintf("/api/v1/admin/theatres/%d", e.Venue.TheatreID))
		screens, _ := th.JSON["screens"].([]any)
		sc, _ := screens[0].(map[string]any)
		if len(screens) != 1 || sc["retired"] != true {
			t.Fatalf("theatre = %s", th)
		}
		if got := manager.Get(path); got.JSON["retired"] != true {
			t.Fatalf("GET screen = %s", got)
		}
	})
	t.Run("back in use", func(t *testing.T) {
		r := patch(manager, path, map[string]any{"retired": false})
		webtest.Want(t, r, http.StatusOK)
		if r.JSON["retired"] != false || r.JSON["retired_at"] != nil {
			t.Fatalf("answer = %s", r)
		}
	})
}

func TestAddACategoryWithPricesOverHTTP(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	manager := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	screen := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
	path := fmt.Sprintf("/api/v1/admin/screens/%d/seats", screen)
	seats := fixtureLayout()
	for i := range seats[:10] {
		seats[i].Category = "VIP" // row A
	}
	snapshot := e.Snapshot(t)

	r := put(manager, path, map[string]any{"seats": seats})
	webtest.WantError(t, r, http.StatusUnprocessableEntity, "missing_prices")
	if shows, _ := r.JSON["shows"].([]any); len(shows) != 1 || shows[0] != float64(e.Show) {
		t.Fatalf("answer = %s, want the show named", r)
	}
	r = put(manager, path, map[string]any{"seats": seats, "prices": map[string]any{"VIP": -5}, "show_prices": map[string]any{"x": map[string]any{"VIP": 1}}})
	webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_show_prices")
	r = put(manager, path, map[string]any{"seats": seats, "prices": map[string]any{"VIP": -5},
		"show_prices": map[string]any{fmt.Sprint(e.Show): map[string]any{"VIP": 2_000_000_000}}})
	webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_prices.VIP")
	if fields, _ := r.JSON["fields"].(map[string]any); len(fields) != 2 {
		t.Fatalf("answer = %s, want both prices named", r)
	}
	webtest.WantError(t, put(manager, path, map[string]any{"seats": seats, "prices": map[string]any{"VIP": 1.5}}), http.StatusBadRequest, "invalid_field_type")
	if got := e.Snapshot(t); got != snapshot {
		t.Fatalf("refused layouts changed the show:\n%s\n%s", snapshot, got)
	}
	if n := e.Count(t, `SELECT (SELECT count(*) FROM show_seats WHERE category = 'VIP') + (SELECT count(*) FROM show_prices WHERE category = 'VIP')`); n != 0 {
		t.Fatalf("refused layouts left %d VIP seats and prices", n)
	}

	r = put(manager, path, map[string]any{"seats": seats, "prices": map[string]any{"VIP": 60000}})
	webtest.Want(t, r, http.StatusOK)
	added, _ := r.JSON["prices_added"].([]any)
	first, _ := added[0].(map[string]any)
	if len(added) != 1 || first["show_id"] != float64(e.Show) || first["category"] != "VIP" || first["price_minor"] != float64(60000) {
		t.Fatalf("answer = %s", r)
	}
	seatsNow := e.Guest().Get(fmt.Sprintf("/api/v1/shows/%d/seats", e.Show))
	for _, s := range seatsNow.JSON["seats"].([]any) {
		if st := s.(map[string]any); st["id"] == "A1" && (st["category"] != "VIP" || st["price_minor"] != float64(60000)) {
			t.Fatalf("A1 = %v", st)
		}
	}
}
