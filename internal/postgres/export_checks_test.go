package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// CarryOverPaymentChecks exposes carryOverPaymentChecks to the black-box
// tests.
func CarryOverPaymentChecks(ctx context.Context, s *Store, tx pgx.Tx) error {
	return s.carryOverPaymentChecks(ctx, tx)
}
