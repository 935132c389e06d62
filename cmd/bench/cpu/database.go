package cpu

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// SampleDatabase is a Sample whose backends are the Postgres backends
// connected to pool's database (its own connections, and any others to
// that database). When the server cannot list them the sample has none,
// and Since then reads other work as unknown.
func (p Proc) SampleDatabase(ctx context.Context, pool *pgxpool.Pool) Sample {
	s := Sample{Self: ProcessCPU(), Host: p.HostBusy(), Backends: map[int]time.Duration{}}
	pids, err := pgtest.BackendPIDs(ctx, pool)
	if err != nil {
		return s
	}
	p.addBackends(&s, pids)
	return s
}
