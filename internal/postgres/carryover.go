package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/jobs"
)

// carryOver hands to River the work that builds before it did in loops of
// their own: the payment checks of their table, and the refunds still owed
// (their job did not exist). It runs after River's migrations, at every
// start, and does nothing once there is nothing left to carry.
func carryOver(ctx context.Context, databaseURL string) error {
	// A pool of its own, without the store's lock timeout: instances that
	// start together wait for each other's carry-over.
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("connect for the carry-over: %w", err)
	}
	defer pool.Close()
	s := NewStore(pool)
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := s.carryOverPaymentChecks(ctx, tx); err != nil {
			return err
		}
		return s.carryOverRefunds(ctx, tx)
	})
}

// carryOverRefunds queues a job for every refund still owed that never had
// one (owed before refunds were jobs). A refund whose job gave up keeps
// waiting for a person (the reconciliation page), until River forgets the
// job (jobs' retention) and the next start tries it again.
func (s *Store) carryOverRefunds(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `
		SELECT r.id::text FROM refunds r
		 WHERE r.status IN ('PENDING', 'FAILED')
		   AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.kind = 'refund' AND j.args->>'refund_id' = r.id::text)
		 ORDER BY r.created_at`)
	if err != nil {
		return fmt.Errorf("refunds to carry over: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("refunds to carry over: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: jobs.Refund{RefundID: id}}
	}
	if _, err := s.jobs.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("carry over %d refunds: %w", len(ids), err)
	}
	return nil
}
