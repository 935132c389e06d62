package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// SeatMap returns every seat of showID in grid order, with its status as of
// now: a seat of a lapsed hold reads AVAILABLE before any sweep. Seats held
// by viewerID's live hold are marked Mine; viewerID may be empty (a guest).
func (s *Store) SeatMap(ctx context.Context, showID int64, viewerID string) ([]booking.Seat, error) {
	seats, err := s.SeatStates(ctx, showID, nil)
	if err != nil {
		return nil, err
	}
	if len(seats) == 0 {
		// A show always has seats; none means no such show.
		return nil, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	for i := range seats {
		seats[i].Mine = viewerID != "" && seats[i].HolderID == viewerID
	}
	return seats, nil
}

// SeatStates returns the given seats of showID (every seat when ids is nil)
// in grid order, as of now, with HolderID naming the user whose live hold
// holds each held seat and HeldUntil when that hold lets it go. The live seat map reads changes through it once per
// instance and tells each viewer its own seats.
func (s *Store) SeatStates(ctx context.Context, showID int64, ids []string) ([]booking.Seat, error) {
	rows, err := s.pool.Query(ctx, `
		WITH now AS (SELECT coalesce($2::timestamptz, clock_timestamp()) AS t)
		SELECT ss.seat_id, st.row_label, st.number, st.grid_row, st.grid_col, st.accessible, st.companion,
		       ss.category, p.price_minor, sh.currency,
		       CASE WHEN ss.status = 'HELD' AND ss.hold_expires_at <= now.t THEN 'AVAILABLE' ELSE ss.status END,
		       CASE WHEN ss.status = 'HELD' AND ss.hold_expires_at > now.t THEN h.user_id::text ELSE '' END,
		       CASE WHEN ss.status = 'HELD' AND ss.hold_expires_at > now.t THEN ss.hold_expires_at END
		  FROM show_seats ss
		  CROSS JOIN now
		  JOIN shows sh ON sh.id = ss.show_id
		  JOIN seats st ON st.screen_id = ss.screen_id AND st.seat_id = ss.seat_id
		  JOIN show_prices p ON p.show_id = ss.show_id AND p.category = ss.category
		  LEFT JOIN holds h ON h.id = ss.hold_id
		 WHERE ss.show_id = $1 AND sh.status = 'SCHEDULED'
		   AND ($3::text[] IS NULL OR ss.seat_id = ANY ($3))
		 ORDER BY st.grid_row, st.grid_col`, showID, s.now(), ids)
	if err != nil {
		return nil, fmt.Errorf("read seats of show %d: %w", showID, err)
	}
	seats, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Seat, error) {
		var st booking.Seat
		var until *time.Time
		err := r.Scan(&st.ID, &st.Row, &st.Number, &st.GridRow, &st.GridCol, &st.Accessible, &st.Companion,
			&st.Category, &st.PriceMinor, &st.Currency, &st.Status, &st.HolderID, &until)
		if until != nil {
			st.HeldUntil = *until
		}
		return st, err
	})
	if err != nil {
		return nil, fmt.Errorf("read seats of show %d: %w", showID, err)
	}
	return seats, nil
}
