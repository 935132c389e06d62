package pgtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The peer benchmark (cmd/bench -peer) drives overbookr, an open-source
// booking server, on a database of its own with overbookr's schema. Its API
// cannot give a hold back: a hold ends when it is booked, or when its
// expiry worker finds it past its five minutes. So the benchmark gives the
// peer's holds back itself, on that database, as the worker ends a hold.

// ExpirePeerHold ends the active overbookr hold whose token is token as
// overbookr's expiry worker ends one, in one transaction of the same steps:
// the hold's seats locked, those still carrying its token made available,
// the hold marked expired. It returns how many seats it made available (0
// when no active hold has that token).
//
// It locks the seats in the order overbookr's hold does (by id); its worker
// locks them in whatever order the scan meets them, which now and then
// deadlocks with a hold of the same seats, as it did in the benchmark's
// first runs on the hot show.
func ExpirePeerHold(ctx context.Context, pool *pgxpool.Pool, token string) (int64, error) {
	var freed int64
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var seatIDs []string
		err := tx.QueryRow(ctx, `
			SELECT seat_ids::text[] FROM seat_holds
			 WHERE hold_token = $1 AND status = 'active'`, token).Scan(&seatIDs)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT id FROM seats WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, seatIDs); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `
			UPDATE seats SET status = 'available', hold_expires_at = NULL, hold_token = NULL, updated_at = now()
			 WHERE hold_token = $1 AND id = ANY($2::uuid[])`, token, seatIDs)
		if err != nil {
			return err
		}
		freed = tag.RowsAffected()
		_, err = tx.Exec(ctx, `UPDATE seat_holds SET status = 'expired', updated_at = now() WHERE hold_token = $1`, token)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("expire overbookr hold: %w", err)
	}
	return freed, nil
}

// SettlePeer is Settle for overbookr's database: no hold left active, its
// seats available, dead rows vacuumed, statistics fresh and a checkpoint
// taken. It returns how many seats it made available.
func SettlePeer(ctx context.Context, pool *pgxpool.Pool) (released int64, err error) {
	tag, err := pool.Exec(ctx, `
		WITH ended AS (
			UPDATE seat_holds SET status = 'expired', updated_at = now()
			 WHERE status = 'active' RETURNING hold_token
		)
		UPDATE seats SET status = 'available', hold_expires_at = NULL, hold_token = NULL, updated_at = now()
		 WHERE hold_token IN (SELECT hold_token FROM ended) AND status = 'held'`)
	if err != nil {
		return 0, fmt.Errorf("settle overbookr: release leftovers: %w", err)
	}
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) seats, seat_holds`); err != nil {
		return tag.RowsAffected(), fmt.Errorf("settle overbookr: vacuum: %w", err)
	}
	_, _ = pool.Exec(ctx, `CHECKPOINT`) // as in Settle
	return tag.RowsAffected(), nil
}
