package postgres

import (
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

// AdminCreateMovie adds a movie, with the audit entry that entry makes of its
// id in the same transaction, and returns its id.
func (s *Store) AdminCreateMovie(ctx context.Context, m catalog.Movie, entry func(movieID int64) audit.Entry) (int64, error) {
	var id int64
	err := s.inTx(ctx, func(tx pgx.Tx) (err error) {
		if id, err = createMovie(ctx, tx, m); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(id))
	})
	if err != nil {
		return 0, fmt.Errorf("admin: %w", err)
	}
	return id, nil
}

// AdminSetPoster stores p as movieID's poster, with the audit entry that entry
// makes of it in the same transaction, or fails with booking.ErrNotFound
// for an unknown movie.
func (s *Store) AdminSetPoster(ctx context.Context, movieID int64, p catalog.Poster,
	entry func(catalog.PosterInfo) audit.Entry) (catalog.PosterInfo, error) {
	var info catalog.PosterInfo
	err := s.inTx(ctx, func(tx pgx.Tx) (err error) {
		if info, err = s.setPoster(ctx, tx, movieID, p); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(info))
	})
	if err != nil {
		return info, fmt.Errorf("admin: %w", err)
	}
	return info, nil
}

// updateMovieAttempts bounds how often AdminUpdateMovie starts again when
// a show of the movie was scheduled on another screen between reading its
// screens and locking them.
const updateMovieAttempts = 3

// AdminUpdateMovie changes a movie as p says, with the audit entry entry
// makes of the change, in one transaction, or fails with
// booking.ErrNotFound for an unknown movie.
//
// Shows keep their own end (start + running time + cleaning buffer, as
// scheduled), so a new running time moves the end of each scheduled show
// of the movie that has not started by the difference; shows that have
// started or ended keep theirs. A longer running time that would make one
// of them overlap another show of its screen refuses the whole change with
// a *catalog.RuntimeOverlapError naming each, and nothing changes.
//
// Locks: the scheduling locks of the screens those shows are on (as
// ScheduleShows takes them), then the movie's row, which ScheduleShows
// takes after its screens' (checkRuntimes): a show scheduled meanwhile is
// either moved here or sees the new running time. No seat, hold or payment
// row is locked.
func (s *Store) AdminUpdateMovie(ctx context.Context, movieID int64, p catalog.MoviePatch,
	entry func(catalog.MovieUpdate) audit.Entry) (catalog.MovieUpdate, error) {
	for attempt := 1; ; attempt++ {
		up, retry, err := s.updateMovieOnce(ctx, movieID, p, entry)
		if !retry || attempt == updateMovieAttempts {
			if code, _ := pgCode(err); code == codeExclusion {
				err = catalog.ErrShowOverlap
			}
			if err != nil {
				return up, fmt.Errorf("update movie %d: %w", movieID, err)
			}
			return up, nil
		}
	}
}

// errScreensMoved ends an attempt of updateMovieOnce whose locked screens
// are not all those the movie's upcoming shows are on any more.
var errScreensMoved = errors.New("the movie's shows are on other screens now")

func (s *Store) updateMovieOnce(ctx context.Context, movieID int64, p catalog.MoviePatch,
	entry func(catalog.MovieUpdate) audit.Entry) (up catalog.MovieUpdate, retry bool, err error) {
	upcomingScreens := func(q querier) ([]int64, error) {
		rows, err := q.Query(ctx, `
			SELECT DISTINCT screen_id FROM shows
			 WHERE movie_id = $1 AND status = 'SCHEDULED' AND starts_at > coalesce($2::timestamptz, clock_timestamp())
			 ORDER BY screen_id`, movieID, s.now())
		if err != nil {
			return nil, fmt.Errorf("screens of upcoming shows: %w", err)
		}
		return pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	screens, err := upcomingScreens(s.pool)
	if err != nil {
		return up, false, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if p.DurationMinutes != nil {
			if err := lockScreenIDs(ctx, tx, screens); err != nil {
				return err
			}
		}
		var po posterColumns
		err := tx.QueryRow(ctx, `
			SELECT `+movieColumns+` FROM movies m LEFT JOIN posters po ON po.movie_id = m.id
			 WHERE m.id = $1 FOR NO KEY UPDATE OF m`, movieID).Scan(movieScanTargets(&up.Before, &po)...)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("movie %d: %w", movieID, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("lock movie: %w", err)
		}
		up.Before.Poster = po.info()
		up.Movie = p.Apply(up.Before)
		if delta := time.Duration(up.Movie.DurationMinutes-up.Before.DurationMinutes) * time.Minute; delta != 0 {
			now, err := s.txNow(ctx, tx)
			if err != nil {
				return err
			}
			moved, err := upcomingScreens(tx)
			if err != nil {
				return err
			}
			for _, sc := range moved {
				if _, locked := slices.BinarySearch(screens, sc); !locked {
					return errScreensMoved
				}
			}
			if up.ShowsMoved, err = moveEnds(ctx, tx, up.Movie, delta, now); err != nil {
				return err
			}
			up.EndsMovedBy = delta
		}
		if _, err := tx.Exec(ctx, `
			UPDATE movies SET title = $2, duration_minutes = $3, rating = $4, synopsis = $5, language = $6,
			       genres = coalesce($7::text[], '{}')
			 WHERE id = $1`, movieID, up.Movie.Title, up.Movie.DurationMinutes, up.Movie.Rating, up.Movie.Synopsis,
			up.Movie.Language, up.Movie.Genres); err != nil {
			return fmt.Errorf("write movie: %w", err)
		}
		return s.insertAudit(ctx, tx, entry(up))
	})
	if errors.Is(err, errScreensMoved) {
		return up, true, err
	}
	return up, false, err
}

// moveEnds moves the end of every scheduled show of m that starts after now
// by delta, unless one of them would then overlap another show of its
// screen (*catalog.RuntimeOverlapError naming each). It returns the shows
// moved. A shorter running time never makes an end reach its start.
func moveEnds(ctx context.Context, tx pgx.Tx, m catalog.Movie, delta time.Duration, now time.Time) ([]int64, error) {
	deltaMicros := delta.Microseconds()
	rows, err := tx.Query(ctx, `
		WITH moved AS (
			SELECT id, screen_id, starts_at,
			       greatest(ends_at + $2::bigint * interval '1 microsecond', starts_at + interval '1 minute') AS ends_at
			  FROM shows WHERE movie_id = $1 AND status = 'SCHEDULED' AND starts_at > $3),
		     others AS (
			SELECT id, screen_id, starts_at, ends_at FROM shows
			 WHERE status = 'SCHEDULED' AND screen_id IN (SELECT screen_id FROM moved) AND id NOT IN (SELECT id FROM moved)),
		     every AS (SELECT * FROM moved UNION ALL SELECT * FROM others)
		SELECT m.id, m.starts_at, m.ends_at, o.id, o.starts_at
		  FROM moved m JOIN every o ON o.screen_id = m.screen_id AND o.id <> m.id AND o.starts_at >= m.starts_at
		   AND tstzrange(m.starts_at, m.ends_at) && tstzrange(o.starts_at, o.ends_at)
		 ORDER BY m.starts_at, m.id, o.starts_at, o.id`, m.ID, deltaMicros, now)
	if err != nil {
		return nil, fmt.Errorf("find overlaps of a running time of %d minutes: %w", m.DurationMinutes, err)
	}
	overlaps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.RuntimeOverlap, error) {
		var o catalog.RuntimeOverlap
		err := r.Scan(&o.ShowID, &o.StartsAt, &o.EndsAt, &o.ConflictingShowID, &o.ConflictingStarts)
		return o, err
	})
	if err != nil {
		return nil, fmt.Errorf("find overlaps of a running time of %d minutes: %w", m.DurationMinutes, err)
	}
	if len(overlaps) > 0 {
		return nil, &catalog.RuntimeOverlapError{DurationMinutes: m.DurationMinutes, Overlaps: overlaps}
	}
	rows, err = tx.Query(ctx, `
		UPDATE shows SET ends_at = greatest(ends_at + $2::bigint * interval '1 microsecond', starts_at + interval '1 minute')
		 WHERE movie_id = $1 AND status = 'SCHEDULED' AND starts_at > $3
		RETURNING id`, m.ID, deltaMicros, now)
	if err != nil {
		return nil, fmt.Errorf("move the ends of upcoming shows: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("move the ends of upcoming shows: %w", err)
	}
	slices.Sort(ids)
	return ids, nil
}
