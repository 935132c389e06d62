package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// The theatre admin's scheduling: the facts a new show is planned from,
// shows scheduled all or nothing, the theatre's show list, and price
// changes.

// ScreenFacts returns the facts of screenID, or booking.ErrNotFound.
func (s *Store) ScreenFacts(ctx context.Context, screenID int64) (catalog.ScreenFacts, error) {
	f := catalog.ScreenFacts{ScreenID: screenID}
	var bufferMicros int64
	err := s.pool.QueryRow(ctx, `
		SELECT t.id, t.timezone, (extract(epoch FROM t.cleaning_buffer) * 1000000)::bigint,
		       ARRAY(SELECT DISTINCT category FROM seats WHERE screen_id = sc.id AND NOT retired ORDER BY category),
		       sc.retired_at IS NOT NULL
		  FROM screens sc JOIN theatres t ON t.id = sc.theatre_id
		 WHERE sc.id = $1`, screenID).Scan(&f.TheatreID, &f.TimeZone, &bufferMicros, &f.Categories, &f.Retired)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, fmt.Errorf("screen %d: %w", screenID, booking.ErrNotFound)
	}
	if err != nil {
		return f, fmt.Errorf("read screen %d: %w", screenID, err)
	}
	f.CleaningBuffer = time.Duration(bufferMicros) * time.Microsecond
	return f, nil
}

// overlapAttempts bounds how often ScheduleShows tries again when the show
// that made the exclusion constraint refuse it is gone by the time it looks
// (cancelled in between).
const overlapAttempts = 3

// ScheduleShows schedules shows, on one screen or several, with their seats
// on sale at once, and the audit entry that entry makes of their ids, in one
// transaction: all of them or none. It fails with catalog.ErrShowInPast
// when one starts by the store's clock, catalog.ErrShowTooFarAhead when
// one starts more than catalog.MaxScheduleAhead after it, and with a
// *catalog.ScheduleOverlapError when one overlaps a scheduled show or
// another of shows. The exclusion
// constraint decides; the conflicting show is looked up after it refused.
func (s *Store) ScheduleShows(ctx context.Context, shows []catalog.Show, entry func(ids []int64) audit.Entry) ([]int64, error) {
	if len(shows) == 0 {
		return nil, nil
	}
	if err := overlapAmong(shows); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		ids, err := s.scheduleOnce(ctx, shows, entry)
		if code, _ := pgCode(err); code != codeExclusion {
			return ids, err
		}
		conflict, err := s.findOverlap(ctx, shows)
		if err != nil {
			return nil, err
		}
		if conflict != nil {
			return nil, conflict
		}
		if attempt == overlapAttempts {
			return nil, fmt.Errorf("schedule shows: %w", catalog.ErrShowOverlap)
		}
	}
}

// checkStarts refuses a show that starts at or before now, or more than
// catalog.MaxScheduleAhead after it.
func checkStarts(shows []catalog.Show, now time.Time) error {
	for _, sh := range shows {
		switch {
		case !sh.StartsAt.After(now):
			return fmt.Errorf("show at %s: %w", sh.StartsAt.UTC().Format(time.RFC3339), catalog.ErrShowInPast)
		case sh.StartsAt.Sub(now) > catalog.MaxScheduleAhead:
			// Sub saturates, so no start is too far to compare; Format
			// would write a year past 9999 with more digits, readable.
			return fmt.Errorf("show at %s: %w", sh.StartsAt.UTC().Format(time.RFC3339), catalog.ErrShowTooFarAhead)
		}
	}
	return nil
}

func (s *Store) scheduleOnce(ctx context.Context, shows []catalog.Show, entry func(ids []int64) audit.Entry) ([]int64, error) {
	ids := make([]int64, len(shows))
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockScreens(ctx, tx, shows); err != nil {
			return err
		}
		var now time.Time // after the lock: a request that waited judges by when it decides
		if err := tx.QueryRow(ctx, `SELECT coalesce($1::timestamptz, clock_timestamp())`, s.now()).Scan(&now); err != nil {
			return fmt.Errorf("read clock: %w", err)
		}
		if err := checkStarts(shows, now); err != nil {
			return err
		}
		if err := checkRuntimes(ctx, tx, shows); err != nil {
			return err
		}
		if err := refuseRetired(ctx, tx, shows); err != nil {
			return err
		}
		for i, sh := range shows {
			id, err := insertShow(ctx, tx, sh)
			if err != nil {
				return err
			}
			ids[i] = id
		}
		return s.insertAudit(ctx, tx, entry(ids))
	})
	if code, _ := pgCode(err); code == codeExclusion {
		return nil, err // the caller looks for the show in the way
	}
	if err != nil {
		return nil, fmt.Errorf("schedule shows: %w", err)
	}
	return ids, nil
}

// checkRuntimes locks the movies of shows against a change of their
// running time until the transaction ends (AdminUpdateMovie), and refuses
// a show shorter than its movie's running time: its end was reckoned from
// a running time changed since (catalog.ErrMovieChanged).
func checkRuntimes(ctx context.Context, tx pgx.Tx, shows []catalog.Show) error {
	movies := make([]int64, len(shows))
	seconds := make([]float64, len(shows))
	for i, sh := range shows {
		movies[i], seconds[i] = sh.MovieID, sh.EndsAt.Sub(sh.StartsAt).Seconds()
	}
	var short bool
	err := tx.QueryRow(ctx, `
		WITH locked AS MATERIALIZED (
			SELECT id, duration_minutes FROM movies WHERE id = ANY ($1) ORDER BY id FOR SHARE)
		SELECT coalesce(bool_or(s.seconds < l.duration_minutes * 60), false)
		  FROM unnest($1::bigint[], $2::float8[]) AS s (movie, seconds) JOIN locked l ON l.id = s.movie`,
		movies, seconds).Scan(&short)
	if err != nil {
		return fmt.Errorf("check running times: %w", err)
	}
	if short {
		return catalog.ErrMovieChanged
	}
	return nil
}

// refuseRetired refuses shows on a retired screen (catalog.ErrScreenRetired).
// Under the screens' scheduling locks, which retiring one takes too, a
// screen cannot be retired between this and the shows' insert.
func refuseRetired(ctx context.Context, tx pgx.Tx, shows []catalog.Show) error {
	screens := make([]int64, len(shows))
	for i, sh := range shows {
		screens[i] = sh.ScreenID
	}
	var retired bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM screens WHERE id = ANY ($1) AND retired_at IS NOT NULL)`,
		screens).Scan(&retired); err != nil {
		return fmt.Errorf("check the screens are in use: %w", err)
	}
	if retired {
		return catalog.ErrScreenRetired
	}
	return nil
}

// scheduleLockClass is the first key of the advisory lock that schedules a
// screen's shows one request at a time.
const scheduleLockClass = 0x73636864 // "schd"

// lockScreens takes, in order, the scheduling lock of each screen shows are
// on, until the transaction ends. Without it two requests inserting shows
// that overlap each other's wait on each other's exclusion-constraint
// entries, in a cycle when each has several shows (a deadlock). Only
// scheduling takes it: the lock order of seats, holds and payments is
// untouched.
func lockScreens(ctx context.Context, tx pgx.Tx, shows []catalog.Show) error {
	var screens []int64
	for _, sh := range shows {
		screens = append(screens, sh.ScreenID)
	}
	return lockScreenIDs(ctx, tx, screens)
}

// lockScreenIDs takes the scheduling lock of each of screens, in order.
func lockScreenIDs(ctx context.Context, tx pgx.Tx, screens []int64) error {
	screens = slices.Clone(screens)
	slices.Sort(screens)
	for _, screen := range slices.Compact(screens) {
		// The key is an int4: a screen id past it shares a lock, which
		// only serializes more.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, ($2 % 2147483647)::int)`,
			scheduleLockClass, screen); err != nil {
			return fmt.Errorf("lock screen %d for scheduling: %w", screen, err)
		}
	}
	return nil
}

// overlapAmong refuses shows two of which overlap each other; the database
// could say so too, but not which two.
func overlapAmong(shows []catalog.Show) error {
	sorted := slices.Clone(shows)
	slices.SortFunc(sorted, func(a, b catalog.Show) int {
		return cmp.Or(cmp.Compare(a.ScreenID, b.ScreenID), a.StartsAt.Compare(b.StartsAt))
	})
	for i := 1; i < len(sorted); i++ {
		if prev := sorted[i-1]; prev.ScreenID == sorted[i].ScreenID && sorted[i].StartsAt.Before(prev.EndsAt) {
			return &catalog.ScheduleOverlapError{StartsAt: sorted[i].StartsAt, ConflictingStartsAt: prev.StartsAt}
		}
	}
	return nil
}

// findOverlap returns the first of shows that overlaps a scheduled show, as
// a *catalog.ScheduleOverlapError, or nil when none does (any more).
func (s *Store) findOverlap(ctx context.Context, shows []catalog.Show) (*catalog.ScheduleOverlapError, error) {
	for _, sh := range shows {
		e := &catalog.ScheduleOverlapError{StartsAt: sh.StartsAt}
		err := s.pool.QueryRow(ctx, `
			SELECT id, starts_at FROM shows
			 WHERE screen_id = $1 AND status = 'SCHEDULED' AND tstzrange(starts_at, ends_at) && tstzrange($2, $3)
			 ORDER BY starts_at LIMIT 1`, sh.ScreenID, sh.StartsAt, sh.EndsAt).Scan(&e.ConflictingShowID, &e.ConflictingStartsAt)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find the show in the way of %s: %w", sh.StartsAt.UTC().Format(time.RFC3339), err)
		}
		return e, nil
	}
	return nil, nil
}

// TheatreShows lists theatreID's shows, scheduled and cancelled, by start:
// those starting in [from, to), or with from nil those that have not ended
// by the store's clock, and with to nil no end. At most limit.
func (s *Store) TheatreShows(ctx context.Context, theatreID int64, from, to *time.Time, limit int) ([]catalog.TheatreShow, error) {
	rows, err := s.pool.Query(ctx, theatreShowsSQL(`
		 WHERE t.id = $2
		   AND CASE WHEN $3::timestamptz IS NULL THEN sh.ends_at > now.t ELSE sh.starts_at >= $3 END
		   AND ($4::timestamptz IS NULL OR sh.starts_at < $4)`)+`
		 ORDER BY sh.starts_at, sh.id
		 LIMIT $5`, s.now(), theatreID, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("list shows of theatre %d: %w", theatreID, err)
	}
	shows, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.TheatreShow, error) { return scanTheatreShow(r) })
	if err != nil {
		return nil, fmt.Errorf("list shows of theatre %d: %w", theatreID, err)
	}
	return shows, nil
}

// TheatreShow reads showID as its theatre's schedule lists it, or
// booking.ErrNotFound.
func (s *Store) TheatreShow(ctx context.Context, showID int64) (catalog.TheatreShow, error) {
	ts, err := scanTheatreShow(s.pool.QueryRow(ctx, theatreShowsSQL(` WHERE sh.id = $2`), s.now(), showID))
	if errors.Is(err, pgx.ErrNoRows) {
		return ts, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	if err != nil {
		return ts, fmt.Errorf("read show %d: %w", showID, err)
	}
	return ts, nil
}

// theatreShowsSQL selects the shows where picks, as the schedule lists
// them: the show, its status, its prices and its seats by state at $1 (the
// store's clock, NULL for the database's).
func theatreShowsSQL(where string) string {
	return `
		WITH now AS (SELECT coalesce($1::timestamptz, clock_timestamp()) AS t)
		SELECT ` + showColumns + `, sh.status,
		       coalesce(p.prices, '{}'::jsonb),
		       count(ss.*) FILTER (WHERE ss.status = 'AVAILABLE' OR (ss.status = 'HELD' AND ss.hold_expires_at <= now.t)),
		       count(ss.*) FILTER (WHERE ss.status = 'HELD' AND ss.hold_expires_at > now.t),
		       count(ss.*) FILTER (WHERE ss.status = 'BOOKED'),
		       count(ss.*) FILTER (WHERE ss.status = 'BLOCKED')
		  FROM ` + showFrom + `
		  CROSS JOIN now
		  LEFT JOIN show_seats ss ON ss.show_id = sh.id
		  LEFT JOIN LATERAL (SELECT jsonb_object_agg(category, price_minor) AS prices
		                       FROM show_prices WHERE show_id = sh.id) p ON true` + where + `
		 GROUP BY sh.id, m.id, t.id, c.id, sc.id, p.prices`
}

func scanTheatreShow(r pgx.Row) (catalog.TheatreShow, error) {
	var ts catalog.TheatreShow
	sh := &ts.Show
	err := r.Scan(&sh.ID, &sh.MovieID, &sh.MovieTitle, &sh.TheatreID, &sh.TheatreName, &sh.TimeZone,
		&sh.CityName, &sh.ScreenID, &sh.ScreenName, &sh.StartsAt, &sh.EndsAt, &sh.Currency,
		&sh.Format, &sh.Language, &sh.Dubbed, &ts.Status, &sh.Prices,
		&ts.Seats.Available, &ts.Seats.Held, &ts.Seats.Booked, &ts.Seats.Blocked)
	return ts, err
}

// ShowCategories returns the seat categories of showID's seats, sorted,
// and the currency its prices are in, or booking.ErrNotFound.
func (s *Store) ShowCategories(ctx context.Context, showID int64) (categories []string, currency string, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT ARRAY(SELECT DISTINCT category FROM show_seats WHERE show_id = sh.id ORDER BY category), sh.currency
		  FROM shows sh WHERE sh.id = $1`, showID).Scan(&categories, &currency)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	if err != nil {
		return nil, "", fmt.Errorf("read seat categories of show %d: %w", showID, err)
	}
	return categories, currency, nil
}

// SetShowPrices replaces showID's prices, with the audit entry that entry makes
// of the prices before, in one transaction. It takes the show's seat rows
// first, in the global lock order, and decides under them: a seat BOOKED
// or HELD by a live hold refuses the change (catalog.ErrShowHasSales), as
// does a cancelled show (catalog.ErrShowCancelled). A hold waiting for
// those locks is priced after the change commits.
func (s *Store) SetShowPrices(ctx context.Context, showID int64, prices map[string]int64, entry func(before map[string]int64) audit.Entry) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The aggregate reads, and so locks, every seat: an EXISTS would
		// stop at the first sold one.
		var sold bool
		if err := tx.QueryRow(ctx, `
			SELECT coalesce(bool_or(status = 'BOOKED' OR
			                        (status = 'HELD' AND hold_expires_at > coalesce($2::timestamptz, clock_timestamp()))), false)
			  FROM (SELECT status, hold_expires_at FROM show_seats WHERE show_id = $1 ORDER BY seat_id FOR UPDATE) locked`,
			showID, s.now()).Scan(&sold); err != nil {
			return fmt.Errorf("lock seats: %w", err)
		}
		var status string
		var before map[string]int64
		err := tx.QueryRow(ctx, `
			SELECT status, coalesce((SELECT jsonb_object_agg(category, price_minor) FROM show_prices WHERE show_id = id), '{}'::jsonb)
			  FROM shows WHERE id = $1`, showID).Scan(&status, &before)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return booking.ErrNotFound
		case err != nil:
			return err
		case status != "SCHEDULED":
			return catalog.ErrShowCancelled
		case sold:
			return catalog.ErrShowHasSales
		}
		if err := replacePrices(ctx, tx, showID, prices); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(before))
	})
	if err != nil {
		return fmt.Errorf("set prices of show %d: %w", showID, err)
	}
	return nil
}

// replacePrices sets the prices of showID's categories. The categories stay
// those of its seats (show_seats references them), so each is an update.
func replacePrices(ctx context.Context, tx pgx.Tx, showID int64, prices map[string]int64) error {
	categories := make([]string, 0, len(prices))
	amounts := make([]int64, 0, len(prices))
	for category, price := range prices {
		categories = append(categories, category)
		amounts = append(amounts, price)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO show_prices (show_id, category, price_minor)
		SELECT $1, category, price FROM unnest($2::text[], $3::bigint[]) AS p (category, price)
		ON CONFLICT (show_id, category) DO UPDATE SET price_minor = excluded.price_minor`,
		showID, categories, amounts); err != nil {
		return fmt.Errorf("write prices: %w", err)
	}
	if err := announceShows(ctx, tx, showID); err != nil {
		return err
	}
	return nil
}

// announceShows queues the whole of each show as changed, for a change the
// seats' rows do not show (prices, a cancellation, seats moved on the grid):
// an empty list of seats says "every seat", and the seat maps every
// instance keeps in memory read those shows again (see AnnounceSeatChanges).
func announceShows(ctx context.Context, tx pgx.Tx, showIDs ...int64) error {
	if _, err := tx.Exec(ctx, `
		INSERT INTO seat_events (show_id, seat_ids) SELECT id, '{}' FROM unnest($1::bigint[]) id`, showIDs); err != nil {
		return fmt.Errorf("announce shows %v: %w", showIDs, err)
	}
	return nil
}
