package demo_test

import (
	"bytes"
	"context"
	"image"
	_ "image/png"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	s, now := loaded(t)
	pool := s.Pool()
	ctx := context.Background()

	t.Run("two cities", func(t *testing.T) {
		cities, err := s.Cities(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var slugs []string
		for _, c := range cities {
			slugs = append(slugs, c.Slug)
		}
		if !slices.Equal(slugs, []string{"bengaluru", "mumbai"}) {
			t.Errorf("city slugs = %v, want [bengaluru mumbai]", slugs)
		}
	})

	t.Run("three theatres in Asia/Kolkata, one with its own refund policy", func(t *testing.T) {
		if n := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM theatres WHERE timezone = 'Asia/Kolkata'`); n != 3 {
			t.Errorf("theatres = %d, want 3", n)
		}
		if n := pgtest.Scalar[int](t, pool, `SELECT count(DISTINCT theatre_id) FROM refund_tiers`); n != 1 {
			t.Errorf("theatres with refund tiers = %d, want 1", n)
		}
		tiers := pgtest.Scalar[string](t, pool, `
			SELECT string_agg(extract(epoch FROM min_before)::int / 3600 || 'h=' || percent || '%', ' ' ORDER BY min_before DESC)
			  FROM refund_tiers`)
		if tiers != "48h=100% 6h=75%" {
			t.Errorf("refund tiers = %q, want 48h=100%% 6h=75%%", tiers)
		}
	})

	t.Run("screens have the planned seat counts", func(t *testing.T) {
		want := map[string]int{
			"Marquee Indiranagar/Audi 1":        152, // 9 rows of 16 + 8 recliners
			"Marquee Indiranagar/Studio":        60,
			"Lakeside Cinemas Whitefield/Grand": 360,
			"Lakeside Cinemas Whitefield/Mega":  1000,
			"Seaview Talkies Bandra/Screen 1":   152,
			"Seaview Talkies Bandra/Screen 2":   360,
		}
		rows, err := pool.Query(ctx, `
			SELECT t.name || '/' || sc.name, count(st.seat_id)
			  FROM screens sc JOIN theatres t ON t.id = sc.theatre_id
			  LEFT JOIN seats st ON st.screen_id = sc.id
			 GROUP BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for rows.Next() {
			var name string
			var n int
			if err := rows.Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			got[name] = n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("screens = %v, want %v", got, want)
		}
		for name, n := range want {
			if got[name] != n {
				t.Errorf("%s has %d seats, want %d", name, got[name], n)
			}
		}
	})

	t.Run("seat layouts", func(t *testing.T) {
		checkHall(t, demo.Hall())
		checkSmallRoom(t, demo.SmallRoom())
		checkLargeHall(t, demo.LargeHall())
		checkMegaHall(t, demo.MegaHall())
	})

	t.Run("small room has accessible seats and a gap aisle", func(t *testing.T) {
		const screen = `(SELECT sc.id FROM screens sc JOIN theatres t ON t.id = sc.theatre_id
			WHERE t.name = 'Marquee Indiranagar' AND sc.name = 'Studio')`
		if n := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM seats WHERE accessible AND screen_id = `+screen); n == 0 {
			t.Error("no accessible seats")
		}
		if n := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM seats WHERE category = 'ACCESSIBLE' AND screen_id = `+screen); n == 0 {
			t.Error("no ACCESSIBLE seats")
		}
		// Some grid column between the outermost seats holds no seat at all.
		gaps := pgtest.Scalar[int](t, pool, `
			SELECT max(grid_col) - min(grid_col) + 1 - count(DISTINCT grid_col) FROM seats WHERE screen_id = `+screen)
		if gaps == 0 {
			t.Error("no gap column")
		}
	})

	t.Run("five or six movies with ratings", func(t *testing.T) {
		n := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM movies`)
		if n < 5 || n > 6 {
			t.Errorf("movies = %d, want 5-6", n)
		}
		if bad := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM movies WHERE rating NOT IN ('U', 'UA', 'A') OR synopsis = ''`); bad != 0 {
			t.Errorf("%d movies without a U/UA/A rating or a synopsis", bad)
		}
	})

	t.Run("every movie has a language, genres and a PNG poster of its stated size", func(t *testing.T) {
		rows, err := pool.Query(ctx, `SELECT id FROM movies ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil || len(ids) == 0 {
			t.Fatalf("movies: %v, %v", ids, err)
		}
		versions := map[string]bool{}
		for _, id := range ids {
			m, err := s.Movie(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if m.Language == "" || len(m.Genres) == 0 || m.Poster == nil {
				t.Errorf("%s: language %q, genres %v, poster %+v", m.Title, m.Language, m.Genres, m.Poster)
				continue
			}
			p, err := s.Poster(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(p.Data))
			if err != nil || format != "png" || p.ContentType != "image/png" {
				t.Errorf("%s: poster is %q (%s), %v", m.Title, format, p.ContentType, err)
				continue
			}
			if cfg.Width != p.Width || cfg.Height != p.Height || p.Width != demo.PosterWidth || p.Height != demo.PosterHeight {
				t.Errorf("%s: poster is %dx%d, says %dx%d", m.Title, cfg.Width, cfg.Height, p.Width, p.Height)
			}
			if !strings.HasPrefix(p.Alt, "Poster of "+m.Title+": ") || len(p.Data) > 64<<10 {
				t.Errorf("%s: alt %q, %d bytes", m.Title, p.Alt, len(p.Data))
			}
			versions[p.Version] = true
		}
		if len(versions) != len(ids) {
			t.Errorf("%d movies share %d posters", len(ids), len(versions))
		}
	})

	t.Run("shows come in several formats, and some are dubbed", func(t *testing.T) {
		formats := pgtest.Scalar[[]string](t, pool, `SELECT array_agg(DISTINCT format ORDER BY format) FROM shows`)
		if !slices.Equal(formats, []string{"2D", "3D", "4DX", "IMAX 2D", "IMAX 3D"}) {
			t.Errorf("formats = %v", formats)
		}
		if n := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM shows sh JOIN screens sc ON sc.id = sh.screen_id
			 WHERE sc.name = 'Mega' AND sh.format NOT LIKE 'IMAX%'`); n != 0 {
			t.Errorf("%d shows in the Mega hall are not IMAX", n)
		}
		if n := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM shows WHERE language = 'Hindi'`); n == 0 {
			t.Error("no show is dubbed into Hindi")
		}
	})

	t.Run("every screen has shows on every day", func(t *testing.T) {
		// Each screen runs several shows a day; even when now is late at
		// night, seven days hold at least six full days of them.
		if n := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM screens sc
			 WHERE (SELECT count(*) FROM shows WHERE screen_id = sc.id) < 6 * 4`); n != 0 {
			t.Errorf("%d screens with fewer than 24 shows", n)
		}
	})

	t.Run("shows start after now, within seven days, on a quarter hour", func(t *testing.T) {
		if n := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM shows
			 WHERE starts_at <= $1 OR starts_at >= $1 + interval '7 days'`, now); n != 0 {
			t.Errorf("%d shows outside (now, now+7d)", n)
		}
		if n := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM shows sh
			  JOIN screens sc ON sc.id = sh.screen_id JOIN theatres t ON t.id = sc.theatre_id
			 WHERE extract(minute FROM sh.starts_at AT TIME ZONE t.timezone)::int % 15 <> 0
			    OR extract(second FROM sh.starts_at AT TIME ZONE t.timezone) <> 0`); n != 0 {
			t.Errorf("%d shows not on a quarter hour", n)
		}
		if n := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM shows sh JOIN movies m ON m.id = sh.movie_id
			 WHERE sh.ends_at <> sh.starts_at + m.duration_minutes * interval '1 minute'`); n != 0 {
			t.Errorf("%d shows whose length is not the movie's", n)
		}
	})

	t.Run("shows on a screen leave 30 minutes between them", func(t *testing.T) {
		if n := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM (
				SELECT starts_at, lag(ends_at) OVER (PARTITION BY screen_id ORDER BY starts_at) AS prev_end
				  FROM shows) x
			 WHERE starts_at < prev_end + interval '30 minutes'`); n != 0 {
			t.Errorf("%d shows start less than 30 minutes after the previous one ends", n)
		}
	})

	t.Run("every seat of every show is on sale at its category's price", func(t *testing.T) {
		if n := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM shows sh
			 WHERE (SELECT count(*) FROM show_seats WHERE show_id = sh.id)
			    <> (SELECT count(*) FROM seats WHERE screen_id = sh.screen_id)`); n != 0 {
			t.Errorf("%d shows without one show_seat per seat", n)
		}
		if n := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM show_seats ss
			  LEFT JOIN show_prices p ON p.show_id = ss.show_id AND p.category = ss.category
			 WHERE p.price_minor IS NULL OR ss.status <> 'AVAILABLE'`); n != 0 {
			t.Errorf("%d show seats unpriced or not available", n)
		}
		rows, err := pool.Query(ctx, `SELECT DISTINCT category, price_minor FROM show_prices`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var category string
			var price int64
			if err := rows.Scan(&category, &price); err != nil {
				t.Fatal(err)
			}
			if price != demo.Prices[category] {
				t.Errorf("%s costs %d, want %d", category, price, demo.Prices[category])
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("the store lists the shows and their seat maps", func(t *testing.T) {
		s.Clock = func() time.Time { return now }
		for _, city := range []string{"bengaluru", "mumbai"} {
			shows, err := s.Shows(ctx, catalog.ShowFilter{City: city})
			if err != nil {
				t.Fatal(err)
			}
			if len(shows) == 0 {
				t.Fatalf("no shows in %s", city)
			}
		}
		id := pgtest.Scalar[int64](t, pool, `
			SELECT sh.id FROM shows sh JOIN screens sc ON sc.id = sh.screen_id
			 WHERE sc.name = 'Studio' ORDER BY sh.starts_at LIMIT 1`)
		seats, err := s.SeatMap(ctx, id, "")
		if err != nil {
			t.Fatal(err)
		}
		accessible := 0
		for _, st := range seats {
			if st.Accessible {
				accessible++
			}
			if st.Status != booking.SeatAvailable || st.Currency != "INR" || st.PriceMinor <= 0 {
				t.Errorf("seat %+v", st)
			}
		}
		if len(seats) != 60 || accessible == 0 {
			t.Errorf("seat map has %d seats, %d accessible; want 60 with some accessible", len(seats), accessible)
		}
	})

	pgtest.CheckInvariants(t, s)
}

func TestLoadTwiceFails(t *testing.T) {
	t.Parallel()
	s, now := loaded(t)
	ctx := context.Background()
	// The caller decides whether to load (marquee serve --demo loads only
	// into a database without cities); a second Load must not add a copy.
	if err := demo.Load(ctx, s, now); err == nil {
		t.Error("second Load succeeded")
	}
	if n := pgtest.Scalar[int](t, s.Pool(), `SELECT count(*) FROM cities`); n != 2 {
		t.Errorf("cities = %d after a second Load, want 2", n)
	}
}

// loaded returns a copy of a database the demo was loaded into, and the
// time it was loaded at. The package's tests share one Load (the demo's
// posters and seat rows take seconds, many more under the race detector)
// and each gets its own copy of the result.
func loaded(t *testing.T) (*postgres.Store, time.Time) {
	t.Helper()
	s := pgtest.NewSeededStore(t, 4, "demo", func(ctx context.Context, s *postgres.Store) error {
		loadedAt = time.Now().UTC().Truncate(time.Microsecond)
		return demo.Load(ctx, s, loadedAt)
	})
	return s, loadedAt
}

// loadedAt is when the shared Load ran: written once, inside the seeding
// that every call of loaded waits for.
var loadedAt time.Time

// rowsOf groups seats by row label.
func rowsOf(seats []catalog.SeatSpec) map[string][]catalog.SeatSpec {
	m := map[string][]catalog.SeatSpec{}
	for _, st := range seats {
		m[st.Row] = append(m[st.Row], st)
	}
	return m
}

// checkLabels checks the shape every layout shares: labels are row letter
// and number, numbers count 1.. along the row with the grid column rising,
// grid positions and labels are unique.
func checkLabels(t *testing.T, name string, seats []catalog.SeatSpec) {
	t.Helper()
	ids := map[string]bool{}
	cells := map[[2]int]bool{}
	for _, st := range seats {
		if st.ID != st.Row+strconv.Itoa(st.Number) {
			t.Errorf("%s: seat %q is row %q number %d", name, st.ID, st.Row, st.Number)
		}
		if ids[st.ID] {
			t.Errorf("%s: duplicate seat %s", name, st.ID)
		}
		ids[st.ID] = true
		cell := [2]int{st.GridRow, st.GridCol}
		if cells[cell] {
			t.Errorf("%s: two seats at grid %v", name, cell)
		}
		cells[cell] = true
	}
	for r, row := range rowsOf(seats) {
		for i, st := range row {
			if st.Number != i+1 {
				t.Errorf("%s: row %s seat %d is numbered %d", name, r, i+1, st.Number)
			}
			if i > 0 && st.GridCol <= row[i-1].GridCol {
				t.Errorf("%s: %s is not right of %s", name, st.ID, row[i-1].ID)
			}
		}
	}
}

func categories(row []catalog.SeatSpec) []string {
	var c []string
	for _, st := range row {
		if !slices.Contains(c, st.Category) {
			c = append(c, st.Category)
		}
	}
	return c
}

func hasCol(row []catalog.SeatSpec, col int) bool {
	return slices.ContainsFunc(row, func(st catalog.SeatSpec) bool { return st.GridCol == col })
}

func checkHall(t *testing.T, seats []catalog.SeatSpec) {
	checkLabels(t, "hall", seats)
	rows := rowsOf(seats)
	if len(rows) != 10 {
		t.Errorf("hall has %d rows, want 10 (A-J)", len(rows))
	}
	for _, r := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I"} {
		want := "STANDARD"
		if r >= "H" {
			want = "PREMIUM"
		}
		if len(rows[r]) != 16 || !slices.Equal(categories(rows[r]), []string{want}) || hasCol(rows[r], 8) {
			t.Errorf("hall row %s: %d seats, categories %v, seat in aisle column 8: %v; want 16 %s and no seat in column 8",
				r, len(rows[r]), categories(rows[r]), hasCol(rows[r], 8), want)
		}
	}
	if j := rows["J"]; len(j) == 0 || len(j) >= 16 || !slices.Equal(categories(j), []string{"RECLINER"}) {
		t.Errorf("hall row J: %d seats, categories %v; want fewer than 16 RECLINERs", len(j), categories(j))
	}
}

func checkSmallRoom(t *testing.T, seats []catalog.SeatSpec) {
	checkLabels(t, "small room", seats)
	rows := rowsOf(seats)
	if len(rows) != 6 || len(seats) != 60 {
		t.Errorf("small room has %d rows, %d seats; want 6 rows of 10", len(rows), len(seats))
	}
	accessible := 0
	for _, st := range seats {
		if st.Accessible {
			accessible++
		}
		if st.Category == "ACCESSIBLE" && !st.Accessible {
			t.Errorf("small room: ACCESSIBLE seat %s is not flagged accessible", st.ID)
		}
	}
	if accessible == 0 {
		t.Error("small room has no accessible seats")
	}
}

func checkLargeHall(t *testing.T, seats []catalog.SeatSpec) {
	checkLabels(t, "large hall", seats)
	rows := rowsOf(seats)
	if len(rows) != 15 {
		t.Errorf("large hall has %d rows, want 15 (A-O)", len(rows))
	}
	premium := 0
	for r, row := range rows {
		if len(row) != 24 {
			t.Errorf("large hall row %s has %d seats, want 24", r, len(row))
		}
		// Two aisles: two places where the grid column jumps.
		jumps := 0
		for i := 1; i < len(row); i++ {
			if row[i].GridCol > row[i-1].GridCol+1 {
				jumps++
			}
		}
		if jumps != 2 {
			t.Errorf("large hall row %s has %d aisles, want 2", r, jumps)
		}
		for _, st := range row {
			if st.Category == "PREMIUM" {
				premium++
			}
		}
	}
	if premium == 0 || premium == len(seats) {
		t.Errorf("large hall has %d PREMIUM seats of %d, want a block", premium, len(seats))
	}
}

func checkMegaHall(t *testing.T, seats []catalog.SeatSpec) {
	checkLabels(t, "mega hall", seats)
	rows := rowsOf(seats)
	if len(rows) != 25 || len(seats) != 1000 {
		t.Errorf("mega hall has %d rows, %d seats; want 25 rows of 40", len(rows), len(seats))
	}
	for r, row := range rows {
		if len(row) != 40 {
			t.Errorf("mega hall row %s has %d seats, want 40", r, len(row))
		}
	}
	got := categories(seats)
	slices.Sort(got)
	if !slices.Equal(got, []string{"ACCESSIBLE", "PREMIUM", "RECLINER", "STANDARD"}) {
		t.Errorf("mega hall categories = %v", got)
	}
}
