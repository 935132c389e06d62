package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// LeaseRefunds claims up to limit refunds that are due (PENDING, or FAILED
// and past their backoff) for lease, so that no other worker takes them
// meanwhile, and returns them. The provider is called after this returns,
// outside any transaction; a worker that dies leaves the refund to be taken
// again when the lease ends.
func (s *Store) LeaseRefunds(ctx context.Context, limit int, lease time.Duration) ([]booking.Refund, error) {
	rows, err := s.pool.Query(ctx, `
		WITH now AS (SELECT coalesce($1::timestamptz, clock_timestamp()) AS t)
		UPDATE refunds r SET attempts = r.attempts + 1, next_attempt_at = now.t + $3 * interval '1 microsecond'
		  FROM now
		 WHERE r.id IN (SELECT id FROM refunds, now
		                 WHERE status IN ('PENDING', 'FAILED') AND next_attempt_at <= now.t
		                 ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING r.id::text, r.payment_id, r.amount_minor, r.currency, r.reason, r.status, r.attempts`,
		s.now(), limit, lease.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("lease refunds: %w", err)
	}
	refunds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Refund, error) {
		var x booking.Refund
		err := r.Scan(&x.ID, &x.PaymentID, &x.AmountMinor, &x.Currency, &x.Reason, &x.Status, &x.Attempts)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("lease refunds: %w", err)
	}
	return refunds, nil
}

// RefundSucceeded records that the provider paid refund id back.
func (s *Store) RefundSucceeded(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE refunds SET status = 'SUCCEEDED', last_error = NULL,
		       updated_at = coalesce($2::timestamptz, clock_timestamp())
		 WHERE id = $1 AND status <> 'SUCCEEDED'`, id, s.now())
	if err != nil {
		return fmt.Errorf("record refund %s succeeded: %w", id, err)
	}
	return nil
}

// RefundFailed records a failed attempt; the refund is retried after backoff.
func (s *Store) RefundFailed(ctx context.Context, id string, cause error, backoff time.Duration) error {
	_, err := s.pool.Exec(ctx, `
		WITH now AS (SELECT coalesce($4::timestamptz, clock_timestamp()) AS t)
		UPDATE refunds SET status = 'FAILED', last_error = $2, updated_at = now.t,
		       next_attempt_at = now.t + $3 * interval '1 microsecond'
		  FROM now
		 WHERE id = $1 AND status <> 'SUCCEEDED'`, id, cause.Error(), backoff.Microseconds(), s.now())
	if err != nil {
		return fmt.Errorf("record refund %s failed: %w", id, err)
	}
	return nil
}
