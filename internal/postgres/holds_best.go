package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/seating"
)

// holdBest holds the best free seats of req's show for req.Best (see
// seating.Best), in one transaction:
//
//  1. a lock of the show's choosers, first in the lock order (before the
//     client network's and the seats'): best-available holds of one show
//     choose one after the other, so that an on-sale crowd asking for the
//     best seats never collides on them;
//  2. the seats as they are now and the screen's ideal viewing point, and
//     the choice;
//  3. hold_seats with the seats chosen, as any hold: the seats' locks in
//     the global order, the caps, the key.
//
// A hold of named seats may take a chosen seat between 2 and 3 (it does not
// wait for choosers): the seats are then chosen again, at most three times
// in all. A retry under the same key replays the first answer, whatever is
// free now.
func (s *Store) holdBest(ctx context.Context, req booking.HoldRequest, maxSeats int) (booking.HoldResult, error) {
	best := *req.Best
	if err := best.Check(maxSeats); err != nil {
		return booking.HoldResult{}, err
	}
	req.Seats = nil
	fingerprint := req.Fingerprint(nil)
	party := seating.Party{Count: best.Count, Category: best.Category, Accessible: best.Accessible}
	for attempt := 0; ; attempt++ {
		var (
			res      booking.HoldResult
			retry    bool
			together bool
		)
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true), pg_advisory_xact_lock(hashtext('hold_best'), hashtext($2::bigint::text))`,
				fmt.Sprintf("%dms", chooserWait.Milliseconds()), req.ShowID); err != nil {
				return fmt.Errorf("wait for the show's choosers: %w", err)
			}
			seats, ideal, err := s.choosable(ctx, tx, req.ShowID)
			if err != nil {
				return err
			}
			if len(seats) == 0 {
				return fmt.Errorf("show %d: %w", req.ShowID, booking.ErrNotFound)
			}
			choice, err := seating.Best(seats, party, ideal)
			switch {
			case errors.Is(err, seating.ErrNotEnough):
				// A retry of a hold that won sees its own seats taken:
				// hold_seats answers it from its key (a replay, or the
				// key reused). Anyone else is told there are too few.
				var known bool
				if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM hold_keys WHERE user_id = $1 AND key = $2)`,
					req.UserID, req.Key).Scan(&known); err != nil {
					return fmt.Errorf("read hold key: %w", err)
				}
				if !known {
					return fmt.Errorf("show %d: %w", req.ShowID, booking.ErrNotEnoughSeats)
				}
			case err != nil:
				return fmt.Errorf("choose seats of show %d: %w", req.ShowID, err)
			}
			together = choice.Together
			res, retry, err = s.holdOnce(ctx, tx, req, sortedCopy(choice.Seats), fingerprint)
			return err
		})
		var taken *booking.SeatsUnavailableError
		if (retry || errors.As(err, &taken) || lockTimedOut(err)) && attempt < 2 {
			continue
		}
		if lockTimedOut(err) || errors.As(err, &taken) {
			// Still taken from under it, or the choosers' queue too long:
			// a crowd; the seats it would have had are gone.
			return res, fmt.Errorf("show %d: %w", req.ShowID, booking.ErrNotEnoughSeats)
		}
		if err == nil {
			res.Together = together
			if res.Replayed {
				// Answered as the first time: were its seats together?
				res.Together, err = s.sideBySide(ctx, req.ShowID, res.Hold.Seats)
			}
		}
		return res, err
	}
}

// sideBySide reports whether seats of a show are side by side in one row.
func (s *Store) sideBySide(ctx context.Context, showID int64, seats []string) (bool, error) {
	var together bool
	err := s.pool.QueryRow(ctx, `
		SELECT count(DISTINCT st.grid_row) = 1 AND max(st.grid_col) - min(st.grid_col) + 1 = count(*)
		  FROM show_seats ss JOIN seats st ON st.screen_id = ss.screen_id AND st.seat_id = ss.seat_id
		 WHERE ss.show_id = $1 AND ss.seat_id = ANY ($2)`, showID, seats).Scan(&together)
	if err != nil {
		return false, fmt.Errorf("read seats of show %d: %w", showID, err)
	}
	return together, nil
}

// chooserWait bounds a best-available hold's wait for the show's other
// choosers, each a few milliseconds: admission keeps the queue of them
// short, so a wait this long is a database in trouble.
const chooserWait = 2 * time.Second

// choosable reads the seats of a show on sale as seating sees them, free
// or not, as of the store's clock (a seat held by a hold that has let it go
// is free), and its screen's ideal viewing point: the one the layout sets,
// else the default. A show not on sale (none, cancelled) has no seats.
func (s *Store) choosable(ctx context.Context, tx pgx.Tx, showID int64) ([]seating.Seat, seating.Point, error) {
	// The screen's point comes on every seat's row: one round trip, in the
	// crowd's queue, rather than two.
	rows, err := tx.Query(ctx, `
		SELECT `+seatingColumns+`, sc.ideal_grid_row, sc.ideal_grid_col
		  FROM show_seats ss
		  JOIN shows sh ON sh.id = ss.show_id
		  JOIN screens sc ON sc.id = ss.screen_id
		  JOIN seats st ON st.screen_id = ss.screen_id AND st.seat_id = ss.seat_id
		 WHERE ss.show_id = $1 AND sh.status = 'SCHEDULED'`, showID, s.now())
	if err != nil {
		return nil, seating.Point{}, fmt.Errorf("read seats of show %d: %w", showID, err)
	}
	var set *catalog.GridPoint
	seats, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (seating.Seat, error) {
		var (
			st       seating.Seat
			row, col *int
		)
		err := r.Scan(&st.ID, &st.Row, &st.GridRow, &st.GridCol, &st.Category, &st.Accessible, &st.Companion, &st.Free, &row, &col)
		set = gridPoint(row, col)
		return st, err
	})
	if err != nil {
		return nil, seating.Point{}, fmt.Errorf("read seats of show %d: %w", showID, err)
	}
	if set == nil {
		return seats, seating.DefaultIdeal(seats), nil
	}
	return seats, seating.Point{Row: float64(set.Row), Col: float64(set.Col)}, nil
}

// seatingColumns are a seat of a show (ss) and of its layout (st) as
// collectSeating reads them, free as of $2 (nil: the database clock).
const seatingColumns = `ss.seat_id, st.row_label, st.grid_row, st.grid_col, ss.category, st.accessible, st.companion,
		       ss.status = 'AVAILABLE' OR (ss.status = 'HELD' AND ss.hold_expires_at <= coalesce($2::timestamptz, clock_timestamp()))`

// collectSeating reads rows of seatingColumns.
func collectSeating(rows pgx.Rows, showID int64) ([]seating.Seat, error) {
	seats, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (seating.Seat, error) {
		var st seating.Seat
		err := r.Scan(&st.ID, &st.Row, &st.GridRow, &st.GridCol, &st.Category, &st.Accessible, &st.Companion, &st.Free)
		return st, err
	})
	if err != nil {
		return nil, fmt.Errorf("read seats of show %d: %w", showID, err)
	}
	return seats, nil
}

// lockTimedOut reports whether err is a lock wait cut by lock_timeout.
func lockTimedOut(err error) bool {
	code, _ := pgCode(err)
	return code == codeLockNotAvail
}

// sortedCopy is ids sorted, as hold_seats takes and records them.
func sortedCopy(ids []string) []string {
	out := make([]string, len(ids))
	copy(out, ids)
	slices.Sort(out)
	return out
}
