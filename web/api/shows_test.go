package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestShowListing(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	d := time.Now().In(kolkata).AddDate(0, 0, 5)
	day := time.Date(d.Year(), d.Month(), d.Day(), 10, 0, 0, 0, kolkata)
	other := pgtest.NewVenue(t, e.Store)
	var (
		s1 = pgtest.NewShow(t, e.Store, e.Venue, 2, 2, day)
		s2 = pgtest.NewShow(t, e.Store, e.Venue, 2, 2, day.Add(3*time.Hour))
		s3 = pgtest.NewShow(t, e.Store, e.Venue, 2, 2, day.Add(6*time.Hour))
		s4 = pgtest.NewShow(t, e.Store, e.Venue, 2, 2, day.Add(24*time.Hour))
		o1 = pgtest.NewShow(t, e.Store, other, 2, 2, day.Add(time.Hour))
	)
	pgtest.NewShow(t, e.Store, e.Venue, 2, 2, time.Now().Add(-time.Minute)) // started: never listed
	// e.show starts in 72 hours, before all of these.
	all := []int64{e.Show, s1, o1, s2, s3, s4}
	otherSlug := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT slug FROM cities WHERE id = $1`, other.CityID)

	list := func(t *testing.T, query string) ([]int64, string) {
		t.Helper()
		r := e.Guest().Get("/api/v1/shows?" + query)
		webtest.Want(t, r, http.StatusOK)
		var ids []int64
		for _, s := range r.JSON["shows"].([]any) {
			ids = append(ids, int64(s.(map[string]any)["id"].(float64)))
		}
		return ids, r.Str("next_cursor")
	}

	t.Run("soonest first, started shows left out", func(t *testing.T) {
		ids, cursor := list(t, "")
		if !slices.Equal(ids, all) || cursor != "" {
			t.Fatalf("shows %v (cursor %q), want %v and no cursor", ids, cursor, all)
		}
	})

	t.Run("pages follow the cursor", func(t *testing.T) {
		var got []int64
		cursor, pages := "", 0
		for {
			q := url.Values{"limit": {"4"}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			ids, next := list(t, q.Encode())
			got = append(got, ids...)
			pages++
			if len(ids) == 4 && next == "" {
				t.Fatalf("a full page without next_cursor")
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if !slices.Equal(got, all) || pages != 2 {
			t.Fatalf("paged %v in %d pages, want %v in 2", got, pages, all)
		}
	})

	t.Run("filters", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			want  []int64
		}{
			{"city=" + otherSlug, []int64{o1}},
			{fmt.Sprintf("city=%d", other.CityID), []int64{o1}},
			{"city=nowhere", nil},
			{fmt.Sprintf("movie=%d", other.MovieID), []int64{o1}},
			{fmt.Sprintf("theatre=%d", e.Venue.TheatreID), []int64{e.Show, s1, s2, s3, s4}},
			{"date=" + day.Format(time.DateOnly), []int64{s1, o1, s2, s3}},
			{"date=" + day.AddDate(0, 0, 1).Format(time.DateOnly), []int64{s4}},
			{fmt.Sprintf("date=%s&theatre=%d&limit=2", day.Format(time.DateOnly), e.Venue.TheatreID), []int64{s1, s2}},
		} {
			t.Run(tc.query, func(t *testing.T) {
				if ids, _ := list(t, tc.query); !slices.Equal(ids, tc.want) {
					t.Fatalf("%s: shows %v, want %v", tc.query, ids, tc.want)
				}
			})
		}
	})

	t.Run("one show with its prices", func(t *testing.T) {
		r := e.Guest().Get(fmt.Sprintf("/api/v1/shows/%d", o1))
		webtest.Want(t, r, http.StatusOK)
		prices, _ := r.JSON["prices"].(map[string]any)
		if int64(r.Num("id")) != o1 || r.Str("currency") != "INR" || prices["STANDARD"] != 25000.0 || prices["PREMIUM"] != 45000.0 {
			t.Fatalf("show = %s", r)
		}
		webtest.WantError(t, e.Guest().Get("/api/v1/shows/424242"), http.StatusNotFound, "not_found")
		webtest.WantError(t, e.Guest().Get("/api/v1/shows/x1"), http.StatusNotFound, "not_found")
	})
}
