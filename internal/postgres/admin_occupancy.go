package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// ShowOccupancy returns showID's occupancy, or booking.ErrNotFound.
func (s *Store) ShowOccupancy(ctx context.Context, showID int64) (booking.Occupancy, error) {
	o := booking.Occupancy{ShowID: showID}
	// Refunds are found through the holds of the show: a payment that bought
	// nothing (late, twice) has no booking, only its hold.
	err := s.pool.QueryRow(ctx, `
		WITH now AS (SELECT coalesce($2::timestamptz, clock_timestamp()) AS t)
		SELECT sh.status, sh.starts_at, m.title, sh.currency,
		       (SELECT count(*) FROM show_seats ss WHERE ss.show_id = sh.id
		           AND (ss.status = 'AVAILABLE' OR (ss.status = 'HELD' AND ss.hold_expires_at <= now.t))),
		       (SELECT count(*) FROM show_seats ss WHERE ss.show_id = sh.id
		           AND ss.status = 'HELD' AND ss.hold_expires_at > now.t),
		       (SELECT count(*) FROM show_seats ss WHERE ss.show_id = sh.id AND ss.status = 'BOOKED'),
		       (SELECT count(*) FROM show_seats ss WHERE ss.show_id = sh.id AND ss.status = 'BLOCKED'),
		       (SELECT coalesce(sum(b.amount_minor), 0) FROM bookings b
		         WHERE b.show_id = sh.id AND b.status = 'CONFIRMED'),
		       coalesce(r.owed, 0), coalesce(r.paid, 0)
		  FROM shows sh
		  CROSS JOIN now
		  JOIN movies m ON m.id = sh.movie_id
		  LEFT JOIN LATERAL (
		       SELECT sum(rf.amount_minor) FILTER (WHERE rf.status IN ('PENDING', 'FAILED')) AS owed,
		              sum(rf.amount_minor) FILTER (WHERE rf.status = 'SUCCEEDED') AS paid
		         FROM holds h
		         JOIN payments p ON p.hold_id = h.id
		         JOIN refunds rf ON rf.payment_id = p.payment_id
		        WHERE h.show_id = sh.id) r ON true
		 WHERE sh.id = $1`, showID, s.now()).Scan(
		&o.Status, &o.StartsAt, &o.MovieTitle, &o.Currency,
		&o.Seats.Available, &o.Seats.Held, &o.Seats.Booked, &o.Seats.Blocked,
		numeric(&o.Revenue), numeric(&o.RefundsOwed), numeric(&o.RefundsPaid))
	if errors.Is(err, pgx.ErrNoRows) {
		return o, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	if err != nil {
		return o, fmt.Errorf("occupancy of show %d: %w", showID, err)
	}
	return o, nil
}

// seatState is one seat of a show as a block or an unblock finds it under
// its lock.
type seatState struct {
	ID     string
	Status booking.SeatStatus
	Lapsed bool // HELD by a hold past its deadline
}

// lockSeatStates locks seats of showID in the global order and returns their
// states. The show must exist and not be cancelled, judged after the locks
// (a cancellation holds every seat of the show until it commits), and have
// every one of seats.
func (s *Store) lockSeatStates(ctx context.Context, tx pgx.Tx, showID int64, seats []string) (map[string]seatState, error) {
	rows, err := tx.Query(ctx, `
		SELECT seat_id, status, status = 'HELD' AND hold_expires_at <= coalesce($3::timestamptz, clock_timestamp())
		  FROM show_seats WHERE show_id = $1 AND seat_id = ANY ($2)
		 ORDER BY seat_id FOR UPDATE`, showID, seats, s.now())
	if err != nil {
		return nil, fmt.Errorf("lock seats of show %d: %w", showID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (seatState, error) {
		var st seatState
		err := r.Scan(&st.ID, &st.Status, &st.Lapsed)
		return st, err
	})
	if err != nil {
		return nil, fmt.Errorf("lock seats of show %d: %w", showID, err)
	}
	found := make(map[string]seatState, len(list))
	for _, st := range list {
		found[st.ID] = st
	}
	var status string
	err = tx.QueryRow(ctx, `SELECT status FROM shows WHERE id = $1`, showID).Scan(&status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read show %d: %w", showID, err)
	}
	if status == "CANCELLED" {
		return nil, fmt.Errorf("show %d: %w", showID, catalog.ErrShowCancelled)
	}
	if missing := missingSeats(seats, found); len(missing) > 0 {
		return nil, &booking.UnknownSeatsError{Seats: missing}
	}
	return found, nil
}

// missingSeats are the seats of want (sorted) that found lacks.
func missingSeats(want []string, found map[string]seatState) []string {
	var missing []string
	for _, id := range want {
		if _, ok := found[id]; !ok {
			missing = append(missing, id)
		}
	}
	return missing
}

// BlockSeats takes seats (distinct) of showID off sale: each becomes
// BLOCKED, with no owner. A seat must be AVAILABLE, already BLOCKED, or held
// by a hold past its deadline, whose claim on it ends here (that hold keeps
// its state until the sweeper or its own late payment ends it, and its
// release, conditional on owning the seat, no longer touches it: as when
// another hold takes such a seat over). A seat held by a live hold, or sold,
// refuses the whole block (*booking.SeatsUnavailableError naming them);
// seats the show lacks, *booking.UnknownSeatsError; a cancelled show,
// catalog.ErrShowCancelled. Nothing is changed then. It returns the seats
// this call blocked (not those blocked already), sorted; e is the audit entry, to
// which it adds each seat's state before and after.
func (s *Store) BlockSeats(ctx context.Context, showID int64, seats []string, e audit.Entry) ([]string, error) {
	sorted := slices.Sorted(slices.Values(seats))
	var changed []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		found, err := s.lockSeatStates(ctx, tx, showID, sorted)
		if err != nil {
			return err
		}
		var taken []string
		before := map[string]booking.SeatStatus{}
		for _, id := range sorted {
			st := found[id]
			switch {
			case st.Status == booking.SeatBlocked:
			case st.Status == booking.SeatAvailable, st.Status == booking.SeatHeld && st.Lapsed:
				changed = append(changed, id)
				before[id] = st.Status
			default:
				taken = append(taken, id)
			}
		}
		if len(taken) > 0 {
			return &booking.SeatsUnavailableError{Seats: taken}
		}
		if len(changed) == 0 {
			return nil // blocked already: nothing changes, nothing to audit
		}
		// The trigger of 000002 records the seat event for the live seat map.
		if _, err := tx.Exec(ctx, `
			UPDATE show_seats SET status = 'BLOCKED', hold_id = NULL, hold_expires_at = NULL
			 WHERE show_id = $1 AND seat_id = ANY ($2)`, showID, changed); err != nil {
			return fmt.Errorf("block seats: %w", err)
		}
		e.Before, e.After = before, seatsIn(changed, booking.SeatBlocked)
		return s.insertAudit(ctx, tx, e)
	})
	if err != nil {
		return nil, fmt.Errorf("block seats of show %d: %w", showID, err)
	}
	return changed, nil
}

// UnblockSeats puts BLOCKED seats (distinct) of showID back on sale,
// AVAILABLE. A seat that is not BLOCKED is left as it is: unblocking it
// again changes nothing, and a seat sold or held since is its owner's.
// Seats the show lacks are *booking.UnknownSeatsError; a cancelled show,
// catalog.ErrShowCancelled. It returns the seats this call unblocked,
// sorted; e is
// the audit entry, to which it adds their states.
func (s *Store) UnblockSeats(ctx context.Context, showID int64, seats []string, e audit.Entry) ([]string, error) {
	sorted := slices.Sorted(slices.Values(seats))
	var changed []string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		found, err := s.lockSeatStates(ctx, tx, showID, sorted)
		if err != nil {
			return err
		}
		for _, id := range sorted {
			if found[id].Status == booking.SeatBlocked {
				changed = append(changed, id)
			}
		}
		if len(changed) == 0 {
			return nil
		}
		if _, err := tx.Exec(ctx, `
			UPDATE show_seats SET status = 'AVAILABLE'
			 WHERE show_id = $1 AND seat_id = ANY ($2) AND status = 'BLOCKED'`, showID, changed); err != nil {
			return fmt.Errorf("unblock seats: %w", err)
		}
		e.Before, e.After = seatsIn(changed, booking.SeatBlocked), seatsIn(changed, booking.SeatAvailable)
		return s.insertAudit(ctx, tx, e)
	})
	if err != nil {
		return nil, fmt.Errorf("unblock seats of show %d: %w", showID, err)
	}
	return changed, nil
}

// seatsIn maps each seat to status, for an audit entry.
func seatsIn(seats []string, status booking.SeatStatus) map[string]booking.SeatStatus {
	m := make(map[string]booking.SeatStatus, len(seats))
	for _, id := range seats {
		m[id] = status
	}
	return m
}

// CancelShow cancels showID, all or nothing: every hold still HELD ends (as
// CANCELLED, or EXPIRED once lapsed, through end_hold, which releases only
// the seats each still owns), every confirmed booking is cancelled by the
// theatre with a PENDING refund of all it paid (the refund worker pays it),
// the sold seats return to AVAILABLE (blocked ones stay BLOCKED), and the
// show is CANCELLED. A payment arriving later finds its hold CANCELLED and
// is refunded (ConfirmPayment). Cancelling it again changes nothing and
// returns what the first cancellation did. e is the audit entry; its After
// becomes the result.
//
// Lock order, the global one: every seat of the show by seat_id, then its
// HELD holds by id, then its confirmed bookings by id. Holding all the
// seats first is what shuts out a hold or payment racing the cancellation:
// each of them locks some of these seats before it decides, so it either
// finishes first (and its hold or booking is ended here) or waits and then
// finds the show cancelled (hold_seats re-checks it under its locks) or its
// hold ended.
func (s *Store) CancelShow(ctx context.Context, showID int64, e audit.Entry) (booking.ShowCancellation, error) {
	res := booking.ShowCancellation{ShowID: showID}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			SELECT 1 FROM show_seats WHERE show_id = $1 ORDER BY seat_id FOR UPDATE`, showID); err != nil {
			return fmt.Errorf("lock seats: %w", err)
		}
		var (
			status      string
			now         time.Time
			held, refnd *int
		)
		err := tx.QueryRow(ctx, `
			SELECT status, cancel_holds_released, cancel_bookings_refunded, coalesce($2::timestamptz, clock_timestamp())
			  FROM shows WHERE id = $1`, showID, s.now()).Scan(&status, &held, &refnd, &now)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read show: %w", err)
		}
		if status == "CANCELLED" {
			// Cancelled before, by a call that held these locks and has
			// committed: its answer.
			res.HoldsReleased, res.BookingsRefunded = deref(held), deref(refnd)
			return nil
		}
		if res.HoldsReleased, err = endShowHolds(ctx, tx, showID, now); err != nil {
			return err
		}
		if res.BookingsRefunded, err = s.refundShowBookings(ctx, tx, showID, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE shows SET status = 'CANCELLED', cancelled_at = $2,
			       cancel_holds_released = $3, cancel_bookings_refunded = $4
			 WHERE id = $1`, showID, now, res.HoldsReleased, res.BookingsRefunded); err != nil {
			return fmt.Errorf("cancel show: %w", err)
		}
		if err := announceShows(ctx, tx, showID); err != nil {
			return err
		}
		e.Before, e.After = map[string]string{"status": status}, map[string]any{
			"status": "CANCELLED", "holds_released": res.HoldsReleased, "bookings_refunded": res.BookingsRefunded,
		}
		return s.insertAudit(ctx, tx, e)
	})
	if err != nil {
		return res, fmt.Errorf("cancel show %d: %w", showID, err)
	}
	return res, nil
}

func deref(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// endShowHolds ends every HELD hold of showID, whose seats the caller has
// locked, and returns how many it ended. end_hold releases only the seats
// each hold still owns and records their seat events.
func endShowHolds(ctx context.Context, tx pgx.Tx, showID int64, now time.Time) (int, error) {
	var n int
	err := tx.QueryRow(ctx, `
		WITH held AS MATERIALIZED (
			SELECT id FROM holds WHERE show_id = $1 AND state = 'HELD' ORDER BY id FOR NO KEY UPDATE
		)
		SELECT count(*) FROM held, end_hold(held.id, NULL, true, $2) e
		 WHERE e.state IN ('CANCELLED', 'EXPIRED')`, showID, now).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("end holds of show %d: %w", showID, err)
	}
	return n, nil
}

// refundShowBookings cancels every confirmed booking of showID, whose seats
// the caller has locked, as the theatre's doing: its seats return to
// AVAILABLE (the trigger of 000002 announces them), it is refunded in full
// (a PENDING refund and its job) and whoever holds it is told: one mail to
// each address, however many bookings of the show it had. It returns how
// many bookings it cancelled.
func (s *Store) refundShowBookings(ctx context.Context, tx pgx.Tx, showID int64, now time.Time) (int, error) {
	var n int
	var refundIDs []string
	err := tx.QueryRow(ctx, `
		WITH confirmed AS MATERIALIZED (
			SELECT id, hold_id, payment_id, amount_minor, currency FROM bookings
			 WHERE show_id = $1 AND status = 'CONFIRMED' ORDER BY id FOR NO KEY UPDATE
		),
		released AS (
			UPDATE show_seats ss SET status = 'AVAILABLE', hold_id = NULL
			  FROM confirmed c
			 WHERE ss.show_id = $1 AND ss.hold_id = c.hold_id AND ss.status = 'BOOKED'
		),
		refunded AS (
			INSERT INTO refunds (payment_id, booking_id, amount_minor, currency, reason, status, created_at, updated_at)
			SELECT payment_id, id, amount_minor, currency, 'show_cancelled',
			       CASE WHEN amount_minor = 0 THEN 'SUCCEEDED' ELSE 'PENDING' END, $2, $2
			  FROM confirmed
			RETURNING id, status
		),
		cancelled AS (
			UPDATE bookings b SET status = 'CANCELLED', cancelled_at = $2, cancelled_by = 'theatre'
			  FROM confirmed c WHERE b.id = c.id
			RETURNING b.id
		)
		SELECT (SELECT count(*) FROM cancelled),
		       (SELECT coalesce(array_agg(id::text ORDER BY id), '{}') FROM refunded WHERE status = 'PENDING')`,
		showID, now).Scan(&n, &refundIDs)
	if err != nil {
		return 0, fmt.Errorf("refund bookings of show %d: %w", showID, err)
	}
	if err := s.queueRefunds(ctx, tx, refundIDs...); err != nil {
		return 0, err
	}
	return n, s.queueMails(ctx, tx, showCancelledMails, showID, now)
}

// showCancelledMails inserts the 'show_cancelled' mails of show $1, whose
// bookings the theatre has cancelled with it (refunded for that reason:
// one its staff refunded before is not the show's), at $2: one to each moviegoer who
// booked online (keyed by account), and one to each address a counter
// customer gave (keyed by address: a counter sale belongs to its seller's
// account, and its customer has none); a counter customer without an
// address is not mailed. An address that is also an online moviegoer's
// gets that moviegoer's one mail, which lists both (MailFacts).
const showCancelledMails = `
	WITH cancelled AS (
		SELECT b.user_id, b.channel, lower(b.customer_email) AS customer_email
		  FROM bookings b JOIN refunds r ON r.booking_id = b.id AND r.reason = 'show_cancelled'
		 WHERE b.show_id = $1::bigint
	),
	online AS (
		SELECT id, email FROM users WHERE id IN (SELECT user_id FROM cancelled WHERE channel = 'online')
	),
	owed (recipient, user_id, whom) AS (
		SELECT email, id, id::text FROM online
		UNION
		SELECT customer_email, NULL::uuid, customer_email FROM cancelled
		 WHERE channel <> 'online' AND customer_email IS NOT NULL
		   AND customer_email NOT IN (SELECT lower(email) FROM online)
	)
	INSERT INTO mails (kind, recipient, user_id, show_id, once_key, created_at)
	SELECT 'show_cancelled', recipient, user_id, $1::bigint, 'show_cancelled:' || $1::bigint || ':' || whom, $2
	  FROM owed
	ON CONFLICT (once_key) DO NOTHING
	RETURNING id`
