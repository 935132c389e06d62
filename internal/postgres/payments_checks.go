package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
)

// WatchPayments arms reconciliation of hold holdID's payments, as
// PrepareCheckout does with a checkout: its payment check job is first due
// the store's PaymentCheckDelay after now. A hold already watched keeps its
// check as it is (one live check per hold); an unknown one is
// booking.ErrNotFound.
func (s *Store) WatchPayments(ctx context.Context, holdID string) error {
	if !validID(holdID) {
		return fmt.Errorf("hold %q: %w", holdID, booking.ErrNotFound)
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var now time.Time
		err := tx.QueryRow(ctx, `SELECT coalesce($2::timestamptz, clock_timestamp()) FROM holds WHERE id = $1`, holdID, s.now()).Scan(&now)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("hold %s: %w", holdID, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read hold %s: %w", holdID, err)
		}
		return s.watchPayments(ctx, tx, holdID, now)
	})
}

// watchPayments inserts the payment check of hold holdID in tx, due the
// check delay after now: the check and what arms it commit together. The
// job is unique by hold, so while one is live a second insert keeps it
// unchanged: it already asks until the hold's last look, and the wait
// between two of its checks is at most the worker's MaxWait.
func (s *Store) watchPayments(ctx context.Context, tx pgx.Tx, holdID string, now time.Time) error {
	opts := &river.InsertOpts{ScheduledAt: now.Add(s.paymentCheckDelay())}
	if _, err := s.jobs.InsertTx(ctx, tx, jobs.PaymentCheck{HoldID: holdID}, opts); err != nil {
		return fmt.Errorf("watch payments of hold %s: %w", holdID, err)
	}
	return nil
}

// paymentCheckDelay is PaymentCheckDelay, or its default.
func (s *Store) paymentCheckDelay() time.Duration {
	if s.PaymentCheckDelay <= 0 {
		return jobs.DefaultPaymentCheckDelay
	}
	return s.PaymentCheckDelay
}

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
		return s.watchPayments(ctx, tx, h.ID, now)
	})
	return h, payable, err
}

// PaymentCheckState is where hold holdID stands for its payment check: its
// deadline, whether an outcome is stored for a payment of it, and the
// store's time now. An unknown hold is booking.ErrNotFound.
func (s *Store) PaymentCheckState(ctx context.Context, holdID string) (booking.PaymentCheck, error) {
	c := booking.PaymentCheck{HoldID: holdID}
	if !validID(holdID) {
		return c, fmt.Errorf("hold %q: %w", holdID, booking.ErrNotFound)
	}
	err := s.pool.QueryRow(ctx, `
		SELECT h.expires_at, EXISTS (SELECT 1 FROM payments p WHERE p.hold_id = h.id),
		       coalesce($2::timestamptz, clock_timestamp())
		  FROM holds h WHERE h.id = $1`, holdID, s.now()).Scan(&c.ExpiresAt, &c.Settled, &c.Now)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, fmt.Errorf("hold %s: %w", holdID, booking.ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("read payment check of hold %s: %w", holdID, err)
	}
	return c, nil
}

// openPaymentChecks is a query of River's jobs: the payment check of every
// hold whose check is not over, that is its latest check job that is
// waiting, running, or discarded after jobs.PaymentCheckAttempts failures
// (for a person to retry or resolve). Its columns: hold_id, job_id,
// armed_at (when the job was inserted), and checks and last_error, which
// the worker records in the job's metadata.
var openPaymentChecks = `
	SELECT DISTINCT ON (j.args->>'hold_id')
	       (j.args->>'hold_id')::uuid AS hold_id, j.id AS job_id, j.created_at AS armed_at,
	       coalesce((j.metadata->>'` + jobs.PaymentCheckChecks + `')::int, 0) AS checks,
	       coalesce(j.metadata->>'` + jobs.PaymentCheckLastError + `', '') AS last_error
	  FROM river_job j
	 WHERE j.kind = '` + jobs.PaymentCheck{}.Kind() + `' AND j.state NOT IN ('completed', 'cancelled')
	 ORDER BY j.args->>'hold_id', j.id DESC`
