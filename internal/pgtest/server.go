package pgtest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ServerSettings are the server's version and the settings that move
// benchmark figures most: a flush per commit, and whether autovacuum cleans
// up behind a measurement.
type ServerSettings struct {
	Version, Fsync, SynchronousCommit, Autovacuum string
}

// Settings reads the server's ServerSettings.
func Settings(ctx context.Context, pool *pgxpool.Pool) (ServerSettings, error) {
	var s ServerSettings
	err := pool.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('fsync'),
		current_setting('synchronous_commit'), current_setting('autovacuum')`).Scan(&s.Version, &s.Fsync, &s.SynchronousCommit, &s.Autovacuum)
	if err != nil {
		return s, fmt.Errorf("read server settings: %w", err)
	}
	return s, nil
}

// FreeConnections is how many more client connections the server would
// take (max_connections less the superusers' reserve and every client
// backend connected, to any database).
func FreeConnections(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var free int
	err := pool.QueryRow(ctx, `
		SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
		     - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')`).Scan(&free)
	if err != nil {
		return 0, fmt.Errorf("count free connections: %w", err)
	}
	return free, nil
}

// BackendPIDs are the process ids of the server's backends connected to
// pool's database.
func BackendPIDs(ctx context.Context, pool *pgxpool.Pool) ([]int, error) {
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		return nil, fmt.Errorf("list backends: %w", err)
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return nil, fmt.Errorf("list backends: %w", err)
		}
		pids = append(pids, pid)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list backends: %w", err)
	}
	return pids, nil
}

// listenerName is live.ApplicationName (which imports this package's users,
// not this package): the name of the live seat map's listening connections,
// which also read the feed's position now and then.
const listenerName = "marquee live listener"

// Listeners is how many connections of pool's database listen: the live
// seat map's listeners, known by name, and others that last ran LISTEN.
func Listeners(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var n int
	if err := pool.QueryRow(ctx, `
		SELECT count(*) FROM pg_stat_activity
		 WHERE datname = current_database()
		   AND (application_name = $1 OR query ILIKE 'LISTEN %')`, listenerName).Scan(&n); err != nil {
		return 0, fmt.Errorf("count listeners: %w", err)
	}
	return n, nil
}
