package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// InvariantViolations returns every violation of the booking invariants, as
// of the store's clock. A healthy database returns none.
func (s *Store) InvariantViolations(ctx context.Context) ([]booking.Violation, error) {
	rows, err := s.pool.Query(ctx, `SELECT invariant, detail FROM booking_invariant_violations($1::timestamptz)`, s.now())
	if err != nil {
		return nil, fmt.Errorf("check invariants: %w", err)
	}
	v, err := pgx.CollectRows(rows, pgx.RowToStructByPos[booking.Violation])
	if err != nil {
		return nil, fmt.Errorf("check invariants: %w", err)
	}
	return v, nil
}
