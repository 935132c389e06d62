package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ShowSales is one show's line of a theatre's sales report, in its
// currency's minor units.
type ShowSales struct {
	ShowID     int64
	MovieTitle string
	Screen     string
	StartsAt   time.Time
	Status     string // SCHEDULED or CANCELLED
	Currency   string
	Seats      int   // seats of the show, whatever their state
	Tickets    int   // seats of its confirmed bookings
	Revenue    int64 // what its confirmed bookings were paid
	// Money owed back, by where the refund stands: every refund of a
	// payment for a hold of the show (a cancelled booking, a payment that
	// came too late).
	RefundsOwed   int64 // PENDING
	RefundsPaid   int64 // SUCCEEDED
	RefundsFailed int64 // FAILED, being retried
}

// SalesReport returns the sales of theatreID's shows, scheduled and
// cancelled, starting in [from, to), by start.
func (s *Store) SalesReport(ctx context.Context, theatreID int64, from, to time.Time) ([]ShowSales, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT sh.id, m.title, sc.name, sh.starts_at, sh.status, sh.currency,
		       (SELECT count(*) FROM show_seats WHERE show_id = sh.id),
		       coalesce(b.tickets, 0), coalesce(b.revenue, 0),
		       coalesce(r.owed, 0), coalesce(r.paid, 0), coalesce(r.failed, 0)
		  FROM shows sh
		  JOIN movies m ON m.id = sh.movie_id
		  JOIN screens sc ON sc.id = sh.screen_id
		  LEFT JOIN LATERAL (
		       SELECT sum(cardinality(seat_ids)) AS tickets, sum(amount_minor) AS revenue
		         FROM bookings WHERE show_id = sh.id AND status = 'CONFIRMED') b ON true
		  LEFT JOIN LATERAL (
		       SELECT sum(rf.amount_minor) FILTER (WHERE rf.status = 'PENDING') AS owed,
		              sum(rf.amount_minor) FILTER (WHERE rf.status = 'SUCCEEDED') AS paid,
		              sum(rf.amount_minor) FILTER (WHERE rf.status = 'FAILED') AS failed
		         FROM refunds rf
		         JOIN payments p ON p.payment_id = rf.payment_id
		         JOIN holds h ON h.id = p.hold_id
		        WHERE h.show_id = sh.id) r ON true
		 WHERE sc.theatre_id = $1 AND sh.starts_at >= $2 AND sh.starts_at < $3
		 ORDER BY sh.starts_at, sh.id`, theatreID, from, to)
	if err != nil {
		return nil, fmt.Errorf("sales of theatre %d: %w", theatreID, err)
	}
	sales, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ShowSales])
	if err != nil {
		return nil, fmt.Errorf("sales of theatre %d: %w", theatreID, err)
	}
	return sales, nil
}
