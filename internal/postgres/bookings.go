package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/mail"
)

const bookingColumns = `b.id::text, b.hold_id::text, b.user_id::text, b.show_id, b.seat_ids, b.status,
	b.amount_minor, b.currency, b.payment_id, b.code, b.created_at, b.cancelled_at, coalesce(b.cancelled_by, ''), b.channel,
	r.id::text, r.amount_minor, r.currency, r.reason, r.status, moved.from_starts_at, moved.to_starts_at, moved.rescheduled_at`

// bookingFrom is a booking with its refund and the latest move of its show
// that took it along (booking_moves).
const bookingFrom = `bookings b LEFT JOIN refunds r ON r.booking_id = b.id
	LEFT JOIN LATERAL (
		SELECT sr.from_starts_at, sr.to_starts_at, sr.rescheduled_at
		  FROM booking_moves bm JOIN show_reschedules sr ON sr.id = bm.reschedule_id
		 WHERE bm.booking_id = b.id ORDER BY sr.id DESC LIMIT 1) moved ON true`

func scanBooking(row pgx.Row) (booking.Booking, error) { return scanBookingWith(row) }

// scanBookingWith scans bookingColumns, then more into dest.
func scanBookingWith(row pgx.Row, more ...any) (booking.Booking, error) {
	var (
		b        booking.Booking
		refundID *string
		amount   *int64
		currency *string
		reason   *string
		status   *string
		movedAt  *time.Time
		from, to *time.Time
	)
	dest := append([]any{&b.ID, &b.HoldID, &b.UserID, &b.ShowID, &b.Seats, &b.Status,
		&b.AmountMinor, &b.Currency, &b.PaymentID, &b.Code, &b.CreatedAt, &b.CancelledAt, &b.CancelledBy, &b.Channel,
		&refundID, &amount, &currency, &reason, &status, &from, &to, &movedAt}, more...)
	err := row.Scan(dest...)
	if err == nil && movedAt != nil {
		b.Moved = &booking.Move{From: *from, To: *to, At: *movedAt}
	}
	if err == nil && refundID != nil {
		b.Refund = &booking.Refund{
			ID: *refundID, PaymentID: b.PaymentID, AmountMinor: *amount, Currency: *currency,
			Reason: *reason, Status: booking.RefundStatus(*status),
		}
	}
	return b, err
}

// Bookings returns userID's bookings, newest first.
func (s *Store) Bookings(ctx context.Context, userID string) ([]booking.Booking, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+bookingColumns+` FROM `+bookingFrom+`
		 WHERE b.user_id = $1 AND b.channel = 'online' ORDER BY b.created_at DESC, b.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list bookings: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Booking, error) { return scanBooking(r) })
	if err != nil {
		return nil, fmt.Errorf("list bookings: %w", err)
	}
	return list, nil
}

// Booking returns userID's booking bookingID; another user's is not found.
func (s *Store) Booking(ctx context.Context, userID, bookingID string) (booking.Booking, error) {
	if !validID(bookingID) {
		return booking.Booking{}, fmt.Errorf("booking %q: %w", bookingID, booking.ErrNotFound)
	}
	b, err := scanBooking(s.pool.QueryRow(ctx, `
		SELECT `+bookingColumns+` FROM `+bookingFrom+`
		 WHERE b.id = $1 AND b.user_id = $2 AND b.channel = 'online'`, bookingID, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return b, fmt.Errorf("booking %s: %w", bookingID, booking.ErrNotFound)
	}
	if err != nil {
		return b, fmt.Errorf("read booking %s: %w", bookingID, err)
	}
	return b, nil
}

// QuoteCancellation returns what cancelling userID's booking would refund now,
// without changing anything.
func (s *Store) QuoteCancellation(ctx context.Context, userID, bookingID string) (booking.RefundQuote, error) {
	b, err := s.Booking(ctx, userID, bookingID)
	if err != nil {
		return booking.RefundQuote{}, err
	}
	terms, err := s.cancellationTerms(ctx, s.pool, b.ShowID)
	if err != nil {
		return booking.RefundQuote{}, err
	}
	if b.Moved != nil {
		terms = terms.ForMovedBooking()
	}
	amount, ok := terms.Policy.RefundAt(b.AmountMinor, terms.StartsAt, terms.Now)
	return booking.RefundQuote{
		CancellationTerms: terms, AmountMinor: amount, Currency: b.Currency,
		Allowed: ok && b.Status == booking.BookingConfirmed,
	}, nil
}

// CancellationTerms returns the terms a booking of showID would be
// cancelled on now, to say them before anyone pays.
func (s *Store) CancellationTerms(ctx context.Context, showID int64) (booking.CancellationTerms, error) {
	t, err := s.cancellationTerms(ctx, s.pool, showID)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	return t, err
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// cancellationTerms returns the refund policy of showID's theatre, the show's
// start and the authoritative now, in one round trip.
func (s *Store) cancellationTerms(ctx context.Context, q querier, showID int64) (booking.CancellationTerms, error) {
	var (
		t        booking.CancellationTerms
		befores  []int64
		percents []int32
	)
	if err := q.QueryRow(ctx, `
		SELECT t.starts_at, t.befores, t.percents, coalesce($2::timestamptz, clock_timestamp())
		  FROM (`+showTermsSQL("$1")+`) t`, showID, s.now()).Scan(&t.StartsAt, &befores, &percents, &t.Now); err != nil {
		return t, fmt.Errorf("read show %d: %w", showID, err)
	}
	t.Policy = policyOf(befores, percents)
	return t, nil
}

// showTermsSQL selects the start of the show whose id is param and its
// theatre's refund tiers, as two arrays in the same order: min_before in
// microseconds, and percent.
func showTermsSQL(param string) string {
	return `
	SELECT sh.starts_at,
	       coalesce(array_agg((extract(epoch FROM rt.min_before) * 1000000)::bigint ORDER BY rt.min_before)
	                FILTER (WHERE rt.theatre_id IS NOT NULL), '{}') AS befores,
	       coalesce(array_agg(rt.percent ORDER BY rt.min_before)
	                FILTER (WHERE rt.theatre_id IS NOT NULL), '{}') AS percents
	  FROM shows sh JOIN screens sc ON sc.id = sh.screen_id
	  LEFT JOIN refund_tiers rt ON rt.theatre_id = sc.theatre_id
	 WHERE sh.id = ` + param + `
	 GROUP BY sh.starts_at`
}

// policyOf is the policy of the tiers showTermsSQL reads: the default one
// for a theatre that set none.
func policyOf(befores []int64, percents []int32) booking.RefundPolicy {
	if len(befores) == 0 {
		return booking.DefaultRefundPolicy
	}
	p := booking.RefundPolicy{Tiers: make([]booking.RefundTier, len(befores))}
	for i := range befores {
		p.Tiers[i] = booking.RefundTier{Before: time.Duration(befores[i]) * time.Microsecond, Percent: int(percents[i])}
	}
	return p
}

// RefundPolicy returns the refund policy of a theatre (the default one when
// it set none), to show before anyone pays.
func (s *Store) RefundPolicy(ctx context.Context, theatreID int64) (booking.RefundPolicy, error) {
	return refundPolicy(ctx, s.pool, theatreID)
}

func refundPolicy(ctx context.Context, q querier, theatreID int64) (booking.RefundPolicy, error) {
	rows, err := q.Query(ctx, `
		SELECT (extract(epoch FROM min_before) * 1000000)::bigint, percent
		  FROM refund_tiers WHERE theatre_id = $1`, theatreID)
	if err != nil {
		return booking.RefundPolicy{}, fmt.Errorf("read refund policy: %w", err)
	}
	tiers, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.RefundTier, error) {
		var micros int64
		var t booking.RefundTier
		err := r.Scan(&micros, &t.Percent)
		t.Before = time.Duration(micros) * time.Microsecond
		return t, err
	})
	if err != nil {
		return booking.RefundPolicy{}, fmt.Errorf("read refund policy: %w", err)
	}
	if len(tiers) == 0 {
		return booking.DefaultRefundPolicy, nil
	}
	return booking.RefundPolicy{Tiers: tiers}, nil
}

// CancelBooking cancels userID's confirmed booking under its theatre's
// refund policy, or booking.MovedPolicy when the theatre moved its show
// after it was booked: the seats return to sale and the refund is queued.
// A second cancel returns the same booking and refund; once the policy no
// longer allows cancelling, it fails with booking.ErrCancellationClosed.
func (s *Store) CancelBooking(ctx context.Context, userID, bookingID string) (booking.Booking, error) {
	b, err := s.Booking(ctx, userID, bookingID)
	if err != nil || b.Status == booking.BookingCancelled {
		return b, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		_, _, err := s.cancelBooking(ctx, tx, b, cancellation{by: booking.CancelledByMoviegoer, reason: "booking_cancelled",
			refund: func(amount int64, t booking.CancellationTerms) (int64, error) {
				refund, ok := t.Policy.RefundAt(amount, t.StartsAt, t.Now)
				if !ok {
					return 0, booking.ErrCancellationClosed
				}
				return refund, nil
			}})
		return err
	})
	if err != nil {
		return b, fmt.Errorf("cancel booking %s: %w", bookingID, err)
	}
	return s.Booking(ctx, userID, bookingID)
}

// cancellation is how one booking is cancelled: by whom (cancelled_by),
// the refund's reason, and what it gives back of amount under the terms
// of the moment (the theatre's policy, or booking.MovedPolicy for a
// booking whose show the theatre moved), or why it may not be cancelled.
type cancellation struct {
	by     string
	reason string
	refund func(amount int64, t booking.CancellationTerms) (int64, error)
}

// cancelBooking cancels confirmed booking b in tx: its seats back on sale,
// its refund owed (and queued when there is money to pay back), its
// customer's mail queued. Lock order: the booking's seats, sorted, then
// the booking. done is false when a parallel cancel won: nothing changed.
func (s *Store) cancelBooking(ctx context.Context, tx pgx.Tx, b booking.Booking, c cancellation) (refund int64, done bool, err error) {
	if err := lockSeats(ctx, tx, b.ShowID, b.Seats); err != nil {
		return 0, false, err
	}
	// Whether the show moved under it is read under the seats' locks,
	// which a move takes too: decided by the move that committed.
	var (
		status booking.BookingStatus
		moved  bool
	)
	if err := tx.QueryRow(ctx, `
		SELECT status, EXISTS (SELECT 1 FROM booking_moves WHERE booking_id = b.id)
		  FROM bookings b WHERE id = $1 FOR NO KEY UPDATE`, b.ID).Scan(&status, &moved); err != nil {
		return 0, false, fmt.Errorf("lock booking: %w", err)
	}
	if status == booking.BookingCancelled {
		return 0, false, nil
	}
	terms, err := s.cancellationTerms(ctx, tx, b.ShowID)
	if err != nil {
		return 0, false, err
	}
	if moved {
		terms = terms.ForMovedBooking()
	}
	if refund, err = c.refund(b.AmountMinor, terms); err != nil {
		return 0, false, err
	}
	var refundID *string // nil when nothing is owed back
	if err := tx.QueryRow(ctx, `
		WITH released AS (
			UPDATE show_seats SET status = 'AVAILABLE', hold_id = NULL
			 WHERE show_id = $2 AND seat_id = ANY ($3) AND hold_id = $4 AND status = 'BOOKED'
		),
		refund AS (
			INSERT INTO refunds (payment_id, booking_id, amount_minor, currency, reason, status, created_at, updated_at)
			VALUES ($5, $1, $6::bigint, $7, $9, CASE WHEN $6::bigint = 0 THEN 'SUCCEEDED' ELSE 'PENDING' END, $8, $8)
			RETURNING id, status
		),
		cancelled AS (
			UPDATE bookings SET status = 'CANCELLED', cancelled_at = $8, cancelled_by = $10 WHERE id = $1
		)
		SELECT id::text FROM refund WHERE status = 'PENDING'
		UNION ALL SELECT NULL WHERE NOT EXISTS (SELECT 1 FROM refund WHERE status = 'PENDING')`,
		b.ID, b.ShowID, b.Seats, b.HoldID, b.PaymentID, refund, b.Currency, terms.Now, c.reason, c.by).Scan(&refundID); err != nil {
		return 0, false, fmt.Errorf("cancel booking: %w", err)
	}
	if refundID != nil {
		if err := s.queueRefunds(ctx, tx, *refundID); err != nil {
			return 0, false, err
		}
	}
	return refund, true, s.queueMails(ctx, tx, mailToOwner, string(mail.BookingCancelled), b.ID, terms.Now)
}
