package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// CreateCity adds a city and returns its id. A slug another city has
// fails with catalog.ErrCityExists.
func (s *Store) CreateCity(ctx context.Context, name, slug string) (int64, error) {
	return insertCity(ctx, s.pool, name, slug)
}

// insertCity is the one insert of a city, for CreateCity and the admin's
// audited CreateCityAudited.
func insertCity(ctx context.Context, q querier, name, slug string) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO cities (name, slug) VALUES ($1, $2) RETURNING id`, name, slug).Scan(&id)
	if code, constraint := pgCode(err); code == codeUniqueViolation && constraint == "cities_slug_key" {
		return 0, fmt.Errorf("create city %q: %w", slug, catalog.ErrCityExists)
	}
	if err != nil {
		return 0, fmt.Errorf("create city %q: %w", name, err)
	}
	return id, nil
}

// Cities returns every city by name.
func (s *Store) Cities(ctx context.Context) ([]catalog.City, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, slug FROM cities ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list cities: %w", err)
	}
	cities, err := pgx.CollectRows(rows, pgx.RowToStructByPos[catalog.City])
	if err != nil {
		return nil, fmt.Errorf("list cities: %w", err)
	}
	return cities, nil
}

// CreateTheatre adds a theatre to a city, with its refund policy (nil keeps
// the default policy), and returns its id. The theatre is made without the
// orphan rule, which would refuse many a hold of a fixture's tiny hall:
// fixtures, seeds and the demo that want it set it (SetTheatreSettings).
// (A theatre an admin adds has it unless they say otherwise:
// CreateTheatreAudited.)
func (s *Store) CreateTheatre(ctx context.Context, t catalog.Theatre, policy *booking.RefundPolicy) (int64, error) {
	var id int64
	settings := catalog.DefaultTheatreSettings()
	settings.OrphanRule = false
	err := s.inTx(ctx, func(tx pgx.Tx) (err error) {
		id, err = insertTheatre(ctx, tx, t, nil, policy, settings)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("create theatre %q: %w", t.Name, err)
	}
	return id, nil
}

// SetTheatreSettings changes theatre id's settings by p, as fixtures,
// seeds and the demo set up a theatre. An admin's change goes through
// UpdateTheatre, which writes it in the audit log.
func (s *Store) SetTheatreSettings(ctx context.Context, id int64, p catalog.TheatreSettingsPatch) error {
	tag, err := s.pool.Exec(ctx, `UPDATE theatres SET settings = settings || $2 WHERE id = $1`, id, p.Document())
	if err != nil {
		return fmt.Errorf("set settings of theatre %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("theatre %d: %w", id, booking.ErrNotFound)
	}
	return nil
}

// insertTheatre is the one insert of a theatre and its refund tiers, for
// CreateTheatre and the admin's audited CreateTheatreAudited, with every
// setting of settings written. A nil cleaning buffer is the column's
// default; a name the city already has is a *catalog.FieldError.
func insertTheatre(ctx context.Context, tx pgx.Tx, t catalog.Theatre, buffer *time.Duration, policy *booking.RefundPolicy, settings catalog.TheatreSettings) (int64, error) {
	if _, err := time.LoadLocation(t.TimeZone); err != nil || t.TimeZone == "" {
		return 0, fmt.Errorf("theatre %q: unknown time zone %q", t.Name, t.TimeZone)
	}
	currency := t.Currency
	if currency == "" {
		currency = "INR"
	}
	bufferSQL, args := "DEFAULT", []any{t.CityID, t.Name, t.Address, t.TimeZone, currency, settings.Patch().Document()}
	if buffer != nil {
		args = append(args, buffer.Microseconds())
		bufferSQL = fmt.Sprintf("$%d * interval '1 microsecond'", len(args))
	}
	var id int64
	err := tx.QueryRow(ctx, `
		INSERT INTO theatres (city_id, name, address, timezone, currency, settings, cleaning_buffer)
		VALUES ($1, $2, $3, $4, $5, $6, `+bufferSQL+`) RETURNING id`, args...).Scan(&id)
	if code, constraint := pgCode(err); code == codeUniqueViolation && constraint == "theatres_city_id_name_key" {
		return 0, errTheatreNameTaken
	}
	if err != nil {
		return 0, err
	}
	return id, insertRefundTiers(ctx, tx, id, policy)
}

// errTheatreNameTaken is a theatre named like another of its city.
var errTheatreNameTaken = &catalog.FieldError{Field: "name", Message: "another theatre of this city has this name"}

// insertRefundTiers writes a theatre's own refund tiers; nil writes none
// (the default policy applies).
func insertRefundTiers(ctx context.Context, tx pgx.Tx, theatreID int64, policy *booking.RefundPolicy) error {
	if policy == nil {
		return nil
	}
	for _, tier := range policy.Tiers {
		if _, err := tx.Exec(ctx, `
			INSERT INTO refund_tiers (theatre_id, min_before, percent)
			VALUES ($1, $2 * interval '1 microsecond', $3)`, theatreID, tier.Before.Microseconds(), tier.Percent); err != nil {
			return fmt.Errorf("refund tier of theatre %d: %w", theatreID, err)
		}
	}
	return nil
}

// CreateScreen adds a screen with its seat layout and returns its id.
func (s *Store) CreateScreen(ctx context.Context, theatreID int64, name string, seats []catalog.SeatSpec) (int64, error) {
	var id int64
	err := s.inTx(ctx, func(tx pgx.Tx) (err error) {
		id, err = createScreen(ctx, tx, theatreID, name, seats)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("create screen %q: %w", name, err)
	}
	return id, nil
}

// createScreen inserts a screen and its seats in tx.
func createScreen(ctx context.Context, tx pgx.Tx, theatreID int64, name string, seats []catalog.SeatSpec) (int64, error) {
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO screens (theatre_id, name) VALUES ($1, $2) RETURNING id`,
		theatreID, name).Scan(&id); err != nil {
		return 0, err
	}
	return id, putSeats(ctx, tx, id, seats)
}

// putSeats writes seats into screenID's layout: a new id is inserted, an
// id the screen has (in its layout or retired, see migration 000006) takes the new
// place, label and category and is part of the layout again.
func putSeats(ctx context.Context, tx pgx.Tx, screenID int64, seats []catalog.SeatSpec) error {
	n := len(seats)
	ids, rows, cats := make([]string, n), make([]string, n), make([]string, n)
	numbers, gridRows, gridCols := make([]int32, n), make([]int32, n), make([]int32, n)
	accessible, companion := make([]bool, n), make([]bool, n)
	for i, st := range seats {
		ids[i], rows[i], cats[i] = st.ID, st.Row, st.Category
		numbers[i], gridRows[i], gridCols[i] = int32(st.Number), int32(st.GridRow), int32(st.GridCol)
		accessible[i], companion[i] = st.Accessible, st.Companion
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO seats (screen_id, seat_id, row_label, number, category, grid_row, grid_col, accessible, companion)
		SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::int[], $8::bool[], $9::bool[])
		ON CONFLICT (screen_id, seat_id) DO UPDATE SET
		       row_label = excluded.row_label, number = excluded.number, category = excluded.category,
		       grid_row = excluded.grid_row, grid_col = excluded.grid_col,
		       accessible = excluded.accessible, companion = excluded.companion, retired = false`,
		screenID, ids, rows, numbers, cats, gridRows, gridCols, accessible, companion)
	if err != nil {
		return fmt.Errorf("write %d seats of screen %d: %w", n, screenID, err)
	}
	return nil
}

// CreateMovie adds a movie and returns its id. Its poster is set apart,
// with SetPoster.
func (s *Store) CreateMovie(ctx context.Context, m catalog.Movie) (int64, error) {
	return createMovie(ctx, s.pool, m)
}

// createMovie inserts a movie with q, the pool or a transaction.
func createMovie(ctx context.Context, q querier, m catalog.Movie) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `
		INSERT INTO movies (title, duration_minutes, rating, synopsis, language, genres)
		VALUES ($1, $2, $3, $4, $5, coalesce($6::text[], '{}')) RETURNING id`,
		m.Title, m.DurationMinutes, m.Rating, m.Synopsis, m.Language, m.Genres).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create movie %q: %w", m.Title, err)
	}
	return id, nil
}

// SetPoster stores p as movieID's poster, replacing any before it, and
// returns what pages need to show it. p.Version is ignored: the database
// hashes the bytes.
func (s *Store) SetPoster(ctx context.Context, movieID int64, p catalog.Poster) (catalog.PosterInfo, error) {
	return s.setPoster(ctx, s.pool, movieID, p)
}

// setPoster stores a poster with q, the pool or a transaction.
func (s *Store) setPoster(ctx context.Context, q querier, movieID int64, p catalog.Poster) (catalog.PosterInfo, error) {
	info := catalog.PosterInfo{Width: p.Width, Height: p.Height, Alt: p.Alt}
	err := q.QueryRow(ctx, `
		INSERT INTO posters (movie_id, content_type, data, width, height, alt, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::timestamptz, clock_timestamp()))
		ON CONFLICT (movie_id) DO UPDATE SET content_type = excluded.content_type, data = excluded.data,
		       width = excluded.width, height = excluded.height, alt = excluded.alt, updated_at = excluded.updated_at
		RETURNING `+posterVersion,
		movieID, p.ContentType, p.Data, p.Width, p.Height, p.Alt, s.now()).Scan(&info.Version)
	if code, _ := pgCode(err); code == codeForeignKey {
		return info, fmt.Errorf("poster of movie %d: %w", movieID, booking.ErrNotFound)
	}
	if err != nil {
		return info, fmt.Errorf("set poster of movie %d: %w", movieID, err)
	}
	return info, nil
}

// posterVersion is a poster's version: the first 64 bits of its SHA-256,
// in hex, enough to tell one upload of a movie's poster from another.
const posterVersion = `encode(substr(sha256, 1, 8), 'hex')`

// Poster returns movieID's poster with its bytes, or booking.ErrNotFound.
func (s *Store) Poster(ctx context.Context, movieID int64) (catalog.Poster, error) {
	var p catalog.Poster
	err := s.pool.QueryRow(ctx, `
		SELECT `+posterVersion+`, width, height, alt, content_type, data FROM posters WHERE movie_id = $1`, movieID).
		Scan(&p.Version, &p.Width, &p.Height, &p.Alt, &p.ContentType, &p.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("poster of movie %d: %w", movieID, booking.ErrNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("read poster of movie %d: %w", movieID, err)
	}
	return p, nil
}

// CreateShow schedules a show and puts every seat of its screen on sale. It
// fails with catalog.ErrShowOverlap when the screen is busy at that time.
// Every seat category of the screen needs a price.
func (s *Store) CreateShow(ctx context.Context, sh catalog.Show) (int64, error) {
	var id int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		id, err = insertShow(ctx, tx, sh)
		return err
	})
	if code, _ := pgCode(err); code == codeExclusion {
		return 0, fmt.Errorf("create show: %w", catalog.ErrShowOverlap)
	}
	if err != nil {
		return 0, fmt.Errorf("create show: %w", err)
	}
	return id, nil
}

// insertShow inserts sh with its prices and one AVAILABLE show_seat per
// seat of its screen, in tx: the one insert path of every show, the demo's
// and the admin's. A screen busy at that time fails with the exclusion
// constraint's 23P01.
func insertShow(ctx context.Context, tx pgx.Tx, sh catalog.Show) (int64, error) {
	var id int64
	if err := tx.QueryRow(ctx, `
		INSERT INTO shows (movie_id, screen_id, starts_at, ends_at, currency, format, language)
		VALUES ($1, $2, $3, $4, $5, coalesce(nullif($6, ''), '`+catalog.DefaultFormat+`'),
		        nullif(nullif($7, ''), (SELECT language FROM movies WHERE id = $1))) RETURNING id`,
		sh.MovieID, sh.ScreenID, sh.StartsAt, sh.EndsAt, sh.Currency, sh.Format, sh.Language).Scan(&id); err != nil {
		return 0, err
	}
	categories := make([]string, 0, len(sh.Prices))
	prices := make([]int64, 0, len(sh.Prices))
	for category, price := range sh.Prices {
		categories = append(categories, category)
		prices = append(prices, price)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO show_prices (show_id, category, price_minor)
		SELECT $1, category, price FROM unnest($2::text[], $3::bigint[]) AS p (category, price)`,
		id, categories, prices); err != nil {
		return 0, err
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO show_seats (show_id, seat_id, screen_id, category)
		SELECT $1, seat_id, screen_id, category FROM seats WHERE screen_id = $2 AND NOT retired`, id, sh.ScreenID)
	return id, err
}

const showColumns = `sh.id, sh.movie_id, m.title, t.id, t.name, t.timezone, c.name, sc.id, sc.name,
	sh.starts_at, sh.ends_at, sh.currency, sh.format, coalesce(sh.language, m.language), sh.language IS NOT NULL`

const showFrom = `shows sh
	JOIN movies m ON m.id = sh.movie_id
	JOIN screens sc ON sc.id = sh.screen_id
	JOIN theatres t ON t.id = sc.theatre_id
	JOIN cities c ON c.id = t.city_id`

func scanShow(row pgx.Row, more ...any) (catalog.Show, error) {
	var sh catalog.Show
	err := row.Scan(append([]any{&sh.ID, &sh.MovieID, &sh.MovieTitle, &sh.TheatreID, &sh.TheatreName, &sh.TimeZone,
		&sh.CityName, &sh.ScreenID, &sh.ScreenName, &sh.StartsAt, &sh.EndsAt, &sh.Currency,
		&sh.Format, &sh.Language, &sh.Dubbed}, more...)...)
	return sh, err
}

// Show returns a scheduled show with its prices.
func (s *Store) Show(ctx context.Context, id int64) (catalog.Show, error) {
	return s.show(ctx, id, false)
}

// ShowOrCancelled returns a show with its prices whether it is scheduled
// or cancelled (then Cancelled is set): the show page tells a moviegoer
// who follows a link to a cancelled show what became of it, where
// everything that sells seats finds no such show.
func (s *Store) ShowOrCancelled(ctx context.Context, id int64) (catalog.Show, error) {
	return s.show(ctx, id, true)
}

func (s *Store) show(ctx context.Context, id int64, cancelledToo bool) (catalog.Show, error) {
	var cancelled bool
	sh, err := scanShow(s.pool.QueryRow(ctx, `
		SELECT `+showColumns+`, sh.status = 'CANCELLED' FROM `+showFrom+`
		 WHERE sh.id = $1 AND (sh.status = 'SCHEDULED' OR $2)`, id, cancelledToo), &cancelled)
	sh.Cancelled = cancelled
	if errors.Is(err, pgx.ErrNoRows) {
		return sh, fmt.Errorf("show %d: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return sh, fmt.Errorf("read show %d: %w", id, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT category, price_minor FROM show_prices WHERE show_id = $1`, id)
	if err != nil {
		return sh, fmt.Errorf("read prices of show %d: %w", id, err)
	}
	sh.Prices = map[string]int64{}
	var category string
	var price int64
	_, err = pgx.ForEachRow(rows, []any{&category, &price}, func() error {
		sh.Prices[category] = price
		return nil
	})
	if err != nil {
		return sh, fmt.Errorf("read prices of show %d: %w", id, err)
	}
	return sh, nil
}

// Shows lists scheduled shows that have not started, soonest first.
func (s *Store) Shows(ctx context.Context, f catalog.ShowFilter) ([]catalog.Show, error) {
	limit := f.Limit
	switch {
	case limit <= 0:
		limit = 200
	case limit > 500:
		limit = 500
	}
	if strings.ContainsRune(f.City, 0) {
		return nil, nil // no city is named so, and Postgres text cannot hold NUL
	}
	var cityID *int64
	var citySlug *string
	if f.City != "" {
		if id, err := strconv.ParseInt(f.City, 10, 64); err == nil {
			cityID = &id
		} else {
			citySlug = &f.City
		}
	}
	var afterAt *time.Time
	var afterID int64
	if f.After != nil {
		afterAt, afterID = &f.After.StartsAt, f.After.ID
	}
	var date *string
	if f.Date != "" {
		date = &f.Date
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+showColumns+` FROM `+showFrom+`
		 WHERE sh.status = 'SCHEDULED'
		   AND sh.starts_at > coalesce($1::timestamptz, clock_timestamp())
		   AND ($2::bigint IS NULL OR c.id = $2)
		   AND ($3::text IS NULL OR c.slug = $3)
		   AND ($4::bigint = 0 OR sh.movie_id = $4)
		   AND ($5::bigint = 0 OR t.id = $5)
		   AND ($6::date IS NULL OR (sh.starts_at AT TIME ZONE t.timezone)::date = $6::date)
		   AND ($7::timestamptz IS NULL OR (sh.starts_at, sh.id) > ($7, $8))
		 ORDER BY sh.starts_at, sh.id
		 LIMIT $9`,
		s.now(), cityID, citySlug, f.MovieID, f.Theatre, date, afterAt, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("list shows: %w", err)
	}
	shows, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.Show, error) { return scanShow(r) })
	if err != nil {
		return nil, fmt.Errorf("list shows: %w", err)
	}
	return shows, nil
}
