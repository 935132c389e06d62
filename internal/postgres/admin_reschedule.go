package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// Moving a show to another time on its own screen: its bookings move with
// it, each of their moviegoers is told once, and each may decline with
// everything back until the show starts (booking_moves, 000026).

// RescheduleShow moves showID to start at startsAt and end at endsAt, on
// its own screen, with the audit entry e (its before and after are set
// here), in one transaction. The show keeps its id, seats, holds and
// bookings; its confirmed bookings are recorded as moved (booking_moves),
// and one mail of the move is queued to each person they belong to.
//
// Locks: the screen's scheduling lock (as scheduling and a movie's new
// running time take it, so the check for a show in the way holds until
// commit), then the show's seats in the global order, as a show's
// cancellation takes them: no hold, payment, counter sale or cancellation
// of the show runs in between, so the bookings moved are exactly those
// confirmed at the move. Then the movie's row FOR SHARE (checkRuntimes).
//
// It fails with catalog.ErrShowCancelled, catalog.ErrShowStarted (the show
// has started by the store's clock), catalog.ErrSameStart,
// catalog.ErrShowInPast, catalog.ErrShowTooFarAhead, catalog.ErrMovieChanged
// (endsAt was reckoned from a running time since replaced), a
// *catalog.ScheduleOverlapError naming the show in the way, or
// booking.ErrNotFound; then nothing changed.
func (s *Store) RescheduleShow(ctx context.Context, showID int64, startsAt, endsAt time.Time, e audit.Entry) (booking.ShowReschedule, error) {
	res := booking.ShowReschedule{ShowID: showID, StartsAt: startsAt.UTC(), EndsAt: endsAt.UTC()}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// A show never changes screen or movie: read unlocked, they name
		// the locks to take.
		moved := catalog.Show{ID: showID, StartsAt: res.StartsAt, EndsAt: res.EndsAt}
		err := tx.QueryRow(ctx, `SELECT screen_id, movie_id FROM shows WHERE id = $1`, showID).Scan(&moved.ScreenID, &moved.MovieID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read show: %w", err)
		}
		if err := lockScreenIDs(ctx, tx, []int64{moved.ScreenID}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM show_seats WHERE show_id = $1 ORDER BY seat_id FOR UPDATE`, showID); err != nil {
			return fmt.Errorf("lock seats: %w", err)
		}
		var (
			status string
			now    time.Time // after the locks: a request that waited judges by when it decides
		)
		if err := tx.QueryRow(ctx, `
			SELECT status, starts_at, ends_at, coalesce($2::timestamptz, clock_timestamp()) FROM shows WHERE id = $1`,
			showID, s.now()).Scan(&status, &res.FromStartsAt, &res.FromEndsAt, &now); err != nil {
			return fmt.Errorf("read show: %w", err)
		}
		switch {
		case status != "SCHEDULED":
			return catalog.ErrShowCancelled
		case !now.Before(res.FromStartsAt):
			return catalog.ErrShowStarted
		case res.FromStartsAt.Equal(res.StartsAt):
			return catalog.ErrSameStart
		}
		shows := []catalog.Show{moved}
		if err := checkStarts(shows, now); err != nil {
			return err
		}
		if err := checkRuntimes(ctx, tx, shows); err != nil {
			return err
		}
		if err := refuseOverlap(ctx, tx, moved); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE shows SET starts_at = $2, ends_at = $3 WHERE id = $1`,
			showID, res.StartsAt, res.EndsAt); err != nil {
			if code, _ := pgCode(err); code == codeExclusion {
				// The check above holds under the scheduling lock; the
				// constraint stands behind it.
				return fmt.Errorf("move show: %w", catalog.ErrShowOverlap)
			}
			return fmt.Errorf("move show: %w", err)
		}
		if err := tx.QueryRow(ctx, `
			INSERT INTO show_reschedules (show_id, from_starts_at, from_ends_at, to_starts_at, to_ends_at, rescheduled_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			showID, res.FromStartsAt, res.FromEndsAt, res.StartsAt, res.EndsAt, now).Scan(&res.ID); err != nil {
			return fmt.Errorf("record the move: %w", err)
		}
		tag, err := tx.Exec(ctx, `
			INSERT INTO booking_moves (booking_id, reschedule_id)
			SELECT id, $2 FROM bookings WHERE show_id = $1 AND status = 'CONFIRMED'`, showID, res.ID)
		if err != nil {
			return fmt.Errorf("move bookings: %w", err)
		}
		res.BookingsMoved = int(tag.RowsAffected())
		if res.MoviegoersTold, err = s.queueMailsCounted(ctx, tx, rescheduleMails, res.ID, showID, now); err != nil {
			return err
		}
		// The seat rows do not change: the seat maps and show pages read
		// the show again, as for new prices or a cancellation.
		if err := announceShows(ctx, tx, showID); err != nil {
			return err
		}
		e.Before = map[string]any{"starts_at": res.FromStartsAt, "ends_at": res.FromEndsAt}
		e.After = map[string]any{"starts_at": res.StartsAt, "ends_at": res.EndsAt,
			"bookings_moved": res.BookingsMoved, "moviegoers_told": res.MoviegoersTold}
		return s.insertAudit(ctx, tx, e)
	})
	if err != nil {
		return booking.ShowReschedule{}, fmt.Errorf("reschedule show %d: %w", showID, err)
	}
	return res, nil
}

// rescheduleMails queues the mail of move $1 of show $2, at $3: one to each
// person whose bookings it moved, by address (a moviegoer's account, or the
// address a counter sale was given; a counter sale without one is told
// nothing), keyed by the move and the address so that it goes once.
const rescheduleMails = `
	WITH owed AS (
		SELECT DISTINCT ON (lower(coalesce(b.customer_email, u.email)))
		       coalesce(b.customer_email, u.email) AS recipient,
		       CASE WHEN b.channel = 'online' THEN b.user_id END AS user_id
		  FROM booking_moves bm
		  JOIN bookings b ON b.id = bm.booking_id
		  JOIN users u ON u.id = b.user_id
		 WHERE bm.reschedule_id = $1 AND (b.channel = 'online' OR b.customer_email IS NOT NULL)
		 ORDER BY lower(coalesce(b.customer_email, u.email)), b.channel <> 'online', b.created_at, b.id
	)
	INSERT INTO mails (kind, recipient, user_id, show_id, reschedule_id, once_key, created_at)
	SELECT 'show_rescheduled', recipient, user_id, $2::bigint, $1::bigint,
	       'show_rescheduled:' || $1::bigint || ':' || lower(recipient), $3
	  FROM owed
	ON CONFLICT (once_key) DO NOTHING
	RETURNING id`

// refuseOverlap refuses moving sh where another scheduled show of its
// screen is, naming that show. Under the screen's scheduling lock no show
// of it is scheduled or moved meanwhile.
func refuseOverlap(ctx context.Context, tx pgx.Tx, sh catalog.Show) error {
	e := &catalog.ScheduleOverlapError{StartsAt: sh.StartsAt}
	err := tx.QueryRow(ctx, `
		SELECT id, starts_at FROM shows
		 WHERE screen_id = $1 AND id <> $2 AND status = 'SCHEDULED' AND tstzrange(starts_at, ends_at) && tstzrange($3, $4)
		 ORDER BY starts_at LIMIT 1`, sh.ScreenID, sh.ID, sh.StartsAt, sh.EndsAt).Scan(&e.ConflictingShowID, &e.ConflictingStartsAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("find the show in the way: %w", err)
	}
	return e
}

// ShowAudience counts showID's confirmed bookings and the people a change
// to it would e-mail, once each (see rescheduleMails).
func (s *Store) ShowAudience(ctx context.Context, showID int64) (booking.ShowAudience, error) {
	var a booking.ShowAudience
	if err := s.pool.QueryRow(ctx, `
		SELECT count(*),
		       count(DISTINCT lower(coalesce(b.customer_email, u.email))) FILTER (
		           WHERE b.channel = 'online' OR b.customer_email IS NOT NULL),
		       count(*) FILTER (WHERE b.channel <> 'online' AND b.customer_email IS NULL)
		  FROM bookings b JOIN users u ON u.id = b.user_id
		 WHERE b.show_id = $1 AND b.status = 'CONFIRMED'`, showID).Scan(&a.Bookings, &a.People, &a.Unreachable); err != nil {
		return a, fmt.Errorf("count the bookings of show %d: %w", showID, err)
	}
	return a, nil
}
