package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/mail"
)

// Customer service: what a theatre's staff do with one booking — find it,
// refund it, record a counter refund handed back, move it to another show.

// staffBookingColumns and staffBookingFrom read a StaffBooking.
const (
	staffBookingColumns = bookingColumns + `, t.id, t.name, t.timezone, mv.id, mv.title, sc.name, sh.starts_at,
		coalesce(b.customer_name, u.name), coalesce(b.customer_email, CASE WHEN b.channel = 'online' THEN u.email ELSE '' END)`
	staffBookingFrom = bookingFrom + `
		JOIN shows sh ON sh.id = b.show_id JOIN screens sc ON sc.id = sh.screen_id
		JOIN theatres t ON t.id = sc.theatre_id JOIN movies mv ON mv.id = sh.movie_id
		JOIN users u ON u.id = b.user_id`
)

func scanStaffBooking(row pgx.Row) (StaffBooking, error) {
	var sb StaffBooking
	b, err := scanBookingWith(row, &sb.TheatreID, &sb.TheatreName, &sb.TimeZone, &sb.MovieID, &sb.MovieTitle, &sb.ScreenName,
		&sb.StartsAt, &sb.CustomerName, &sb.CustomerEmail)
	sb.Booking = b
	return sb, err
}

// SearchBookings returns up to limit bookings of theatres (nil: every
// theatre) whose ticket code or id is q, or whose customer's e-mail is q,
// or whose customer's name contains q (any case): the shows nearest now
// first, so tonight's customer at the counter is at the top.
func (s *Store) SearchBookings(ctx context.Context, theatres []int64, q string, limit int) ([]StaffBooking, error) {
	q = strings.TrimSpace(q)
	like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(q) + "%"
	rows, err := s.pool.Query(ctx, `
		SELECT `+staffBookingColumns+`
		  FROM `+staffBookingFrom+`
		 WHERE ($1::bigint[] IS NULL OR t.id = ANY ($1))
		   AND (b.code = upper($2) OR b.id::text = lower($2)
		        OR lower(coalesce(b.customer_email, CASE WHEN b.channel = 'online' THEN u.email END)) = lower($2)
		        OR coalesce(b.customer_name, u.name) ILIKE $3)
		 ORDER BY abs(extract(epoch FROM sh.starts_at - coalesce($5::timestamptz, clock_timestamp()))), b.created_at DESC, b.id
		 LIMIT $4`, theatres, q, like, limit, s.now())
	if err != nil {
		return nil, fmt.Errorf("search bookings for %q: %w", q, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (StaffBooking, error) { return scanStaffBooking(r) })
	if err != nil {
		return nil, fmt.Errorf("search bookings for %q: %w", q, err)
	}
	return list, nil
}

// RefundBooking cancels booking bookingID as its theatre's doing and
// refunds it: in full, or what its policy gives back now (nothing once its
// last deadline has passed; everything, until the show starts, for a
// booking whose show the theatre moved). Its seats go back on sale, and its
// customer is told by mail. A booking cancelled before is returned as it
// is: a retry changes nothing. A refund of a counter sale is never sent to
// a provider: it is owed at the counter (SettleCounterRefund).
func (s *Store) RefundBooking(ctx context.Context, bookingID string, r booking.StaffRefund, e audit.Entry) (StaffBooking, error) {
	b, err := s.StaffBooking(ctx, bookingID)
	if err != nil || b.Status == booking.BookingCancelled {
		return b, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		refund, done, err := s.cancelBooking(ctx, tx, b.Booking, cancellation{by: booking.CancelledByTheatre, reason: "refunded_by_theatre",
			refund: func(amount int64, t booking.CancellationTerms) (int64, error) {
				if r.Full {
					return amount, nil
				}
				refund, _ := t.Policy.RefundAt(amount, t.StartsAt, t.Now) // nothing once closed
				return refund, nil
			}})
		if err != nil || !done {
			return err
		}
		e.Before = map[string]any{"status": b.Status, "amount_minor": b.AmountMinor}
		e.After = map[string]any{"status": booking.BookingCancelled, "refund_minor": refund, "full": r.Full, "reason": r.Reason}
		return s.insertAudit(ctx, tx, e)
	})
	if err != nil {
		return b, fmt.Errorf("refund booking %s: %w", bookingID, err)
	}
	return s.StaffBooking(ctx, bookingID)
}

// SettleCounterRefund records that the refund of counter-sold booking
// bookingID was handed back at the counter. Again, it changes nothing.
func (s *Store) SettleCounterRefund(ctx context.Context, bookingID string, e audit.Entry) (StaffBooking, error) {
	b, err := s.StaffBooking(ctx, bookingID)
	if err != nil {
		return b, err
	}
	if b.Refund != nil && b.Refund.Status == booking.RefundSucceeded {
		return b, nil
	}
	if b.Refund == nil || !booking.CounterPayment(b.PaymentID) {
		return b, fmt.Errorf("settle the refund of booking %s: %w", bookingID, booking.ErrNoCounterRefund)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			UPDATE refunds SET status = 'SUCCEEDED', updated_at = coalesce($2::timestamptz, clock_timestamp())
			 WHERE id = $1 AND status <> 'SUCCEEDED'`, b.Refund.ID, s.now())
		if err != nil {
			return fmt.Errorf("settle refund %s: %w", b.Refund.ID, err)
		}
		if tag.RowsAffected() == 0 {
			return nil // settled by a parallel call
		}
		e.Before = map[string]any{"refund": b.Refund.ID, "status": b.Refund.Status}
		e.After = map[string]any{"refund": b.Refund.ID, "status": booking.RefundSucceeded, "amount_minor": b.Refund.AmountMinor}
		return s.insertAudit(ctx, tx, e)
	})
	if err != nil {
		return b, err
	}
	return s.StaffBooking(ctx, bookingID)
}

// MoveBooking moves confirmed booking bookingID to seats of show to, another
// show of the same movie in the same theatre, at the same price: its seats
// on its show go back on sale, the new ones are booked by its hold, which
// moves with it, and the customer is sent the ticket again (its signed
// code names the show). A booking already
// admitted at the door stays where it is. seats are normalized
// (booking.HoldRequest.Normalize).
func (s *Store) MoveBooking(ctx context.Context, bookingID string, to int64, seats []string, e audit.Entry) (StaffBooking, error) {
	b, err := s.StaffBooking(ctx, bookingID)
	if err != nil {
		return b, err
	}
	if b.Status != booking.BookingConfirmed {
		return b, fmt.Errorf("move booking %s: %w", bookingID, booking.ErrNoTicket)
	}
	if to == b.ShowID {
		return b, fmt.Errorf("move booking %s: %w", bookingID, booking.ErrSameShow)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// Lock order: every seat of both shows by (show_id, seat_id), then
		// the hold, then the booking.
		rows, err := tx.Query(ctx, `
			SELECT show_id, seat_id, status FROM show_seats
			 WHERE (show_id = $1 AND seat_id = ANY ($2)) OR (show_id = $3 AND seat_id = ANY ($4))
			 ORDER BY show_id, seat_id FOR UPDATE`, b.ShowID, b.Seats, to, seats)
		if err != nil {
			return fmt.Errorf("lock seats: %w", err)
		}
		status := map[string]string{} // the new seats'
		var (
			show     int64
			seat, st string
		)
		if _, err := pgx.ForEachRow(rows, []any{&show, &seat, &st}, func() error {
			if show == to {
				status[seat] = st
			}
			return nil
		}); err != nil {
			return fmt.Errorf("lock seats: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM holds WHERE id = $1 FOR NO KEY UPDATE`, b.HoldID); err != nil {
			return fmt.Errorf("lock hold: %w", err)
		}
		var (
			cur       booking.BookingStatus
			showNow   int64
			admitted  bool
			now       time.Time
			sameMovie bool
			sameTheat bool
			open      bool
			amount    int64
			currency  string
		)
		if err := tx.QueryRow(ctx, `
			SELECT b.status, b.show_id, EXISTS (SELECT 1 FROM checkins c WHERE c.booking_id = b.id),
			       coalesce($2::timestamptz, clock_timestamp())
			  FROM bookings b WHERE b.id = $1 FOR NO KEY UPDATE`, b.ID, s.now()).Scan(&cur, &showNow, &admitted, &now); err != nil {
			return fmt.Errorf("lock booking: %w", err)
		}
		if cur != booking.BookingConfirmed || showNow != b.ShowID {
			return booking.ErrBookingChanged
		}
		if admitted {
			return booking.ErrAdmitted
		}
		err = tx.QueryRow(ctx, `
			SELECT n.movie_id = o.movie_id, nsc.theatre_id = osc.theatre_id, n.status = 'SCHEDULED' AND n.starts_at > $3
			  FROM shows n JOIN screens nsc ON nsc.id = n.screen_id, shows o JOIN screens osc ON osc.id = o.screen_id
			 WHERE n.id = $1 AND o.id = $2`, to, b.ShowID, now).Scan(&sameMovie, &sameTheat, &open)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("show %d: %w", to, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read show %d: %w", to, err)
		}
		switch {
		case !sameTheat:
			return fmt.Errorf("show %d: %w", to, booking.ErrNotFound)
		case !sameMovie:
			return booking.ErrOtherMovie
		case !open:
			return booking.ErrShowClosed
		}
		var missing, taken []string
		for _, id := range seats {
			switch st, ok := status[id]; {
			case !ok:
				missing = append(missing, id)
			case st != "AVAILABLE":
				taken = append(taken, id)
			}
		}
		if len(missing) > 0 {
			return &booking.UnknownSeatsError{Seats: missing}
		}
		if len(taken) > 0 {
			return &booking.SeatsUnavailableError{Seats: taken}
		}
		// The price after the seat locks, as hold_seats reads it.
		if err := tx.QueryRow(ctx, `SELECT hold_amount($1, $2), currency FROM shows WHERE id = $1`, to, seats).Scan(&amount, &currency); err != nil {
			return fmt.Errorf("price seats of show %d: %w", to, err)
		}
		if amount != b.AmountMinor || currency != b.Currency {
			return &booking.PriceDiffersError{Paid: b.AmountMinor, Asked: amount, Currency: currency}
		}
		// The booking keeps its hold, which moves with it: the payment,
		// which never changes, names that hold.
		if _, err := tx.Exec(ctx, `
			WITH released AS (
				UPDATE show_seats SET status = 'AVAILABLE', hold_id = NULL
				 WHERE show_id = $1 AND seat_id = ANY ($2) AND hold_id = $3 AND status = 'BOOKED'
			),
			booked AS (
				UPDATE show_seats SET status = 'BOOKED', hold_id = $3, hold_expires_at = NULL
				 WHERE show_id = $4 AND seat_id = ANY ($5)
			),
			moved AS (
				UPDATE holds SET show_id = $4, seat_ids = $5 WHERE id = $3
			)
			UPDATE bookings SET show_id = $4, seat_ids = $5 WHERE id = $6`,
			b.ShowID, b.Seats, b.HoldID, to, seats, b.ID); err != nil {
			return fmt.Errorf("move booking: %w", err)
		}
		if err := announceShows(ctx, tx, b.ShowID, to); err != nil {
			return err
		}
		if err := s.queueMails(ctx, tx, mailTicketAgain, b.ID, e.ActorID, now, string(mail.BookingMoved)); err != nil {
			return err
		}
		e.Before = map[string]any{"show_id": b.ShowID, "seats": b.Seats}
		e.After = map[string]any{"show_id": to, "seats": seats}
		return s.insertAudit(ctx, tx, e)
	})
	if err != nil {
		return b, fmt.Errorf("move booking %s to show %d: %w", bookingID, to, err)
	}
	return s.StaffBooking(ctx, bookingID)
}
