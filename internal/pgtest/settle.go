package pgtest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Settle puts a benchmark's database in the same state before every
// measurement: no hold left HELD (a client whose release failed leaves
// one), dead rows vacuumed, statistics fresh and a checkpoint just taken,
// so that no measurement inherits another's bloat or pays for its
// checkpoint. It returns how many seats it released.
func Settle(ctx context.Context, pool *pgxpool.Pool) (released int64, err error) {
	tag, err := pool.Exec(ctx, `
		WITH ended AS (
			UPDATE holds SET state = 'CANCELLED', ended_at = clock_timestamp()
			 WHERE state = 'HELD' RETURNING id
		)
		UPDATE show_seats SET status = 'AVAILABLE', hold_id = NULL, hold_expires_at = NULL
		 WHERE hold_id IN (SELECT id FROM ended) AND status = 'HELD'`)
	if err != nil {
		return 0, fmt.Errorf("settle: release leftovers: %w", err)
	}
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) show_seats, holds, hold_keys, sessions`); err != nil {
		return tag.RowsAffected(), fmt.Errorf("settle: vacuum: %w", err)
	}
	// Needs superuser or pg_checkpoint; without it a measurement just sees
	// checkpoints when the server takes them.
	_, _ = pool.Exec(ctx, `CHECKPOINT`)
	return tag.RowsAffected(), nil
}
