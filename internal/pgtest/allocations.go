package pgtest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DoubleAllocations lists the seats of show that two owners claim at once:
// a seat named by more than one of the show's live holds (HELD, not yet
// expired) and confirmed bookings. A confirmed booking's hold is CONFIRMED,
// not HELD, so a booked seat is listed once. The answer of a healthy
// database is empty, whatever show_seats says; booking_invariant_violations
// checks show_seats against its owners.
func DoubleAllocations(ctx context.Context, pool *pgxpool.Pool, show int64) ([]string, error) {
	rows, err := pool.Query(ctx, `
		SELECT format('seat %s: %s', seat_id, string_agg(owner, ', ' ORDER BY owner))
		  FROM (SELECT s.seat_id, 'hold ' || h.id AS owner
		          FROM holds h CROSS JOIN LATERAL unnest(h.seat_ids) AS s(seat_id)
		         WHERE h.show_id = $1 AND h.state = 'HELD' AND h.expires_at > now()
		        UNION ALL
		        SELECT s.seat_id, 'booking ' || b.id
		          FROM bookings b CROSS JOIN LATERAL unnest(b.seat_ids) AS s(seat_id)
		         WHERE b.show_id = $1 AND b.status = 'CONFIRMED') claims
		 GROUP BY seat_id HAVING count(*) > 1
		 ORDER BY seat_id`, show)
	if err != nil {
		return nil, fmt.Errorf("look for seats allocated twice: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("look for seats allocated twice: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look for seats allocated twice: %w", err)
	}
	return out, nil
}

// SeatCounts is how many seats of a show are in each state, by
// show_seats.status (AVAILABLE, HELD, BOOKED, BLOCKED); a HELD seat whose
// hold has lapsed but was not yet swept counts as HELD.
func SeatCounts(ctx context.Context, pool *pgxpool.Pool, show int64) (map[string]int, error) {
	rows, err := pool.Query(ctx, `SELECT status, count(*) FROM show_seats WHERE show_id = $1 GROUP BY status`, show)
	if err != nil {
		return nil, fmt.Errorf("count the show's seats: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return nil, fmt.Errorf("count the show's seats: %w", err)
		}
		out[status] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count the show's seats: %w", err)
	}
	return out, nil
}
