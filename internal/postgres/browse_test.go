package postgres_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
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
		list, err := s.Showtimes(ctx, catalog.ShowtimeFilter{CityID: w.venue.CityID, Within: week})
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
		all, err := s.Showtimes(ctx, catalog.ShowtimeFilter{TheatreID: w.venue.TheatreID})
		if err != nil || !slices.Equal(showIDs(all), []int64{w.show, later}) {
			t.Fatalf("without a window: %v, %v", showIDs(all), err)
		}
	})

	t.Run("Showtimes filters by the day in the theatre's time zone", func(t *testing.T) {
		day := w.start.Add(48 * time.Hour).In(kolkata).Format(time.DateOnly)
		list, err := s.Showtimes(ctx, catalog.ShowtimeFilter{MovieID: w.venue.MovieID, Date: day})
		if err != nil || !slices.Equal(showIDs(list), []int64{w.show}) {
			t.Fatalf("on %s: %v, %v", day, showIDs(list), err)
		}
		other := w.start.Add(24 * time.Hour).In(kolkata).Format(time.DateOnly)
		list, err = s.Showtimes(ctx, catalog.ShowtimeFilter{MovieID: w.venue.MovieID, Date: other})
		if err != nil || len(list) != 0 {
			t.Fatalf("on %s: %v, %v", other, showIDs(list), err)
		}
	})

	t.Run("ShowDays and MoviesShowing", func(t *testing.T) {
		days, err := s.ShowDays(ctx, catalog.ShowtimeFilter{CityID: w.venue.CityID})
		want := []string{
			w.start.Add(48 * time.Hour).In(kolkata).Format(time.DateOnly),
			w.start.Add(week + 24*time.Hour).In(kolkata).Format(time.DateOnly),
		}
		if err != nil || !slices.Equal(days, want) {
			t.Fatalf("days = %v, %v; want %v", days, err, want)
		}
		movies, err := s.MoviesShowing(ctx, catalog.ShowtimeFilter{CityID: w.venue.CityID, Within: week})
		if err != nil || len(movies) != 1 {
			t.Fatalf("movies = %+v, %v", movies, err)
		}
		if m := movies[0]; m.ID != w.venue.MovieID || m.Shows != 1 || m.Theatres != 1 || !m.FirstShow.Equal(w.start.Add(48*time.Hour)) {
			t.Fatalf("movie = %+v", m)
		}
		none, err := s.MoviesShowing(ctx, catalog.ShowtimeFilter{CityID: w.venue.CityID + 1000})
		if err != nil || len(none) != 0 {
			t.Fatalf("another city: %+v, %v", none, err)
		}
	})

	t.Run("a show with every seat held is sold out until the holds lapse", func(t *testing.T) {
		h1 := w.hold(w.user(), "A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4", "C1", "C2")
		w.hold(w.user(), "C3", "C4")
		list, err := s.Showtimes(ctx, catalog.ShowtimeFilter{TheatreID: w.venue.TheatreID, Within: week})
		if err != nil || len(list) != 1 || !list[0].SoldOut() || list[0].SeatsLeft != 0 {
			t.Fatalf("while held: %+v, %v", list, err)
		}
		w.clock.Set(h1.ExpiresAt)
		list, err = s.Showtimes(ctx, catalog.ShowtimeFilter{TheatreID: w.venue.TheatreID, Within: week})
		if err != nil || len(list) != 1 || list[0].SoldOut() || list[0].SeatsLeft != 12 {
			t.Fatalf("after the holds lapsed (no sweep): %+v, %v", list, err)
		}
		if n, err := s.ExpireHolds(ctx, 100); err != nil || n != 2 {
			t.Fatalf("expire holds: %d, %v", n, err)
		}
		w.clock.Set(w.start.Add(time.Hour))
	})

	t.Run("ShowsByID includes cancelled shows", func(t *testing.T) {
		pgtest.Exec(t, s.Pool(), `UPDATE shows SET status = 'CANCELLED', cancelled_at = now() WHERE id = $1`, started)
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

func showIDs(list []catalog.Showtime) []int64 {
	ids := make([]int64, len(list))
	for i, st := range list {
		ids[i] = st.ID
	}
	return ids
}

// The 3x4 show of newWorld: rows A and B are STANDARD (₹250), C PREMIUM
// (₹450).
func TestShowtimeAvailability(t *testing.T) {
	w := newWorld(t)
	s := w.store
	only := func(t *testing.T) catalog.Showtime {
		t.Helper()
		list, err := s.Showtimes(ctx, catalog.ShowtimeFilter{TheatreID: w.venue.TheatreID})
		if err != nil || len(list) != 1 {
			t.Fatalf("showtimes = %+v, %v", list, err)
		}
		return list[0]
	}
	want := func(t *testing.T, left int, from int64, a catalog.Availability) {
		t.Helper()
		st := only(t)
		if st.SeatsLeft != left || st.TotalSeats != 12 || st.FromMinor != from || st.Availability() != a {
			t.Fatalf("seats left %d of %d from %d (%v); want %d of 12 from %d (%v)",
				st.SeatsLeft, st.TotalSeats, st.FromMinor, st.Availability(), left, from, a)
		}
	}

	t.Run("an empty show is available from its cheapest category", func(t *testing.T) {
		want(t, 12, 25000, catalog.Available)
	})
	standard := w.hold(w.user(), "A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4")
	t.Run("with every cheap seat held, the lowest price is of the seats left", func(t *testing.T) {
		want(t, 4, 45000, catalog.Available) // 4 of 12 is a third
	})
	booked := w.hold(w.user(), "C1", "C2")
	if c, err := w.pay(booked, "pay_filling"); err != nil || c.Outcome != booking.OutcomeBooked {
		t.Fatalf("pay = %+v, %v", c, err)
	}
	t.Run("under a fifth of the seats left is filling fast", func(t *testing.T) {
		want(t, 2, 45000, catalog.FillingFast) // 2 of 12
	})
	t.Run("an expired hold's seats count as on sale before any sweep", func(t *testing.T) {
		w.clock.Set(standard.ExpiresAt.Add(-time.Millisecond))
		want(t, 2, 45000, catalog.FillingFast)
		w.clock.Set(standard.ExpiresAt)
		want(t, 10, 25000, catalog.Available)
		if n := count(t, s, `SELECT count(*) FROM show_seats WHERE status = 'HELD'`); n != 8 {
			t.Fatalf("%d seats still stored HELD, want 8 (no sweep ran)", n)
		}
	})
	t.Run("a show with no seat left is sold out", func(t *testing.T) {
		w.hold(w.user(), "A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4", "C3", "C4")
		st := only(t)
		if !st.SoldOut() || st.Availability() != catalog.SoldOut || st.SeatsLeft != 0 || st.FromMinor != 25000 {
			t.Fatalf("sold-out show = %+v", st)
		}
	})
}

func TestShowtimeFilters(t *testing.T) {
	w := newWorld(t)
	s := w.store
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	// Three days ahead, at local wall-clock hours, so "today" never cuts in.
	day := w.start.In(kolkata).AddDate(0, 0, 3)
	at := func(hour, minute int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day(), hour, minute, 0, 0, kolkata)
	}
	hindi, err := s.CreateMovie(ctx, catalog.Movie{Title: "Monsoon", DurationMinutes: 90, Language: "Hindi", Genres: []string{"Drama"}})
	if err != nil {
		t.Fatal(err)
	}
	var screen int64
	show := func(movie int64, start time.Time, format, language string) int64 {
		t.Helper()
		// A screen each: the evening and night shows overlap.
		screen, err = s.CreateScreen(ctx, w.venue.TheatreID, "Screen at "+start.Format(time.Kitchen), pgtest.Grid(2, 2))
		if err != nil {
			t.Fatal(err)
		}
		id, err := s.CreateShow(ctx, catalog.Show{MovieID: movie, ScreenID: screen, StartsAt: start, EndsAt: start.Add(100 * time.Minute),
			Currency: "INR", Prices: pgtest.Prices, Format: format, Language: language})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	morning := show(hindi, at(9, 0), "", "")                // 2D, Hindi
	afternoon := show(hindi, at(12, 0), "IMAX 2D", "Tamil") // dubbed
	evening := show(hindi, at(18, 59), "3D", "Hindi")       // the movie's own language: not a dub
	night := show(hindi, at(19, 0), "IMAX 2D", "")
	f := catalog.ShowtimeFilter{MovieID: hindi, Date: day.Format(time.DateOnly)}

	filtered := func(t *testing.T, f catalog.ShowtimeFilter, want ...int64) []catalog.Showtime {
		t.Helper()
		list, err := s.Showtimes(ctx, f)
		if err != nil || !slices.Equal(showIDs(list), want) {
			t.Fatalf("showtimes = %v, %v; want %v", showIDs(list), err, want)
		}
		return list
	}
	part := func(slug string) catalog.TimeOfDay {
		i := slices.IndexFunc(catalog.TimesOfDay, func(p catalog.TimeOfDay) bool { return p.Slug == slug })
		return catalog.TimesOfDay[i]
	}

	t.Run("a show plays in its movie's language unless dubbed", func(t *testing.T) {
		list := filtered(t, f, morning, afternoon, evening, night)
		got := func(st catalog.Showtime) string { return fmt.Sprintf("%s %s %v", st.Format, st.Language, st.Dubbed) }
		for i, w := range []string{"2D Hindi false", "IMAX 2D Tamil true", "3D Hindi false", "IMAX 2D Hindi false"} {
			if got(list[i]) != w {
				t.Errorf("show %d: %s, want %s", list[i].ID, got(list[i]), w)
			}
		}
	})
	t.Run("by language", func(t *testing.T) {
		g := f
		g.Languages = []string{"Tamil"}
		filtered(t, g, afternoon)
		g.Languages = []string{"Hindi", "Tamil"}
		filtered(t, g, morning, afternoon, evening, night)
		g.Languages = []string{"Klingon"}
		filtered(t, g)
	})
	t.Run("by format", func(t *testing.T) {
		g := f
		g.Formats = []string{"IMAX 2D"}
		filtered(t, g, afternoon, night)
		g.Formats = []string{"3D", "2D"}
		filtered(t, g, morning, evening)
	})
	t.Run("by time of day, on the theatre's wall clock", func(t *testing.T) {
		g := f
		g.Times = []catalog.TimeOfDay{part("morning")}
		filtered(t, g, morning)
		g.Times = []catalog.TimeOfDay{part("afternoon")}
		filtered(t, g, afternoon)
		g.Times = []catalog.TimeOfDay{part("evening"), part("night")}
		filtered(t, g, evening, night)
		g.Times = []catalog.TimeOfDay{part("night")}
		filtered(t, g, night)
	})
	t.Run("filters combine", func(t *testing.T) {
		g := f
		g.Formats, g.Languages, g.Times = []string{"IMAX 2D"}, []string{"Hindi"}, []catalog.TimeOfDay{part("night"), part("morning")}
		filtered(t, g, night)
		days, err := s.ShowDays(ctx, g)
		if err != nil || !slices.Equal(days, []string{day.Format(time.DateOnly)}) {
			t.Fatalf("days = %v, %v", days, err)
		}
		g.Times = []catalog.TimeOfDay{part("morning")}
		if days, err := s.ShowDays(ctx, g); err != nil || len(days) != 0 {
			t.Fatalf("days of no show = %v, %v", days, err)
		}
	})
	t.Run("facets list every choice whatever is chosen", func(t *testing.T) {
		g := f
		g.Formats, g.Languages = []string{"3D"}, []string{"Tamil"}
		languages, formats, err := s.ShowFacets(ctx, g)
		if err != nil || !slices.Equal(languages, []string{"Hindi", "Tamil"}) || !slices.Equal(formats, []string{"2D", "3D", "IMAX 2D"}) {
			t.Fatalf("facets = %v %v, %v", languages, formats, err)
		}
	})
	t.Run("MoviesShowing names the languages and formats of the shows selected", func(t *testing.T) {
		g := catalog.ShowtimeFilter{CityID: w.venue.CityID}
		movies, err := s.MoviesShowing(ctx, g)
		if err != nil || len(movies) != 2 {
			t.Fatalf("movies = %+v, %v", movies, err)
		}
		m := movies[0] // the venue's movie starts two days ahead, before these
		if m.ID != w.venue.MovieID || len(m.Languages) != 0 || !slices.Equal(m.Formats, []string{"2D"}) {
			t.Errorf("venue movie = %+v", m)
		}
		m = movies[1]
		if m.ID != hindi || m.Language != "Hindi" || !slices.Equal(m.Genres, []string{"Drama"}) ||
			!slices.Equal(m.Languages, []string{"Hindi", "Tamil"}) || !slices.Equal(m.Formats, []string{"2D", "3D", "IMAX 2D"}) {
			t.Errorf("Hindi movie = %+v", m)
		}
		g.Formats = []string{"3D"}
		movies, err = s.MoviesShowing(ctx, g)
		if err != nil || len(movies) != 1 || movies[0].ID != hindi || movies[0].Shows != 1 || !slices.Equal(movies[0].Languages, []string{"Hindi"}) {
			t.Fatalf("3D movies = %+v, %v", movies, err)
		}
	})
	t.Run("a show in an unknown format is refused", func(t *testing.T) {
		if _, err := s.CreateShow(ctx, catalog.Show{MovieID: hindi, ScreenID: screen, StartsAt: at(23, 0), EndsAt: at(23, 50),
			Currency: "INR", Prices: pgtest.Prices, Format: "8K smell-o-vision"}); err == nil {
			t.Fatal("created a show in an unknown format")
		}
	})
}
