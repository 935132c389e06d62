package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// WatchPayments arms reconciliation of hold holdID's payments: called when a
// checkout is opened for it, before the shopper can pay. The first check is
// due the worker's delay after now; an armed hold is armed again from now.
func (s *Store) WatchPayments(ctx context.Context, holdID string) error {
	if _, err := s.pool.Exec(ctx, armCheck, holdID, s.now()); err != nil {
		return fmt.Errorf("watch payments of hold %s: %w", holdID, err)
	}
	return nil
}

// armCheck is WatchPayments' statement: $1 the hold, $2 the clock (NULL:
// the database's).
const armCheck = `
	INSERT INTO payment_checks (hold_id, armed_at)
	VALUES ($1, coalesce($2::timestamptz, clock_timestamp()))
	ON CONFLICT (hold_id) DO UPDATE
	   SET armed_at = EXCLUDED.armed_at, next_check_at = NULL, checks = 0, last_error = NULL`

// PrepareCheckout readies userID's hold holdID for a checkout at the
// provider, before the shopper can pay. If the hold can still be paid (HELD,
// before its deadline) it keeps its seats for grace after the deadline, so
// that a payment the provider captured in time books it even when its report
// comes late, and reconciliation watches it (as WatchPayments). It returns
// the hold as of now (as Hold reads it) and whether it can be paid; another
// user's hold is not found.
//
// The grace is set under the hold's seats' locks and then the hold's, in the
// global order, and the seats' hold_expires_at with it: the sweeper,
// hold_seats and ConfirmPayment, which decide under the same locks, see
// either the grace or the hold ended, never one without the other.
func (s *Store) PrepareCheckout(ctx context.Context, userID, holdID string, grace time.Duration) (booking.Hold, bool, error) {
	if !validID(holdID) || !validID(userID) {
		return booking.Hold{}, false, fmt.Errorf("hold %q: %w", holdID, booking.ErrNotFound)
	}
	var (
		h       booking.Hold
		payable bool
	)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		h, err = scanHold(tx.QueryRow(ctx, `SELECT `+holdColumns+` FROM holds WHERE id = $1 AND user_id = $2`, holdID, userID))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("hold %s: %w", holdID, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read hold %s: %w", holdID, err)
		}
		if h.State != booking.HoldHeld {
			return nil
		}
		now, err := s.lockHold(ctx, tx, &h)
		if err != nil {
			return err
		}
		if h.Lapsed(now) {
			h.State = booking.HoldExpired
		}
		if payable = h.Payable(now); !payable {
			return nil
		}
		if grace > h.PaymentGrace {
			h.PaymentGrace = grace
			if _, err := tx.Exec(ctx, `UPDATE holds SET payment_grace = $2 WHERE id = $1`, h.ID, grace); err != nil {
				return fmt.Errorf("set payment grace of hold %s: %w", h.ID, err)
			}
			// The seats stay HELD, but until later: announced (by the
			// seat_events trigger, 000002), so that every instance's seat map
			// in memory frees them at the new time, not the old one.
			if _, err := tx.Exec(ctx, `
				UPDATE show_seats SET hold_expires_at = $4
				 WHERE show_id = $1 AND seat_id = ANY ($2) AND hold_id = $3 AND status = 'HELD'`,
				h.ShowID, h.Seats, h.ID, h.LetsGoAt()); err != nil {
				return fmt.Errorf("keep seats of hold %s: %w", h.ID, err)
			}
		}
		if _, err := tx.Exec(ctx, armCheck, h.ID, now); err != nil {
			return fmt.Errorf("watch payments of hold %s: %w", h.ID, err)
		}
		return nil
	})
	return h, payable, err
}

// LeasePaymentChecks claims up to limit checks that are due (the first one
// delay after arming, later ones when rescheduled) for lease, so that no
// other worker takes them meanwhile, and returns them. The provider is asked
// after this returns, outside any transaction; a worker that dies leaves the
// check to be taken again when the lease ends.
func (s *Store) LeasePaymentChecks(ctx context.Context, limit int, delay, lease time.Duration) ([]booking.PaymentCheck, error) {
	rows, err := s.pool.Query(ctx, `
		WITH now AS (SELECT coalesce($1::timestamptz, clock_timestamp()) AS t),
		due AS (
			SELECT c.hold_id FROM payment_checks c, now
			 WHERE c.next_check_at <= now.t
			    OR (c.next_check_at IS NULL AND c.armed_at <= now.t - $3 * interval '1 microsecond')
			 ORDER BY coalesce(c.next_check_at, c.armed_at) LIMIT $2
			 FOR UPDATE OF c SKIP LOCKED
		)
		UPDATE payment_checks c SET next_check_at = now.t + $4 * interval '1 microsecond', checks = c.checks + 1
		  FROM due, now
		 WHERE c.hold_id = due.hold_id
		RETURNING c.hold_id::text, c.armed_at, c.checks,
		          (SELECT h.expires_at FROM holds h WHERE h.id = c.hold_id),
		          EXISTS (SELECT 1 FROM payments p WHERE p.hold_id = c.hold_id),
		          now.t`,
		s.now(), limit, delay.Microseconds(), lease.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("lease payment checks: %w", err)
	}
	checks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.PaymentCheck, error) {
		var c booking.PaymentCheck
		err := r.Scan(&c.HoldID, &c.ArmedAt, &c.Checks, &c.ExpiresAt, &c.Settled, &c.Now)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("lease payment checks: %w", err)
	}
	return checks, nil
}

// ReschedulePaymentCheck sets when leased check c is due again, recording
// why the last one failed (nil: it did not).
func (s *Store) ReschedulePaymentCheck(ctx context.Context, c booking.PaymentCheck, next time.Time, cause error) error {
	var lastError *string
	if cause != nil {
		msg := cause.Error()
		lastError = &msg
	}
	if _, err := s.pool.Exec(ctx, `
		UPDATE payment_checks SET next_check_at = $3, last_error = $4
		 WHERE hold_id = $1 AND armed_at = $2`, c.HoldID, c.ArmedAt, next, lastError); err != nil {
		return fmt.Errorf("reschedule payment check of hold %s: %w", c.HoldID, err)
	}
	return nil
}

// FinishPaymentCheck ends leased check c: nothing more to ask the provider.
func (s *Store) FinishPaymentCheck(ctx context.Context, c booking.PaymentCheck) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM payment_checks WHERE hold_id = $1 AND armed_at = $2`, c.HoldID, c.ArmedAt); err != nil {
		return fmt.Errorf("finish payment check of hold %s: %w", c.HoldID, err)
	}
	return nil
}
