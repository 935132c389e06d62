package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/mail"
)

// queueRefunds inserts the job that pays each of ids back, in tx: the
// refund and its job commit together or not at all. A refund whose job is
// waiting to be retried is made due now (an admin's "retry now").
func (s *Store) queueRefunds(ctx context.Context, tx pgx.Tx, ids ...string) error {
	for _, id := range ids {
		res, err := s.jobs.InsertTx(ctx, tx, jobs.Refund{RefundID: id}, s.dueNow())
		if err != nil {
			return fmt.Errorf("queue refund %s: %w", id, err)
		}
		if res.UniqueSkippedAsDuplicate && (res.Job.State == rivertype.JobStateRetryable || res.Job.State == rivertype.JobStateScheduled) {
			if _, err := s.jobs.JobRetryTx(ctx, tx, res.Job.ID); err != nil {
				return fmt.Errorf("retry refund %s now: %w", id, err)
			}
		}
	}
	return nil
}

// StartRefund records one more attempt at refund id and returns it; a
// refund already paid comes back as it is, for the worker to leave.
func (s *Store) StartRefund(ctx context.Context, id string) (booking.Refund, error) {
	var r booking.Refund
	err := s.pool.QueryRow(ctx, `
		UPDATE refunds SET attempts = attempts + CASE WHEN status = 'SUCCEEDED' THEN 0 ELSE 1 END,
		       updated_at = coalesce($2::timestamptz, clock_timestamp())
		 WHERE id = $1
		RETURNING id::text, payment_id, amount_minor, currency, reason, status, attempts`, id, s.now()).
		Scan(&r.ID, &r.PaymentID, &r.AmountMinor, &r.Currency, &r.Reason, &r.Status, &r.Attempts)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("refund %s: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("start refund %s: %w", id, err)
	}
	return r, nil
}

// RefundSucceeded records that the provider paid refund id back, and
// queues the mail that tells its payer.
func (s *Store) RefundSucceeded(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			UPDATE refunds SET status = 'SUCCEEDED', last_error = NULL,
			       updated_at = coalesce($2::timestamptz, clock_timestamp())
			 WHERE id = $1 AND status <> 'SUCCEEDED'`, id, s.now())
		if err != nil {
			return fmt.Errorf("record refund %s succeeded: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		return s.queueRefundMails(ctx, tx, mail.RefundPaid, id)
	})
}

// RefundFailed records a failed attempt and why; its job is retried. At
// the RefundFailingAfter-th failure the payer is told the refund is delayed
// and customer service is asked to look.
func (s *Store) RefundFailed(ctx context.Context, id string, cause error) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var attempts int
		err := tx.QueryRow(ctx, `
			UPDATE refunds SET status = 'FAILED', last_error = $2,
			       updated_at = coalesce($3::timestamptz, clock_timestamp())
			 WHERE id = $1 AND status <> 'SUCCEEDED'
			RETURNING attempts`, id, cause.Error(), s.now()).Scan(&attempts)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("record refund %s failed: %w", id, err)
		}
		if attempts < RefundFailingAfter {
			return nil
		}
		return s.queueRefundMails(ctx, tx, mail.RefundFailing, id)
	})
}
