package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/marquee-tickets/marquee/internal/money"
)

// ShowSales is one show's line of a theatre's sales report, in its
// currency's minor units. Its money comes from the facts the ledger check
// (booking_invariant_violations, I4) balances: the payments taken for the
// show's holds, its bookings, and the refunds of those payments. Where I4
// holds, Taken = Kept + RefundsOwed + RefundsPaid. Each sum is added in
// numeric, which cannot wrap, and is Overflow when it leaves int64.
type ShowSales struct {
	ShowID     int64
	MovieTitle string
	Screen     string
	StartsAt   time.Time
	Status     string // SCHEDULED or CANCELLED
	Currency   string
	Seats      int // seats of the show, whatever their state
	Tickets    int // seats of its confirmed bookings
	// Revenue is what its confirmed bookings were paid.
	Revenue money.Total
	// Taken is every payment received for a hold of the show: bookings,
	// cancelled or not, and payments that bought nothing (late, twice, of
	// the wrong amount).
	Taken money.Total
	// Kept is what the show's bookings were paid less what their
	// cancellations give back: the money that stays.
	Kept money.Total
	// Money owed back, by where the refund stands: every refund of a
	// payment for a hold of the show (a cancelled booking, a payment that
	// bought nothing).
	RefundsOwed   money.Total // not yet paid back: PENDING, or FAILED and being retried
	RefundsPaid   money.Total // SUCCEEDED
	RefundsFailed money.Total // the part of RefundsOwed whose last attempt FAILED
}

// SalesReport returns the sales of theatreID's shows, scheduled and
// cancelled, starting in [from, to), by start.
func (s *Store) SalesReport(ctx context.Context, theatreID int64, from, to time.Time) ([]ShowSales, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT sh.id, m.title, sc.name, sh.starts_at, sh.status, sh.currency,
		       (SELECT count(*) FROM show_seats WHERE show_id = sh.id),
		       coalesce(b.tickets, 0), coalesce(b.revenue, 0),
		       coalesce(p.taken, 0), coalesce(b.booked, 0) - coalesce(r.of_bookings, 0),
		       coalesce(r.owed, 0), coalesce(r.paid, 0), coalesce(r.failed, 0)
		  FROM shows sh
		  JOIN movies m ON m.id = sh.movie_id
		  JOIN screens sc ON sc.id = sh.screen_id
		  LEFT JOIN LATERAL (
		       SELECT sum(cardinality(seat_ids)) FILTER (WHERE status = 'CONFIRMED') AS tickets,
		              sum(amount_minor) FILTER (WHERE status = 'CONFIRMED') AS revenue,
		              sum(amount_minor) AS booked
		         FROM bookings WHERE show_id = sh.id) b ON true
		  LEFT JOIN LATERAL (
		       SELECT sum(p.amount_minor) AS taken
		         FROM holds h JOIN payments p ON p.hold_id = h.id
		        WHERE h.show_id = sh.id) p ON true
		  LEFT JOIN LATERAL (
		       SELECT sum(rf.amount_minor) FILTER (WHERE rf.status IN ('PENDING', 'FAILED')) AS owed,
		              sum(rf.amount_minor) FILTER (WHERE rf.status = 'SUCCEEDED') AS paid,
		              sum(rf.amount_minor) FILTER (WHERE rf.status = 'FAILED') AS failed,
		              sum(rf.amount_minor) FILTER (WHERE rf.booking_id IS NOT NULL) AS of_bookings
		         FROM holds h
		         JOIN payments p ON p.hold_id = h.id
		         JOIN refunds rf ON rf.payment_id = p.payment_id
		        WHERE h.show_id = sh.id) r ON true
		 WHERE sc.theatre_id = $1 AND sh.starts_at >= $2 AND sh.starts_at < $3
		 ORDER BY sh.starts_at, sh.id`, theatreID, from, to)
	if err != nil {
		return nil, fmt.Errorf("sales of theatre %d: %w", theatreID, err)
	}
	sales, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ShowSales, error) {
		var s ShowSales
		err := r.Scan(&s.ShowID, &s.MovieTitle, &s.Screen, &s.StartsAt, &s.Status, &s.Currency, &s.Seats, &s.Tickets,
			numeric(&s.Revenue), numeric(&s.Taken), numeric(&s.Kept),
			numeric(&s.RefundsOwed), numeric(&s.RefundsPaid), numeric(&s.RefundsFailed))
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("sales of theatre %d: %w", theatreID, err)
	}
	return sales, nil
}

// numericTotal scans a numeric sum of amounts into a money.Total: Postgres
// adds bigints in numeric, exactly, and a sum past int64 is marked
// Overflow here rather than failing the whole query.
type numericTotal money.Total

func numeric(t *money.Total) *numericTotal { return (*numericTotal)(t) }

func (t *numericTotal) ScanNumeric(n pgtype.Numeric) error {
	if !n.Valid {
		return fmt.Errorf("a sum of amounts is NULL")
	}
	v, err := n.Int64Value()
	if err != nil {
		*t = numericTotal{Overflow: true}
		return nil //nolint:nilerr // out of range is the answer, not a failure
	}
	*t = numericTotal{Minor: v.Int64}
	return nil
}
