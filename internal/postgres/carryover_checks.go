package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/jobs"
)

// carryOverChecksLock is the advisory lock the carry-over of payment checks
// runs under, so that instances starting together move the rows once: the
// others then find the table gone (and do not fail on it mid-drop).
const carryOverChecksLock = 0x6d617263 // "marc"

// carryOverPaymentChecks moves the payment checks a build before River kept
// in its own table (payment_checks, 000001) to River, then drops the table:
// each row becomes a jobs.PaymentCheck, due when the row was (never checked:
// the check delay after it was armed), with its checks and last error, so
// that the worker's schedule goes on where it was. Nothing writes the
// table since 000018.
//
// It runs in tx after River's migrations, which make the job table: on a
// fresh database ours run first. Without the table it does nothing, so it
// runs at every start. The instances of a build before this one still
// arming or leasing checks wait for the table's lock, then fail.
func (s *Store) carryOverPaymentChecks(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, carryOverChecksLock); err != nil {
		return fmt.Errorf("lock the carry-over of payment checks: %w", err)
	}
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass('payment_checks') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("look for payment_checks: %w", err)
	}
	if !exists {
		return nil
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE payment_checks IN ACCESS EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("lock payment_checks: %w", err)
	}
	rows, err := tx.Query(ctx, `
		SELECT hold_id::text, coalesce(next_check_at, armed_at + $1 * interval '1 microsecond'), checks, last_error
		  FROM payment_checks ORDER BY hold_id`, s.paymentCheckDelay().Microseconds())
	if err != nil {
		return fmt.Errorf("read payment_checks: %w", err)
	}
	checks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (river.InsertManyParams, error) {
		var (
			holdID    string
			due       time.Time
			asked     int
			lastError *string
		)
		if err := r.Scan(&holdID, &due, &asked, &lastError); err != nil {
			return river.InsertManyParams{}, err
		}
		meta, err := json.Marshal(map[string]any{jobs.PaymentCheckChecks: asked, jobs.PaymentCheckLastError: lastError})
		if err != nil {
			return river.InsertManyParams{}, err
		}
		return river.InsertManyParams{
			Args:       jobs.PaymentCheck{HoldID: holdID},
			InsertOpts: &river.InsertOpts{ScheduledAt: due, Metadata: meta},
		}, nil
	})
	if err != nil {
		return fmt.Errorf("read payment_checks: %w", err)
	}
	if len(checks) > 0 {
		// A hold with a live check already (its checkout opened again by
		// this build) keeps it: the job is unique by hold.
		if _, err := s.jobs.InsertManyTx(ctx, tx, checks); err != nil {
			return fmt.Errorf("carry %d payment checks over to river: %w", len(checks), err)
		}
	}
	if _, err := tx.Exec(ctx, `DROP TABLE payment_checks`); err != nil {
		return fmt.Errorf("drop payment_checks: %w", err)
	}
	return nil
}
