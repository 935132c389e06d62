package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
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
func (s *Store) CityBySlug(ctx context.Context, slug string) (booking.City, error) {
	var c booking.City
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

func scanTheatre(row pgx.Row) (booking.Theatre, error) {
	var t booking.Theatre
	err := row.Scan(&t.ID, &t.CityID, &t.CityName, &t.Name, &t.Address, &t.TimeZone)
	return t, err
}

// Theatre returns the theatre with id.
func (s *Store) Theatre(ctx context.Context, id int64) (booking.Theatre, error) {
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
func (s *Store) CityTheatres(ctx context.Context, cityID int64) ([]booking.Theatre, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+theatreColumns+` FROM theatres t JOIN cities c ON c.id = t.city_id
		 WHERE t.city_id = $1 ORDER BY t.name, t.id`, cityID)
	if err != nil {
		return nil, fmt.Errorf("list theatres of city %d: %w", cityID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Theatre, error) { return scanTheatre(r) })
	if err != nil {
		return nil, fmt.Errorf("list theatres of city %d: %w", cityID, err)
	}
	return list, nil
}

// Movie returns the movie with id.
func (s *Store) Movie(ctx context.Context, id int64) (booking.Movie, error) {
	var m booking.Movie
	err := s.pool.QueryRow(ctx, `SELECT id, title, duration_minutes, rating, synopsis FROM movies WHERE id = $1`, id).
		Scan(&m.ID, &m.Title, &m.DurationMinutes, &m.Rating, &m.Synopsis)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, fmt.Errorf("movie %d: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return m, fmt.Errorf("read movie %d: %w", id, err)
	}
	return m, nil
}

// ShowtimeFilter narrows the upcoming scheduled shows of a listing. Zero
// fields do not filter. Within bounds how far ahead to look (0: no bound).
type ShowtimeFilter struct {
	CityID    int64
	MovieID   int64
	TheatreID int64
	Date      string // YYYY-MM-DD in each show's theatre's time zone
	Within    time.Duration
}

// showtimeWhere is the condition of ShowtimeFilter over showFrom; its
// parameters are $1..$6 of showtimeArgs.
const showtimeWhere = `
	sh.status = 'SCHEDULED'
	AND sh.starts_at > (SELECT t FROM now)
	AND ($2::bigint = 0 OR c.id = $2)
	AND ($3::bigint = 0 OR sh.movie_id = $3)
	AND ($4::bigint = 0 OR t.id = $4)
	AND ($5::date IS NULL OR (sh.starts_at AT TIME ZONE t.timezone)::date = $5::date)
	AND ($6::bigint = 0 OR sh.starts_at < (SELECT t FROM now) + $6 * interval '1 microsecond')`

const nowCTE = `WITH now AS (SELECT coalesce($1::timestamptz, clock_timestamp()) AS t) `

func (s *Store) showtimeArgs(f ShowtimeFilter) []any {
	var date *string
	if f.Date != "" {
		date = &f.Date
	}
	return []any{s.now(), f.CityID, f.MovieID, f.TheatreID, date, f.Within.Microseconds()}
}

// Showtime is an upcoming show as a listing shows it, with how many of its
// seats can still be bought (held seats of lapsed holds count as free).
type Showtime struct {
	booking.Show
	SeatsLeft  int
	TotalSeats int
}

// SoldOut reports whether no seat of the show can be bought now.
func (st Showtime) SoldOut() bool { return st.SeatsLeft == 0 }

// Showtimes lists the upcoming scheduled shows that f selects, soonest
// first, with their seats left. At most 500 are returned.
func (s *Store) Showtimes(ctx context.Context, f ShowtimeFilter) ([]Showtime, error) {
	rows, err := s.pool.Query(ctx, nowCTE+`
		SELECT `+showColumns+`, n.seats_left, n.total
		  FROM `+showFrom+`
		  CROSS JOIN LATERAL (
			SELECT count(*) FILTER (WHERE ss.status = 'AVAILABLE'
			                           OR (ss.status = 'HELD' AND ss.hold_expires_at <= (SELECT t FROM now))) AS seats_left,
			       count(*) AS total
			  FROM show_seats ss WHERE ss.show_id = sh.id) n
		 WHERE `+showtimeWhere+`
		 ORDER BY sh.starts_at, t.name, sh.id
		 LIMIT 500`, s.showtimeArgs(f)...)
	if err != nil {
		return nil, fmt.Errorf("list showtimes: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Showtime, error) {
		var st Showtime
		err := r.Scan(&st.ID, &st.MovieID, &st.MovieTitle, &st.TheatreID, &st.TheatreName, &st.TimeZone,
			&st.CityName, &st.ScreenID, &st.ScreenName, &st.StartsAt, &st.EndsAt, &st.Currency, &st.SeatsLeft, &st.TotalSeats)
		return st, err
	})
	if err != nil {
		return nil, fmt.Errorf("list showtimes: %w", err)
	}
	return list, nil
}

// ShowDays returns the days (YYYY-MM-DD, in each theatre's time zone) on
// which f selects at least one upcoming show, in order. f.Date is ignored.
func (s *Store) ShowDays(ctx context.Context, f ShowtimeFilter) ([]string, error) {
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

// MovieListing is a movie with upcoming shows, as a city page lists it.
type MovieListing struct {
	booking.Movie
	Shows     int       // upcoming shows the filter selects
	Theatres  int       // theatres showing it
	FirstShow time.Time // the soonest of them
}

// MoviesShowing lists the movies that f selects upcoming shows of, the
// soonest-showing first.
func (s *Store) MoviesShowing(ctx context.Context, f ShowtimeFilter) ([]MovieListing, error) {
	rows, err := s.pool.Query(ctx, nowCTE+`
		SELECT m.id, m.title, m.duration_minutes, m.rating, m.synopsis,
		       count(*), count(DISTINCT t.id), min(sh.starts_at)
		  FROM `+showFrom+`
		 WHERE `+showtimeWhere+`
		 GROUP BY m.id
		 ORDER BY min(sh.starts_at), m.title, m.id`, s.showtimeArgs(f)...)
	if err != nil {
		return nil, fmt.Errorf("list movies showing: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (MovieListing, error) {
		var m MovieListing
		err := r.Scan(&m.ID, &m.Title, &m.DurationMinutes, &m.Rating, &m.Synopsis, &m.Shows, &m.Theatres, &m.FirstShow)
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
func (s *Store) ShowsByID(ctx context.Context, ids []int64) (map[int64]booking.Show, error) {
	out := make(map[int64]booking.Show, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+showColumns+` FROM `+showFrom+` WHERE sh.id = ANY ($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read shows: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Show, error) { return scanShow(r) })
	if err != nil {
		return nil, fmt.Errorf("read shows: %w", err)
	}
	for _, sh := range list {
		out[sh.ID] = sh
	}
	return out, nil
}

// ActiveHold returns userID's hold that is HELD and has not lapsed, in any
// show, or booking.ErrNotFound.
func (s *Store) ActiveHold(ctx context.Context, userID string) (booking.Hold, error) {
	if !validID(userID) {
		return booking.Hold{}, fmt.Errorf("active hold: %w", booking.ErrNotFound)
	}
	h, err := scanHold(s.pool.QueryRow(ctx, `
		SELECT `+holdColumns+` FROM holds
		 WHERE user_id = $1 AND state = 'HELD' AND expires_at > coalesce($2::timestamptz, clock_timestamp())`,
		userID, s.now()))
	if errors.Is(err, pgx.ErrNoRows) {
		return h, fmt.Errorf("active hold: %w", booking.ErrNotFound)
	}
	if err != nil {
		return h, fmt.Errorf("read active hold: %w", err)
	}
	return h, nil
}
