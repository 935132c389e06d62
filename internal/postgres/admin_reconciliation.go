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

// AdminShow returns showID whatever its status (Show returns only a
// scheduled one), without its prices, or booking.ErrNotFound.
func (s *Store) AdminShow(ctx context.Context, showID int64) (catalog.AdminShow, error) {
	var out catalog.AdminShow
	var status string
	row := s.pool.QueryRow(ctx, `SELECT `+showColumns+`, sh.status FROM `+showFrom+` WHERE sh.id = $1`, showID)
	err := row.Scan(&out.ID, &out.MovieID, &out.MovieTitle, &out.TheatreID, &out.TheatreName, &out.TimeZone,
		&out.CityName, &out.ScreenID, &out.ScreenName, &out.StartsAt, &out.EndsAt, &out.Currency,
		&out.Format, &out.Language, &out.Dubbed, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	if err != nil {
		return out, fmt.Errorf("read show %d: %w", showID, err)
	}
	out.Status = status
	return out, nil
}

// Reconciliation lists the payments to check, not resolved, oldest first:
// refunds FAILED after q.RefundAttempts attempts or more, charges of the
// wrong amount (unless listed as a failed refund already), and payment
// checks still open q.CheckGrace after their hold's deadline.
func (s *Store) Reconciliation(ctx context.Context, q booking.ReconcileQuery) ([]booking.ReconcileItem, error) {
	var theatres any
	if !q.All {
		theatres = q.Theatres
		if q.Theatres == nil {
			theatres = []int64{}
		}
	}
	rows, err := s.pool.Query(ctx, `
		WITH now AS (SELECT coalesce($1::timestamptz, clock_timestamp()) AS t),
		place AS (
			SELECT h.id AS hold_id, sh.id AS show_id, t.id AS theatre_id, t.name AS theatre_name, t.timezone,
			       m.title, sh.starts_at, h.expires_at
			  FROM holds h
			  JOIN shows sh ON sh.id = h.show_id
			  JOIN screens sc ON sc.id = sh.screen_id
			  JOIN theatres t ON t.id = sc.theatre_id
			  JOIN movies m ON m.id = sh.movie_id),
		items AS (
			SELECT CASE WHEN r.status = 'FAILED' AND r.attempts >= $2 THEN 'refund_failed' ELSE 'amount_mismatch' END AS kind,
			       p.payment_id, coalesce(p.hold_id::text, '') AS hold_id,
			       pl.show_id, pl.theatre_id, pl.theatre_name, pl.timezone, pl.title, pl.starts_at,
			       p.amount_minor, p.currency, p.received_at AS since,
			       coalesce(u.name, '') AS customer_name, coalesce(u.email, '') AS customer_email,
			       coalesce(r.amount_minor, 0) AS refund_minor,
			       coalesce(r.status, '') AS refund_status, coalesce(r.attempts, 0) AS attempts,
			       coalesce(r.last_error, '') AS last_error, 0 AS checks
			  FROM payments p
			  LEFT JOIN refunds r ON r.payment_id = p.payment_id
			  LEFT JOIN place pl ON pl.hold_id = p.hold_id
			  LEFT JOIN users u ON u.id = p.user_id
			 WHERE (r.status = 'FAILED' AND r.attempts >= $2) OR p.reason = 'amount_mismatch'
			UNION ALL
			SELECT 'unsettled_check', '', c.hold_id::text,
			       pl.show_id, pl.theatre_id, pl.theatre_name, pl.timezone, pl.title, pl.starts_at,
			       h.amount_minor, h.currency, c.armed_at, u.name, u.email, 0, '', 0, c.last_error, c.checks
			  FROM (`+openPaymentChecks+`) c
			  JOIN holds h ON h.id = c.hold_id
			  JOIN place pl ON pl.hold_id = c.hold_id
			  JOIN users u ON u.id = h.user_id
			  CROSS JOIN now
			 WHERE h.expires_at + $3 * interval '1 microsecond' < now.t)
		SELECT kind, payment_id, hold_id, coalesce(show_id, 0), coalesce(theatre_id, 0), coalesce(theatre_name, ''), coalesce(timezone, 'UTC'),
		       coalesce(title, ''), starts_at, amount_minor, currency, since, customer_name, customer_email,
		       refund_minor, refund_status, attempts, last_error, checks
		  FROM items i
		 WHERE ($4::bigint[] IS NULL OR i.theatre_id = ANY ($4))
		   AND NOT EXISTS (SELECT 1 FROM reconciliation_resolutions rr
		                    WHERE rr.item = CASE WHEN i.kind = 'unsettled_check' THEN 'check:' || i.hold_id
		                                         ELSE 'payment:' || i.payment_id END)
		 ORDER BY since, payment_id, hold_id
		 LIMIT 500`, s.now(), q.RefundAttempts, q.CheckGrace.Microseconds(), theatres)
	if err != nil {
		return nil, fmt.Errorf("read payments to check: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.ReconcileItem, error) {
		var it booking.ReconcileItem
		var starts *time.Time
		err := r.Scan(&it.Kind, &it.PaymentID, &it.HoldID, &it.ShowID, &it.TheatreID, &it.TheatreName, &it.TimeZone,
			&it.MovieTitle, &starts, &it.AmountMinor, &it.Currency, &it.Since, &it.CustomerName, &it.CustomerEmail,
			&it.RefundMinor, &it.RefundStatus,
			&it.RefundAttempts, &it.LastError, &it.Checks)
		if starts != nil {
			it.StartsAt = *starts
		}
		return it, err
	})
	if err != nil {
		return nil, fmt.Errorf("read payments to check: %w", err)
	}
	return items, nil
}

// TheatreOfPayment is the theatre of the show paymentID paid for (0 for a
// payment of no known hold), or booking.ErrNotFound.
func (s *Store) TheatreOfPayment(ctx context.Context, paymentID string) (int64, error) {
	var theatre *int64
	err := s.pool.QueryRow(ctx, `
		SELECT sc.theatre_id FROM payments p
		  LEFT JOIN holds h ON h.id = p.hold_id
		  LEFT JOIN shows sh ON sh.id = h.show_id
		  LEFT JOIN screens sc ON sc.id = sh.screen_id
		 WHERE p.payment_id = $1`, paymentID).Scan(&theatre)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("payment %q: %w", paymentID, booking.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("theatre of payment %q: %w", paymentID, err)
	}
	if theatre == nil {
		return 0, nil
	}
	return *theatre, nil
}

// TheatreOfCheck is the theatre of the show of the hold payment check
// holdID watches, or booking.ErrNotFound when there is no such check.
func (s *Store) TheatreOfCheck(ctx context.Context, holdID string) (int64, error) {
	var theatre int64
	err := s.pool.QueryRow(ctx, `
		SELECT sc.theatre_id FROM (`+openPaymentChecks+`) c
		  JOIN holds h ON h.id = c.hold_id
		  JOIN shows sh ON sh.id = h.show_id
		  JOIN screens sc ON sc.id = sh.screen_id
		 WHERE c.hold_id::text = $1`, holdID).Scan(&theatre)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("payment check %q: %w", holdID, booking.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("theatre of payment check %q: %w", holdID, err)
	}
	return theatre, nil
}

// RetryRefund makes paymentID's FAILED refund due now with its attempts
// counted from zero again (the worker's backoff starts over), and returns
// what it was; e gets that as its before. A refund that is not FAILED is
// booking.ErrNothingToRetry.
func (s *Store) RetryRefund(ctx context.Context, paymentID string, e audit.Entry) (booking.RefundRetry, error) {
	var was booking.RefundRetry
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var lastError *string
		err := tx.QueryRow(ctx, `
			SELECT id::text, attempts, last_error FROM refunds
			 WHERE payment_id = $1 AND status = 'FAILED' FOR UPDATE`, paymentID).Scan(&was.RefundID, &was.Attempts, &lastError)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("refund of payment %q: %w", paymentID, booking.ErrNothingToRetry)
		}
		if err != nil {
			return fmt.Errorf("lock refund of payment %q: %w", paymentID, err)
		}
		if lastError != nil {
			was.LastError = *lastError
		}
		if _, err := tx.Exec(ctx, `
			UPDATE refunds SET attempts = 0, updated_at = coalesce($2::timestamptz, clock_timestamp())
			 WHERE id = $1`, was.RefundID, s.now()); err != nil {
			return fmt.Errorf("retry refund %s: %w", was.RefundID, err)
		}
		if err := s.queueRefunds(ctx, tx, was.RefundID); err != nil {
			return err
		}
		e.Before = was
		e.After = booking.RefundRetry{RefundID: was.RefundID}
		return s.insertAudit(ctx, tx, e)
	})
	return was, err
}

// RetryPaymentCheck makes the payment check of holdID due now (a
// discarded one with one more attempt; one running now is left to finish),
// or booking.ErrNothingToRetry when it is no longer open.
func (s *Store) RetryPaymentCheck(ctx context.Context, holdID string, e audit.Entry) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var job int64
		err := tx.QueryRow(ctx, `SELECT c.job_id FROM (`+openPaymentChecks+`) c WHERE c.hold_id::text = $1`, holdID).Scan(&job)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("payment check %q: %w", holdID, booking.ErrNothingToRetry)
		}
		if err != nil {
			return fmt.Errorf("read payment check %q: %w", holdID, err)
		}
		if _, err := s.jobs.JobRetryTx(ctx, tx, job); err != nil {
			return fmt.Errorf("retry payment check %q: %w", holdID, err)
		}
		return s.insertAudit(ctx, tx, e)
	})
}

// ResolveReconcile marks item (booking.ReconcileItem.Key) resolved by userID with
// note; resolving it again keeps the first note and records nothing.
func (s *Store) ResolveReconcile(ctx context.Context, item, userID, note string, e audit.Entry) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			INSERT INTO reconciliation_resolutions (item, resolved_by, note, resolved_at)
			VALUES ($1, $2, $3, coalesce($4::timestamptz, clock_timestamp()))
			ON CONFLICT (item) DO NOTHING`, item, userID, note, s.now())
		if err != nil {
			return fmt.Errorf("resolve %s: %w", item, err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		return s.insertAudit(ctx, tx, e)
	})
}
