// Package report writes what the benchmarks' reports share: the lines
// describing the machine and the database server a report begins with, and
// the check of the booking invariants it ends with.
package report

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Machine is the report's line on the CPUs and the Go runtime.
func Machine() string {
	return fmt.Sprintf("- machine: %d CPUs (NumCPU), GOMAXPROCS %d, %s/%s, %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// Server is the report's line on the Postgres server pool is connected to
// and the settings that move the figures most: a flush per commit, and
// whether autovacuum cleans up behind the measurements (the benchmarks
// vacuum before each one either way).
func Server(ctx context.Context, pool *pgxpool.Pool) string {
	s, err := pgtest.Settings(ctx, pool)
	if err != nil {
		s.Version = "unknown (" + err.Error() + ")"
	}
	host := "?"
	if cc := pool.Config().ConnConfig; cc != nil {
		host = fmt.Sprintf("%s:%d", cc.Host, cc.Port)
	}
	return fmt.Sprintf("- PostgreSQL %s at %s (fsync %s, synchronous_commit %s, autovacuum %s)\n",
		s.Version, host, s.Fsync, s.SynchronousCommit, s.Autovacuum)
}

// Invariants ends a report: it fails, naming each violation, unless
// booking_invariant_violations() is empty.
func Invariants(ctx context.Context, store *postgres.Store, w io.Writer) error {
	violations, err := store.InvariantViolations(context.WithoutCancel(ctx))
	if err != nil {
		return fmt.Errorf("check invariants: %w", err)
	}
	for _, v := range violations {
		fmt.Fprintln(w, "invariant violated:", v)
	}
	if len(violations) > 0 {
		return fmt.Errorf("%d invariant violations after the run", len(violations))
	}
	fmt.Fprintln(w, "\nInvariants I1-I5 hold after the run (booking_invariant_violations() is empty).")
	return nil
}
