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

// counterHoldTTL is how long a counter sale's hold lives: it is booked in
// the next transaction, so only a crash between the two leaves it, and the
// sweeper ends it soon.
const counterHoldTTL = time.Minute

// SellAtCounter sells seats at the box office. The seats are held by the
// seller on the moviegoers' own path (hold_seats: the same checks, lock
// order and key), then booked at once with the counter's payment, so the
// counter and the web never sell one seat twice. A retry with the same key
// returns the same booking. The ticket is mailed to the customer's
// address, if given.
func (s *Store) SellAtCounter(ctx context.Context, sale booking.CounterSale, maxSeats int) (booking.Booking, error) {
	res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: sale.Seller, ShowID: sale.ShowID, Seats: sale.Seats,
		TTL: counterHoldTTL, Key: sale.Key}, maxSeats)
	if err != nil {
		return booking.Booking{}, err
	}
	h := res.Hold
	var bookingID string
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		now, err := s.lockHold(ctx, tx, &h)
		if err != nil {
			return err
		}
		if h.State == booking.HoldConfirmed { // this key's sale, made before
			return tx.QueryRow(ctx, `SELECT id::text FROM bookings WHERE hold_id = $1`, h.ID).Scan(&bookingID)
		}
		if h.State != booking.HoldHeld || !now.Before(h.LetsGoAt()) {
			return fmt.Errorf("counter hold %s is %s: %w", h.ID, h.State, booking.ErrSaleLapsed)
		}
		amount := h.AmountMinor
		channel := booking.BoxOffice
		if sale.PaidBy == booking.PaidComplimentary {
			amount, channel = 0, booking.Complimentary
		}
		payment := booking.CounterPaymentPrefix + rand.Text()
		tag, err := tx.Exec(ctx, `
			UPDATE show_seats SET status = 'BOOKED', hold_expires_at = NULL
			 WHERE show_id = $1 AND seat_id = ANY ($2) AND hold_id = $3 AND status = 'HELD'`, h.ShowID, h.Seats, h.ID)
		if err != nil {
			return fmt.Errorf("book seats: %w", err)
		}
		if tag.RowsAffected() != int64(len(h.Seats)) {
			return fmt.Errorf("book hold %s: owns %d of its %d seats", h.ID, tag.RowsAffected(), len(h.Seats))
		}
		if err := tx.QueryRow(ctx, `
			WITH confirmed AS (
				UPDATE holds SET state = 'CONFIRMED', ended_at = $7 WHERE id = $1
			)
			INSERT INTO bookings (hold_id, user_id, show_id, seat_ids, amount_minor, currency, payment_id, code, status, created_at,
			                      channel, paid_by, customer_name, customer_email, sale_reason)
			VALUES ($1, $2, $3, $4, $5, $6, $8, $9, 'CONFIRMED', $7, $10, $11, $12, nullif($13, ''), nullif($14, ''))
			RETURNING id::text`,
			h.ID, h.UserID, h.ShowID, h.Seats, amount, h.Currency, now, payment, ticketCode(),
			channel, sale.PaidBy, sale.Name, sale.Email, sale.Reason).Scan(&bookingID); err != nil {
			return fmt.Errorf("create counter booking: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, booking_id, received_at)
			VALUES ($1, $2, $3, $4, $5, $6, 'BOOKED', $7, $8)`,
			payment, h.ID, h.ID, h.UserID, amount, h.Currency, bookingID, now); err != nil {
			return fmt.Errorf("record counter payment: %w", err)
		}
		if sale.Email == "" {
			return nil
		}
		return s.queueMails(ctx, tx, mailToOwner, string(mail.Ticket), bookingID, now)
	})
	if err != nil {
		// The seats go back on sale at once, not when the hold lapses, and
		// the seller may sell again.
		if _, cerr := s.CancelHold(context.WithoutCancel(ctx), sale.Seller, h.ID); cerr != nil && !errors.Is(cerr, booking.ErrHoldConfirmed) {
			err = errors.Join(err, fmt.Errorf("release counter hold %s: %w", h.ID, cerr))
		}
		return booking.Booking{}, fmt.Errorf("sell %v of show %d at the counter: %w", sale.Seats, sale.ShowID, err)
	}
	b, err := s.StaffBooking(ctx, bookingID)
	return b.Booking, err
}
