package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// riverMigrationLock is the advisory lock River's migrations run under, so
// that app instances starting together apply them once, one after the
// other (golang-migrate takes a lock of its own for ours).
const riverMigrationLock = 0x6d617271 // "marq"

// migrateRiver applies River's own migrations, beside ours: its job table,
// its leader election and its queues. River owns that schema and moves it
// forward with its releases; it lives in the same database as the booking
// state, so a job is inserted in the transaction of the change that needs
// it.
func migrateRiver(ctx context.Context, databaseURL string) error {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	cfg.MaxConns = 2 // one holds the lock, the other migrates
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect for river's migrations: %w", err)
	}
	defer pool.Close()
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("river's migrations: %w", err)
	}
	// Each of River's migrations runs in a transaction of its own (one adds
	// a value to an enum that the next uses), so the lock is a session's,
	// held on a connection of its own meanwhile.
	lock, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connect for river's migrations: %w", err)
	}
	defer lock.Release()
	if _, err := lock.Exec(ctx, `SELECT pg_advisory_lock($1)`, riverMigrationLock); err != nil {
		return fmt.Errorf("lock river's migrations: %w", err)
	}
	defer lock.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, riverMigrationLock) //nolint:errcheck // closing the connection unlocks too
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("apply river's migrations: %w", err)
	}
	return nil
}
