package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/money"
)

// SalesReport returns the sales of theatreID's shows, scheduled and
// cancelled, starting in [from, to), by start. A show's confirmed bookings
// are split by channel as migration 000024 records them: online, the box
// office by paid_by (cash or card), and complimentary.
func (s *Store) SalesReport(ctx context.Context, theatreID int64, from, to time.Time) ([]booking.ShowSales, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT sh.id, m.title, sc.name, sh.starts_at, sh.status, sh.currency,
		       (SELECT count(*) FROM show_seats WHERE show_id = sh.id),
		       coalesce(b.tickets, 0), coalesce(b.revenue, 0),
		       coalesce(p.taken, 0), coalesce(b.booked, 0) - coalesce(r.of_bookings, 0),
		       coalesce(r.owed, 0), coalesce(r.paid, 0), coalesce(r.failed, 0),
		       coalesce(b.online_tickets, 0), coalesce(b.online_revenue, 0),
		       coalesce(b.cash_tickets, 0), coalesce(b.cash_revenue, 0),
		       coalesce(b.card_tickets, 0), coalesce(b.card_revenue, 0),
		       coalesce(b.comp_tickets, 0), coalesce(b.comp_revenue, 0)
		  FROM shows sh
		  JOIN movies m ON m.id = sh.movie_id
		  JOIN screens sc ON sc.id = sh.screen_id
		  LEFT JOIN LATERAL (
		       SELECT sum(cardinality(seat_ids)) FILTER (WHERE status = 'CONFIRMED') AS tickets,
		              sum(amount_minor) FILTER (WHERE status = 'CONFIRMED') AS revenue,
		              sum(amount_minor) AS booked,
		              sum(cardinality(seat_ids)) FILTER (WHERE status = 'CONFIRMED' AND channel = 'online') AS online_tickets,
		              sum(amount_minor) FILTER (WHERE status = 'CONFIRMED' AND channel = 'online') AS online_revenue,
		              sum(cardinality(seat_ids)) FILTER (WHERE status = 'CONFIRMED' AND paid_by = 'cash') AS cash_tickets,
		              sum(amount_minor) FILTER (WHERE status = 'CONFIRMED' AND paid_by = 'cash') AS cash_revenue,
		              sum(cardinality(seat_ids)) FILTER (WHERE status = 'CONFIRMED' AND paid_by = 'card') AS card_tickets,
		              sum(amount_minor) FILTER (WHERE status = 'CONFIRMED' AND paid_by = 'card') AS card_revenue,
		              sum(cardinality(seat_ids)) FILTER (WHERE status = 'CONFIRMED' AND channel = 'complimentary') AS comp_tickets,
		              sum(amount_minor) FILTER (WHERE status = 'CONFIRMED' AND channel = 'complimentary') AS comp_revenue
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
	sales, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.ShowSales, error) {
		var s booking.ShowSales
		ch := &s.Channels
		err := r.Scan(&s.ShowID, &s.MovieTitle, &s.Screen, &s.StartsAt, &s.Status, &s.Currency, &s.Seats, &s.Tickets,
			numeric(&s.Revenue), numeric(&s.Taken), numeric(&s.Kept),
			numeric(&s.RefundsOwed), numeric(&s.RefundsPaid), numeric(&s.RefundsFailed),
			&ch.Online.Tickets, numeric(&ch.Online.Revenue), &ch.Cash.Tickets, numeric(&ch.Cash.Revenue),
			&ch.Card.Tickets, numeric(&ch.Card.Revenue), &ch.Complimentary.Tickets, numeric(&ch.Complimentary.Revenue))
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
