package postgres_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

func TestBrowse(t *testing.T) {
	w := newWorld(t)
	s := w.store
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	week := 7 * 24 * time.Hour

	// A second show in a week and a day: outside a seven-day window.
	later := pgtest.NewShow(t, s, w.venue, 2, 2, w.start.Add(week+24*time.Hour))
	// A show that has started: never offered.
	started := pgtest.NewShow(t, s, w.venue, 2, 2, w.start.Add(-time.Hour))

	t.Run("Now is the store clock", func(t *testing.T) {
		now, err := s.Now(ctx)
		if err != nil || !now.Equal(w.clock.Now()) {
			t.Fatalf("now = %v, %v; want %v", now, err, w.clock.Now())
		}
	})

	t.Run("CityBySlug", func(t *testing.T) {
		cities, err := s.Cities(ctx)
		if err != nil || len(cities) != 1 {
			t.Fatalf("cities = %v, %v", cities, err)
		}
		c, err := s.CityBySlug(ctx, cities[0].Slug)
		if err != nil || c.ID != w.venue.CityID || c.Name != "Testville" {
			t.Fatalf("city = %+v, %v", c, err)
		}
		for _, slug := range []string{"nowhere", "", "bad\x00slug"} {
			if _, err := s.CityBySlug(ctx, slug); !errors.Is(err, booking.ErrNotFound) {
				t.Errorf("%q: err = %v, want not found", slug, err)
			}
		}
	})

	t.Run("Theatre, CityTheatres and Movie", func(t *testing.T) {
		th, err := s.Theatre(ctx, w.venue.TheatreID)
		if err != nil || th.Name != "Test Cinema" || th.TimeZone != "Asia/Kolkata" || th.CityName != "Testville" {
			t.Fatalf("theatre = %+v, %v", th, err)
		}
		list, err := s.CityTheatres(ctx, w.venue.CityID)
		if err != nil || len(list) != 1 || list[0].ID != th.ID {
			t.Fatalf("city theatres = %+v, %v", list, err)
		}
		m, err := s.Movie(ctx, w.venue.MovieID)
		if err != nil || m.Title != "The Last Algorithm" || m.DurationMinutes != 120 {
			t.Fatalf("movie = %+v, %v", m, err)
		}
		if _, err := s.Theatre(ctx, 987654); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("unknown theatre: %v", err)
		}
		if _, err := s.Movie(ctx, 987654); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("unknown movie: %v", err)
		}
	})

	t.Run("Showtimes offers only upcoming shows within the window", func(t *testing.T) {
		list, err := s.Showtimes(ctx, postgres.ShowtimeFilter{CityID: w.venue.CityID, Within: week})
		if err != nil {
			t.Fatal(err)
		}
		if ids := showIDs(list); !slices.Equal(ids, []int64{w.show}) {
			t.Fatalf("shows = %v, want only %d (not the later %d nor the started %d)", ids, w.show, later, started)
		}
		st := list[0]
		if st.TotalSeats != 12 || st.SeatsLeft != 12 || st.SoldOut() || st.TheatreName != "Test Cinema" || st.MovieTitle != "The Last Algorithm" {
			t.Fatalf("showtime = %+v", st)
		}
		all, err := s.Showtimes(ctx, postgres.ShowtimeFilter{TheatreID: w.venue.TheatreID})
		if err != nil || !slices.Equal(showIDs(all), []int64{w.show, later}) {
			t.Fatalf("without a window: %v, %v", showIDs(all), err)
		}
	})

	t.Run("Showtimes filters by the day in the theatre's time zone", func(t *testing.T) {
		day := w.start.Add(48 * time.Hour).In(kolkata).Format(time.DateOnly)
		list, err := s.Showtimes(ctx, postgres.ShowtimeFilter{MovieID: w.venue.MovieID, Date: day})
		if err != nil || !slices.Equal(showIDs(list), []int64{w.show}) {
			t.Fatalf("on %s: %v, %v", day, showIDs(list), err)
		}
		other := w.start.Add(24 * time.Hour).In(kolkata).Format(time.DateOnly)
		list, err = s.Showtimes(ctx, postgres.ShowtimeFilter{MovieID: w.venue.MovieID, Date: other})
		if err != nil || len(list) != 0 {
			t.Fatalf("on %s: %v, %v", other, showIDs(list), err)
		}
	})

	t.Run("ShowDays and MoviesShowing", func(t *testing.T) {
		days, err := s.ShowDays(ctx, postgres.ShowtimeFilter{CityID: w.venue.CityID})
		want := []string{
			w.start.Add(48 * time.Hour).In(kolkata).Format(time.DateOnly),
			w.start.Add(week + 24*time.Hour).In(kolkata).Format(time.DateOnly),
		}
		if err != nil || !slices.Equal(days, want) {
			t.Fatalf("days = %v, %v; want %v", days, err, want)
		}
		movies, err := s.MoviesShowing(ctx, postgres.ShowtimeFilter{CityID: w.venue.CityID, Within: week})
		if err != nil || len(movies) != 1 {
			t.Fatalf("movies = %+v, %v", movies, err)
		}
		if m := movies[0]; m.ID != w.venue.MovieID || m.Shows != 1 || m.Theatres != 1 || !m.FirstShow.Equal(w.start.Add(48*time.Hour)) {
			t.Fatalf("movie = %+v", m)
		}
		none, err := s.MoviesShowing(ctx, postgres.ShowtimeFilter{CityID: w.venue.CityID + 1000})
		if err != nil || len(none) != 0 {
			t.Fatalf("another city: %+v, %v", none, err)
		}
	})

	t.Run("a show with every seat held is sold out until the holds lapse", func(t *testing.T) {
		h1 := w.hold(w.user(), "A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4", "C1", "C2")
		w.hold(w.user(), "C3", "C4")
		list, err := s.Showtimes(ctx, postgres.ShowtimeFilter{TheatreID: w.venue.TheatreID, Within: week})
		if err != nil || len(list) != 1 || !list[0].SoldOut() || list[0].SeatsLeft != 0 {
			t.Fatalf("while held: %+v, %v", list, err)
		}
		w.clock.Set(h1.ExpiresAt)
		list, err = s.Showtimes(ctx, postgres.ShowtimeFilter{TheatreID: w.venue.TheatreID, Within: week})
		if err != nil || len(list) != 1 || list[0].SoldOut() || list[0].SeatsLeft != 12 {
			t.Fatalf("after the holds lapsed (no sweep): %+v, %v", list, err)
		}
		if n, err := s.ExpireHolds(ctx, 100); err != nil || n != 2 {
			t.Fatalf("expire holds: %d, %v", n, err)
		}
		w.clock.Set(w.start.Add(time.Hour))
	})

	t.Run("ShowsByID includes cancelled shows", func(t *testing.T) {
		pgtest.Exec(t, s.Pool(), `UPDATE shows SET status = 'CANCELLED' WHERE id = $1`, started)
		got, err := s.ShowsByID(ctx, []int64{w.show, started, 987654})
		if err != nil || len(got) != 2 || got[started].ID != started || got[w.show].TheatreName != "Test Cinema" {
			t.Fatalf("shows = %+v, %v", got, err)
		}
		if got, err := s.ShowsByID(ctx, nil); err != nil || len(got) != 0 {
			t.Fatalf("no ids: %v, %v", got, err)
		}
	})

	t.Run("ActiveHold is the user's live hold", func(t *testing.T) {
		u := w.user()
		if _, err := s.ActiveHold(ctx, u); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("no hold yet: %v", err)
		}
		if _, err := s.ActiveHold(ctx, "not-a-uuid"); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("bad id: %v", err)
		}
		h := w.hold(u, "B2")
		got, err := s.ActiveHold(ctx, u)
		if err != nil || got.ID != h.ID || got.ShowID != w.show || !slices.Equal(got.Seats, []string{"B2"}) {
			t.Fatalf("active hold = %+v, %v", got, err)
		}
		w.clock.Set(h.ExpiresAt.Add(-time.Millisecond))
		if _, err := s.ActiveHold(ctx, u); err != nil {
			t.Fatalf("1 ms before expiry: %v", err)
		}
		w.clock.Set(h.ExpiresAt)
		if _, err := s.ActiveHold(ctx, u); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("at expiry: %v", err)
		}
	})
}

func showIDs(list []postgres.Showtime) []int64 {
	ids := make([]int64, len(list))
	for i, st := range list {
		ids[i] = st.ID
	}
	return ids
}
