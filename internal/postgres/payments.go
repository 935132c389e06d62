package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/mail"
)

// ConfirmPayment turns a verified successful payment into its one stored
// outcome. The first valid payment for a still-HELD hold books its seats if
// it came in time: before the hold's deadline, or, during the hold's
// payment grace, captured by the provider before the deadline (see
// booking.Hold.PaidInTime). A payment that came too late for a hold in its
// grace is refunded and leaves the hold as it is; a payment for an expired
// or cancelled hold, a second distinct payment for a
// confirmed one, or one for an unknown hold books nothing and records a
// refund obligation. A payment whose amount or currency differs from its hold
// is recorded the same way and reported as *booking.AmountMismatchError.
//
// The payment id is the idempotency key: the same payment again returns the
// stored outcome; the same id with another hold, amount or currency is
// refused with booking.ErrPaymentConflict, and that check comes first.
func (s *Store) ConfirmPayment(ctx context.Context, p booking.Payment) (booking.Confirmation, error) {
	for attempt := 0; ; attempt++ {
		c, err := s.confirmOnce(ctx, p)
		// Two deliveries of one new payment id raced and the other recorded
		// it first: the next attempt returns what it stored.
		if code, constraint := pgCode(err); code == codeUniqueViolation && constraint == "payments_pkey" && attempt < 2 {
			continue
		}
		return c, err
	}
}

func (s *Store) confirmOnce(ctx context.Context, p booking.Payment) (booking.Confirmation, error) {
	var c booking.Confirmation
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		var stored bool
		if c, stored, err = storedConfirmation(ctx, tx, p); stored || err != nil {
			return err
		}

		var h booking.Hold
		found := validID(p.HoldRef)
		if found {
			h, err = scanHold(tx.QueryRow(ctx, `SELECT `+holdColumns+` FROM holds WHERE id = $1`, p.HoldRef))
			if errors.Is(err, pgx.ErrNoRows) {
				found = false
			} else if err != nil {
				return fmt.Errorf("read hold: %w", err)
			}
		}
		c = booking.Confirmation{PaymentID: p.ID, HoldID: p.HoldRef, Outcome: booking.OutcomeRefundRequired}
		switch c.Reason = p.Mismatch(h, found); c.Reason {
		case booking.ReasonUnknownHold:
			return s.recordRefund(ctx, tx, p, nil, c)
		case booking.ReasonAmountMismatch:
			return s.recordRefund(ctx, tx, p, &h, c)
		}

		now, err := s.lockHold(ctx, tx, &h)
		if err != nil {
			return err
		}
		// A parallel delivery of this payment may have committed while we waited.
		if c, stored, err = storedConfirmation(ctx, tx, p); stored || err != nil {
			return err
		}
		c = booking.Confirmation{PaymentID: p.ID, HoldID: h.ID, Outcome: booking.OutcomeRefundRequired}

		st := booking.Settle(h, true, p, now)
		if st.Book {
			return s.book(ctx, tx, p, h, now, &c)
		}
		if st.EndLapsed {
			ended, err := endHoldOn(ctx, tx, h.ID, nil, false, now)
			if err != nil {
				return err
			}
			if ended.State != booking.HoldExpired {
				return fmt.Errorf("end lapsed hold %s: state %s, want %s", h.ID, ended.State, booking.HoldExpired)
			}
		}
		c.Reason = st.Reason
		return s.recordRefund(ctx, tx, p, &h, c)
	})
	if err == nil && c.Reason == booking.ReasonAmountMismatch {
		// Recorded and committed above; reported to the provider as an error.
		return c, &booking.AmountMismatchError{Confirmation: c}
	}
	return c, err
}

// storedConfirmation returns the outcome stored for p's payment id, if any.
func storedConfirmation(ctx context.Context, tx pgx.Tx, p booking.Payment) (booking.Confirmation, bool, error) {
	var (
		c                 booking.Confirmation
		holdRef, currency string
		amount            int64
		reason, bookingID *string
	)
	err := tx.QueryRow(ctx, `
		SELECT hold_ref, amount_minor, currency, outcome, reason, booking_id::text
		  FROM payments WHERE payment_id = $1`, p.ID,
	).Scan(&holdRef, &amount, &currency, &c.Outcome, &reason, &bookingID)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("read payment %s: %w", p.ID, err)
	}
	if holdRef != p.HoldRef || amount != p.AmountMinor || currency != p.Currency {
		return c, true, booking.ErrPaymentConflict
	}
	c.PaymentID, c.HoldID = p.ID, holdRef
	if reason != nil {
		c.Reason = *reason
	}
	if bookingID != nil {
		c.BookingID = *bookingID
	}
	return c, true, nil
}

// book confirms HELD hold h with payment p: its seats become BOOKED, the
// booking is created with the payment as evidence.
func (s *Store) book(ctx context.Context, tx pgx.Tx, p booking.Payment, h booking.Hold, now time.Time, c *booking.Confirmation) error {
	tag, err := tx.Exec(ctx, `
		UPDATE show_seats SET status = 'BOOKED', hold_expires_at = NULL
		 WHERE show_id = $1 AND seat_id = ANY ($2) AND hold_id = $3 AND status = 'HELD'`,
		h.ShowID, h.Seats, h.ID)
	if err != nil {
		return fmt.Errorf("book seats: %w", err)
	}
	if tag.RowsAffected() != int64(len(h.Seats)) {
		// A live hold owns all its seats (I5); anything else is a broken invariant.
		return fmt.Errorf("book hold %s: owns %d of its %d seats", h.ID, tag.RowsAffected(), len(h.Seats))
	}
	if err := tx.QueryRow(ctx, `
		WITH confirmed AS (
			UPDATE holds SET state = 'CONFIRMED', ended_at = $7 WHERE id = $1
		)
		INSERT INTO bookings (hold_id, user_id, show_id, seat_ids, amount_minor, currency, payment_id, code, status, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $8, $9, 'CONFIRMED', $7)
		RETURNING id::text`,
		h.ID, h.UserID, h.ShowID, h.Seats, h.AmountMinor, h.Currency, now, p.ID, ticketCode(),
	).Scan(&c.BookingID); err != nil {
		return fmt.Errorf("create booking: %w", err)
	}
	c.Outcome, c.Reason = booking.OutcomeBooked, ""
	if _, err := tx.Exec(ctx, `
		INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, booking_id, received_at)
		VALUES ($1, $2, $3, $4, $5, $6, 'BOOKED', $7, $8)`,
		p.ID, p.HoldRef, h.ID, h.UserID, p.AmountMinor, p.Currency, c.BookingID, now); err != nil {
		return fmt.Errorf("record payment: %w", err)
	}
	return s.queueMails(ctx, tx, mailToOwner, string(mail.Ticket), c.BookingID, now)
}

// recordRefund stores payment p as REFUND_REQUIRED with its refund obligation
// for the full amount. h is nil for an unknown hold.
func (s *Store) recordRefund(ctx context.Context, tx pgx.Tx, p booking.Payment, h *booking.Hold, c booking.Confirmation) error {
	var holdID, userID *string
	if h != nil {
		holdID, userID = &h.ID, &h.UserID
	}
	var refundID string
	err := tx.QueryRow(ctx, `
		WITH now AS (SELECT coalesce($8::timestamptz, clock_timestamp()) AS t),
		payment AS (
			INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, reason, received_at)
			SELECT $1, $2, $3, $4, $5, $6, 'REFUND_REQUIRED', $7, t FROM now
			RETURNING payment_id
		)
		INSERT INTO refunds (payment_id, amount_minor, currency, reason, created_at, updated_at)
		SELECT payment_id, $5, $6, $7, t, t FROM payment, now
		RETURNING id::text`,
		p.ID, p.HoldRef, holdID, userID, p.AmountMinor, p.Currency, c.Reason, s.now()).Scan(&refundID)
	if err != nil {
		return fmt.Errorf("record refund for payment %s: %w", p.ID, err)
	}
	if err := s.queueRefunds(ctx, tx, refundID); err != nil {
		return err
	}
	if userID == nil {
		return nil // nobody to tell: the refund pays the card back
	}
	return s.queueMails(ctx, tx, `
		INSERT INTO mails (kind, recipient, user_id, show_id, refund_id, payment_id, once_key, created_at)
		SELECT 'payment_refunded', u.email, u.id, h.show_id, $2, $1, 'payment_refunded:' || $1, coalesce($4::timestamptz, clock_timestamp())
		  FROM users u LEFT JOIN holds h ON h.id = $3
		 WHERE u.id = $5
		ON CONFLICT (once_key) DO NOTHING
		RETURNING id`, p.ID, refundID, holdID, s.now(), userID)
}

// ticketCode returns a random ticket code: 12 characters of an alphabet
// without look-alikes, about 60 bits.
func ticketCode() string {
	const alphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	b := make([]byte, 12)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// PaymentsForHold returns the payments recorded for userID's hold holdID,
// the one that booked it first, then the others newest first, each with its
// refund if money is owed back. No payment yet is an empty list; another
// user's hold, or a hold id that names nothing, has none either.
func (s *Store) PaymentsForHold(ctx context.Context, userID, holdID string) ([]booking.HoldPayment, error) {
	if !validID(holdID) || !validID(userID) {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `
		SELECT p.payment_id, p.hold_ref, p.outcome, p.reason, p.booking_id::text, p.amount_minor, p.currency,
		       r.id::text, r.amount_minor, r.currency, r.reason, r.status, r.attempts
		  FROM payments p LEFT JOIN refunds r ON r.payment_id = p.payment_id
		 WHERE p.hold_id = $1 AND p.user_id = $2
		 ORDER BY p.outcome = 'BOOKED' DESC, p.received_at DESC, p.payment_id`, holdID, userID)
	if err != nil {
		return nil, fmt.Errorf("payments for hold %s: %w", holdID, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booking.HoldPayment, error) {
		var (
			p                 booking.HoldPayment
			reason, bookingID *string
			refundID          *string
			refund            booking.Refund
			rAmount           *int64
			rCurrency, rWhy   *string
			rStatus           *string
			rAttempts         *int
		)
		err := row.Scan(&p.PaymentID, &p.HoldID, &p.Outcome, &reason, &bookingID, &p.AmountMinor, &p.Currency,
			&refundID, &rAmount, &rCurrency, &rWhy, &rStatus, &rAttempts)
		if err != nil {
			return p, err
		}
		if reason != nil {
			p.Reason = *reason
		}
		if bookingID != nil {
			p.BookingID = *bookingID
		}
		if refundID != nil {
			refund = booking.Refund{
				ID: *refundID, PaymentID: p.PaymentID, AmountMinor: *rAmount, Currency: *rCurrency,
				Reason: *rWhy, Status: booking.RefundStatus(*rStatus), Attempts: *rAttempts,
			}
			p.Refund = &refund
		}
		return p, nil
	})
	if err != nil {
		return nil, fmt.Errorf("payments for hold %s: %w", holdID, err)
	}
	return list, nil
}

// RefundedPayments returns userID's payments that bought nothing, with their
// refunds, newest first.
func (s *Store) RefundedPayments(ctx context.Context, userID string) ([]booking.RefundedPayment, error) {
	if !validID(userID) {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `
		SELECT p.payment_id, h.id::text, h.show_id, h.seat_ids, p.amount_minor, p.currency, p.reason, p.received_at,
		       r.id::text, r.amount_minor, r.currency, r.reason, r.status, r.attempts
		  FROM payments p
		  JOIN holds h ON h.id = p.hold_id
		  JOIN refunds r ON r.payment_id = p.payment_id
		 WHERE p.user_id = $1 AND p.outcome = 'REFUND_REQUIRED'
		 ORDER BY p.received_at DESC, p.payment_id`, userID)
	if err != nil {
		return nil, fmt.Errorf("refunded payments of user %s: %w", userID, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booking.RefundedPayment, error) {
		var p booking.RefundedPayment
		err := row.Scan(&p.PaymentID, &p.HoldID, &p.ShowID, &p.Seats, &p.AmountMinor, &p.Currency, &p.Reason, &p.ReceivedAt,
			&p.Refund.ID, &p.Refund.AmountMinor, &p.Refund.Currency, &p.Refund.Reason, &p.Refund.Status, &p.Refund.Attempts)
		p.Refund.PaymentID = p.PaymentID
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("refunded payments of user %s: %w", userID, err)
	}
	return list, nil
}

// lockHold takes h's locks in the global order, the hold's seats (sorted)
// and then the hold's row, and reads again under them what may have changed
// since h was read: its state and its payment grace. It returns the store's
// time, by which whoever holds the locks decides.
func (s *Store) lockHold(ctx context.Context, tx pgx.Tx, h *booking.Hold) (now time.Time, err error) {
	if err := lockSeats(ctx, tx, h.ShowID, h.Seats); err != nil {
		return time.Time{}, err
	}
	if err := tx.QueryRow(ctx, `
		SELECT state, payment_grace, coalesce($2::timestamptz, clock_timestamp())
		  FROM holds WHERE id = $1 FOR NO KEY UPDATE`, h.ID, s.now()).Scan(&h.State, &h.PaymentGrace, &now); err != nil {
		return time.Time{}, fmt.Errorf("lock hold %s: %w", h.ID, err)
	}
	return now, nil
}
