package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The test server's connections are shared by every package's test process,
// and `go test` runs several processes at once, each running tests in
// parallel: left alone, a few race tests with pools of 32 and a handful of
// app servers ask for more than a stock server's 100 connections, and some
// test fails with "too many clients". So a test reserves the connections its
// pool may open before it opens it, and waits while they are spent.
//
// A reservation is a set of slots, each a session advisory lock (connClass,
// slot) held by the process's admin connection. Advisory locks are
// re-entrant within a session, so the process also remembers which slots it
// holds and never counts one twice.
const connClass = 0x6d71636e // "mqcn"

// connHeadroom is what the budget leaves for connections nobody reserves:
// each process's admin connection, migrations and psql.
const connHeadroom = 20

// reserveWait is how long a test waits for connections before it fails:
// on a loaded machine the tests holding them take several times longer to
// give them back, so it is most of a package's 20 minutes, not a guess at
// how long they take.
const reserveWait = 15 * time.Minute

// Reserve reserves n of the test server's connections for the rest of the
// test, waiting while other tests use them.
func Reserve(tb testing.TB, n int32) {
	tb.Helper()
	ensureServer(tb)
	if n <= 0 {
		return
	}
	if n > server.slots {
		tb.Fatalf("a test wants %d connections; the test server has %d for tests (max_connections less %d)", n, server.slots, connHeadroom)
	}
	ctx := context.Background()
	deadline := time.Now().Add(reserveWait)
	for {
		slots, err := tryReserve(ctx, n)
		if err != nil {
			tb.Fatalf("reserve %d test connections: %v", n, err)
		}
		if slots != nil {
			tb.Cleanup(func() {
				if err := unreserve(context.Background(), slots); err != nil {
					tb.Errorf("give back %d test connections: %v", n, err)
				}
			})
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %d of the test server's %d connections", reserveWait, n, server.slots)
		}
		time.Sleep(20*time.Millisecond + rand.N(30*time.Millisecond))
	}
}

// tryReserve takes n free slots, or none.
func tryReserve(ctx context.Context, n int32) ([]int32, error) {
	server.mu.Lock()
	defer server.mu.Unlock()
	held := make([]int32, 0, len(server.held))
	for s := range server.held {
		held = append(held, s)
	}
	// CASE keeps the order: a slot this process holds is never locked
	// again. LIMIT stops the scan, so no slot is locked beyond n.
	rows, err := server.conn.Query(ctx, `
		SELECT s FROM generate_series(1, $1::int) s
		 WHERE CASE WHEN s = ANY($2::int[]) THEN false ELSE pg_try_advisory_lock($3, s) END
		 LIMIT $4`, server.slots, held, connClass, n)
	if err != nil {
		return nil, err
	}
	var got []int32
	for rows.Next() {
		var s int32
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, err
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if int32(len(got)) < n {
		if _, err := server.conn.Exec(ctx, `SELECT pg_advisory_unlock($1, s) FROM unnest($2::int[]) s`, connClass, got); err != nil {
			return nil, fmt.Errorf("give back a partial reservation: %w", err)
		}
		return nil, nil
	}
	for _, s := range got {
		server.held[s] = true
	}
	return got, nil
}

// unreserve gives slots back.
func unreserve(ctx context.Context, slots []int32) error {
	server.mu.Lock()
	defer server.mu.Unlock()
	for _, s := range slots {
		delete(server.held, s)
	}
	_, err := server.conn.Exec(ctx, `SELECT pg_advisory_unlock($1, s) FROM unnest($2::int[]) s`, connClass, slots)
	return err
}
