package adminapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestRescheduleShowAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	who := newCallers(t, e)
	e.Book(t, e.Show, "A1")
	e.Book(t, e.Show, "A2", "A3")
	screen := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
	starts := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT starts_at FROM shows WHERE id = $1`, e.Show)
	next := who.platform.Post("/api/v1/admin/shows", map[string]any{"screen_id": screen, "movie_id": e.Venue.MovieID,
		"starts_at": starts.Add(24 * time.Hour).Format(time.RFC3339), "currency": "INR", "prices": pgtest.Prices})
	webtest.Want(t, next, http.StatusCreated)
	path := showPath(e.Show, "/reschedule")
	at := func(t time.Time) map[string]any { return map[string]any{"starts_at": t.Format(time.RFC3339Nano)} }
	same := func(r *webtest.Response, key string, want time.Time) bool {
		got, err := time.Parse(time.RFC3339, r.Str(key))
		return err == nil && got.Equal(want) && got.Location() == time.UTC
	}

	t.Run("refused, nothing changes", func(t *testing.T) {
		state := func() string {
			return e.Snapshot(t) + " " + pgtest.Scalar[string](t, e.Store.Pool(), `
				SELECT format('starts=%s moves=%s mails=%s audit=%s', (SELECT starts_at FROM shows WHERE id = $1),
				       (SELECT count(*) FROM show_reschedules), (SELECT count(*) FROM mails), (SELECT count(*) FROM audit_log))`, e.Show)
		}
		before := state()
		wantRefusedByEveryoneElse(t, e, who, webtest.Req{Method: "POST", Path: path, Body: at(starts.Add(time.Hour))})
		// 120 minutes and 15 of cleaning: 134 minutes before the next show
		// runs into it.
		r := who.admin.Post(path, at(starts.Add(24*time.Hour-134*time.Minute)))
		webtest.WantError(t, r, http.StatusConflict, "show_overlap")
		if int64(r.Num("conflicting_show_id")) != int64(next.Num("show_id")) || r.Str("conflicting_starts_at") == "" {
			t.Errorf("overlap names %s", r)
		}
		webtest.WantError(t, who.admin.Post(path, at(e.Now().Add(-time.Minute))), http.StatusUnprocessableEntity, "show_in_past")
		webtest.WantError(t, who.admin.Post(path, at(starts)), http.StatusUnprocessableEntity, "same_start")
		webtest.WantError(t, who.admin.Post(path, at(e.Now().Add(3*365*24*time.Hour))), http.StatusUnprocessableEntity, "show_too_far_ahead")
		webtest.WantError(t, who.admin.Post(path, map[string]any{"starts_at": "tomorrow at six"}), http.StatusUnprocessableEntity, "invalid_starts_at")
		webtest.WantError(t, who.admin.Post(path, map[string]any{}), http.StatusUnprocessableEntity, "invalid_starts_at")
		webtest.WantError(t, who.admin.Post(path, map[string]any{"starts_at": starts.Add(time.Hour).Format(time.RFC3339Nano), "screen_id": 1}),
			http.StatusBadRequest, "unknown_field")
		webtest.WantError(t, who.admin.Post(showPath(999999, "/reschedule"), at(starts.Add(time.Hour))), http.StatusNotFound, "not_found")
		if after := state(); after != before {
			t.Fatalf("refused moves changed %s -> %s", before, after)
		}
	})

	t.Run("moved: the show as the schedule lists it, what moved and who is told", func(t *testing.T) {
		to := starts.Add(3 * time.Hour).In(time.FixedZone("IST", 19800))
		r := who.admin.Post(path, at(to))
		webtest.Want(t, r, http.StatusOK)
		if int64(r.Num("show_id")) != e.Show || !same(r, "starts_at", to) || !same(r, "ends_at", to.Add(135*time.Minute)) || r.Str("status") != "SCHEDULED" ||
			r.Num("bookings_moved") != 2 || r.Num("moviegoers_told") != 2 || r.Str("movie_title") == "" {
			t.Fatalf("moved = %s", r)
		}
		if counts := r.JSON["counts"].(map[string]any); counts["booked"] != float64(3) {
			t.Fatalf("counts = %v, want 3 booked", counts)
		}
		// Moviegoers read the show as it is now.
		if got := e.Guest().Get(fmt.Sprintf("/api/v1/shows/%d", e.Show)); !same(got, "starts_at", to) {
			t.Fatalf("the public show = %s", got)
		}
		// A cancelled show stays where it was.
		webtest.Want(t, who.admin.Post(showPath(e.Show, "/cancel"), nil), http.StatusOK)
		webtest.WantError(t, who.admin.Post(path, at(to.Add(time.Hour))), http.StatusConflict, "show_cancelled")
	})
}
