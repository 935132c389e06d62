package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// Read-only queries of the moviegoer's pages: cities, theatres, movies and
// showtimes. None of them locks anything. "Upcoming" always means not
// started by the authoritative clock (the database's, or Store.Clock).

// Now returns the authoritative time: the database clock, or Store.Clock.
func (s *Store) Now(ctx context.Context) (time.Time, error) {
	var now time.Time
	if err := s.pool.QueryRow(ctx, `SELECT coalesce($1::timestamptz, clock_timestamp())`, s.now()).Scan(&now); err != nil {
		return now, fmt.Errorf("read clock: %w", err)
	}
	return now, nil
}

// CityBySlug returns the city with slug.
func (s *Store) CityBySlug(ctx context.Context, slug string) (catalog.City, error) {
	var c catalog.City
	if strings.ContainsRune(slug, 0) {
		return c, fmt.Errorf("city %q: %w", slug, booking.ErrNotFound)
	}
	err := s.pool.QueryRow(ctx, `SELECT id, name, slug FROM cities WHERE slug = $1`, slug).Scan(&c.ID, &c.Name, &c.Slug)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, fmt.Errorf("city %q: %w", slug, booking.ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("read city %q: %w", slug, err)
	}
	return c, nil
}

const theatreColumns = `t.id, t.city_id, c.name, t.name, t.address, t.timezone`

func scanTheatre(row pgx.Row) (catalog.Theatre, error) {
	var t catalog.Theatre
	err := row.Scan(&t.ID, &t.CityID, &t.CityName, &t.Name, &t.Address, &t.TimeZone)
	return t, err
}

// Theatre returns the theatre with id.
func (s *Store) Theatre(ctx context.Context, id int64) (catalog.Theatre, error) {
	t, err := scanTheatre(s.pool.QueryRow(ctx, `
		SELECT `+theatreColumns+` FROM theatres t JOIN cities c ON c.id = t.city_id WHERE t.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("theatre %d: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("read theatre %d: %w", id, err)
	}
	return t, nil
}

// CityTheatres returns the theatres of a city by name.
func (s *Store) CityTheatres(ctx context.Context, cityID int64) ([]catalog.Theatre, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+theatreColumns+` FROM theatres t JOIN cities c ON c.id = t.city_id
		 WHERE t.city_id = $1 ORDER BY t.name, t.id`, cityID)
	if err != nil {
		return nil, fmt.Errorf("list theatres of city %d: %w", cityID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.Theatre, error) { return scanTheatre(r) })
	if err != nil {
		return nil, fmt.Errorf("list theatres of city %d: %w", cityID, err)
	}
	return list, nil
}

// movieColumns are a movie's columns and its poster's, over movies m LEFT
// JOIN posters po; scanMovie reads them.
const movieColumns = `m.id, m.title, m.duration_minutes, m.rating, m.synopsis, m.language, m.genres,
	po.width, po.height, po.alt, encode(substr(po.sha256, 1, 8), 'hex')`

func movieScanTargets(m *catalog.Movie, poster *posterColumns) []any {
	return []any{&m.ID, &m.Title, &m.DurationMinutes, &m.Rating, &m.Synopsis, &m.Language, &m.Genres,
		&poster.width, &poster.height, &poster.alt, &poster.version}
}

// posterColumns are the poster columns of a movie row, NULL without one.
type posterColumns struct {
	width, height *int
	alt, version  *string
}

func (p posterColumns) info() *catalog.PosterInfo {
	if p.version == nil || p.width == nil || p.height == nil || p.alt == nil {
		return nil
	}
	return &catalog.PosterInfo{Version: *p.version, Width: *p.width, Height: *p.height, Alt: *p.alt}
}

// Movie returns the movie with id.
func (s *Store) Movie(ctx context.Context, id int64) (catalog.Movie, error) {
	var m catalog.Movie
	var po posterColumns
	err := s.pool.QueryRow(ctx, `
		SELECT `+movieColumns+` FROM movies m LEFT JOIN posters po ON po.movie_id = m.id WHERE m.id = $1`, id).
		Scan(movieScanTargets(&m, &po)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, fmt.Errorf("movie %d: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return m, fmt.Errorf("read movie %d: %w", id, err)
	}
	m.Poster = po.info()
	return m, nil
}

// showtimeWhere is the condition of catalog.ShowtimeFilter over showFrom; its
// parameters are $1..$10 of showtimeArgs.
const showtimeWhere = `
	sh.status = 'SCHEDULED'
	AND sh.starts_at > (SELECT t FROM now)
	AND ($2::bigint = 0 OR c.id = $2)
	AND ($3::bigint = 0 OR sh.movie_id = $3)
	AND ($4::bigint = 0 OR t.id = $4)
	AND ($5::date IS NULL OR (sh.starts_at AT TIME ZONE t.timezone)::date = $5::date)
	AND ($6::bigint = 0 OR sh.starts_at < (SELECT t FROM now) + $6 * interval '1 microsecond')
	AND (coalesce(cardinality($7::text[]), 0) = 0 OR coalesce(sh.language, m.language) = ANY ($7))
	AND (coalesce(cardinality($8::text[]), 0) = 0 OR sh.format = ANY ($8))
	AND (coalesce(cardinality($9::int[]), 0) = 0 OR EXISTS (
		SELECT 1 FROM unnest($9::int[], $10::int[]) AS part (from_hour, to_hour)
		 WHERE extract(hour FROM sh.starts_at AT TIME ZONE t.timezone) >= part.from_hour
		   AND extract(hour FROM sh.starts_at AT TIME ZONE t.timezone) < part.to_hour))`

const nowCTE = `WITH now AS (SELECT coalesce($1::timestamptz, clock_timestamp()) AS t) `

func (s *Store) showtimeArgs(f catalog.ShowtimeFilter) []any {
	var date *string
	if f.Date != "" {
		date = &f.Date
	}
	from, to := make([]int32, len(f.Times)), make([]int32, len(f.Times))
	for i, part := range f.Times {
		from[i], to[i] = int32(part.From), int32(part.To)
	}
	return []any{s.now(), f.CityID, f.MovieID, f.TheatreID, date, f.Within.Microseconds(),
		f.Languages, f.Formats, from, to}
}

// Showtimes lists the upcoming scheduled shows that f selects, soonest
// first, with their seats left and lowest price, in one query. At most 500
// are returned.
func (s *Store) Showtimes(ctx context.Context, f catalog.ShowtimeFilter) ([]catalog.Showtime, error) {
	rows, err := s.pool.Query(ctx, nowCTE+`
		SELECT `+showColumns+`, n.seats_left, n.total, coalesce(n.from_free, n.from_any, 0)
		  FROM `+showFrom+`
		  CROSS JOIN LATERAL (
			SELECT count(*) FILTER (WHERE seat.free) AS seats_left,
			       count(*) AS total,
			       min(p.price_minor) FILTER (WHERE seat.free) AS from_free,
			       min(p.price_minor) AS from_any
			  FROM show_seats ss
			  JOIN show_prices p ON p.show_id = ss.show_id AND p.category = ss.category
			  CROSS JOIN LATERAL (
				SELECT ss.status = 'AVAILABLE'
				    OR (ss.status = 'HELD' AND ss.hold_expires_at <= (SELECT t FROM now)) AS free) seat
			 WHERE ss.show_id = sh.id) n
		 WHERE `+showtimeWhere+`
		 ORDER BY sh.starts_at, t.name, sh.id
		 LIMIT 500`, s.showtimeArgs(f)...)
	if err != nil {
		return nil, fmt.Errorf("list showtimes: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.Showtime, error) {
		var st catalog.Showtime
		err := r.Scan(&st.ID, &st.MovieID, &st.MovieTitle, &st.TheatreID, &st.TheatreName, &st.TimeZone,
			&st.CityName, &st.ScreenID, &st.ScreenName, &st.StartsAt, &st.EndsAt, &st.Currency,
			&st.Format, &st.Language, &st.Dubbed, &st.SeatsLeft, &st.TotalSeats, &st.FromMinor)
		return st, err
	})
	if err != nil {
		return nil, fmt.Errorf("list showtimes: %w", err)
	}
	return list, nil
}

// ShowFacets returns the languages (by name) and formats (in the order of
// catalog.Formats) of the upcoming shows f selects, ignoring f's own
// language, format and time filters: the choices a listing offers stay on
// offer whatever is chosen.
func (s *Store) ShowFacets(ctx context.Context, f catalog.ShowtimeFilter) (languages, formats []string, err error) {
	f.Languages, f.Formats, f.Times = nil, nil, nil
	rows, err := s.pool.Query(ctx, nowCTE+`
		SELECT DISTINCT coalesce(sh.language, m.language), sh.format
		  FROM `+showFrom+`
		 WHERE `+showtimeWhere, s.showtimeArgs(f)...)
	if err != nil {
		return nil, nil, fmt.Errorf("list show facets: %w", err)
	}
	var language, format string
	seenL, seenF := map[string]bool{}, map[string]bool{}
	_, err = pgx.ForEachRow(rows, []any{&language, &format}, func() error {
		if language != "" && !seenL[language] {
			seenL[language] = true
			languages = append(languages, language)
		}
		if !seenF[format] {
			seenF[format] = true
			formats = append(formats, format)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list show facets: %w", err)
	}
	slices.Sort(languages)
	slices.SortFunc(formats, byFormat)
	return languages, formats, nil
}

// byFormat orders formats as catalog.Formats lists them.
func byFormat(a, b string) int {
	return cmp.Compare(slices.Index(catalog.Formats, a), slices.Index(catalog.Formats, b))
}

// ShowDays returns the days (YYYY-MM-DD, in each theatre's time zone) on
// which f selects at least one upcoming show, in order. f.Date is ignored.
func (s *Store) ShowDays(ctx context.Context, f catalog.ShowtimeFilter) ([]string, error) {
	f.Date = ""
	rows, err := s.pool.Query(ctx, nowCTE+`
		SELECT DISTINCT to_char((sh.starts_at AT TIME ZONE t.timezone)::date, 'YYYY-MM-DD') AS day
		  FROM `+showFrom+`
		 WHERE `+showtimeWhere+`
		 ORDER BY day`, s.showtimeArgs(f)...)
	if err != nil {
		return nil, fmt.Errorf("list show days: %w", err)
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list show days: %w", err)
	}
	return days, nil
}

// MoviesShowing lists the movies that f selects upcoming shows of, the
// soonest-showing first, with their posters.
func (s *Store) MoviesShowing(ctx context.Context, f catalog.ShowtimeFilter) ([]catalog.MovieListing, error) {
	rows, err := s.pool.Query(ctx, nowCTE+`
		SELECT `+movieColumns+`,
		       count(*), count(DISTINCT t.id), min(sh.starts_at),
		       array_remove(array_agg(DISTINCT coalesce(sh.language, m.language) ORDER BY coalesce(sh.language, m.language)), ''),
		       array_agg(DISTINCT sh.format)
		  FROM `+showFrom+`
		  LEFT JOIN posters po ON po.movie_id = m.id
		 WHERE `+showtimeWhere+`
		 GROUP BY m.id, po.movie_id
		 ORDER BY min(sh.starts_at), m.title, m.id`, s.showtimeArgs(f)...)
	if err != nil {
		return nil, fmt.Errorf("list movies showing: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.MovieListing, error) {
		var m catalog.MovieListing
		var po posterColumns
		err := r.Scan(append(movieScanTargets(&m.Movie, &po),
			&m.Shows, &m.Theatres, &m.FirstShow, &m.Languages, &m.Formats)...)
		m.Poster = po.info()
		slices.SortFunc(m.Formats, byFormat)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("list movies showing: %w", err)
	}
	return list, nil
}

// ShowsByID returns the shows with the given ids, whatever their status
// (a booking's show may since have been cancelled), keyed by id. Ids that
// name no show are left out.
func (s *Store) ShowsByID(ctx context.Context, ids []int64) (map[int64]catalog.Show, error) {
	out := make(map[int64]catalog.Show, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+showColumns+` FROM `+showFrom+` WHERE sh.id = ANY ($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read shows: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.Show, error) { return scanShow(r) })
	if err != nil {
		return nil, fmt.Errorf("read shows: %w", err)
	}
	for _, sh := range list {
		out[sh.ID] = sh
	}
	return out, nil
}

// ActiveHold returns userID's hold that is HELD and has not lapsed (in its
// payment grace it has not), in any show, or booking.ErrNotFound.
func (s *Store) ActiveHold(ctx context.Context, userID string) (booking.Hold, error) {
	if !validID(userID) {
		return booking.Hold{}, fmt.Errorf("active hold: %w", booking.ErrNotFound)
	}
	h, err := scanHold(s.pool.QueryRow(ctx, `
		SELECT `+holdColumns+` FROM holds
		 WHERE user_id = $1 AND state = 'HELD' AND expires_at + payment_grace > coalesce($2::timestamptz, clock_timestamp())`,
		userID, s.now()))
	if errors.Is(err, pgx.ErrNoRows) {
		return h, fmt.Errorf("active hold: %w", booking.ErrNotFound)
	}
	if err != nil {
		return h, fmt.Errorf("read active hold: %w", err)
	}
	return h, nil
}
