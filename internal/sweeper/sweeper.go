// Package sweeper ends lapsed holds in the background so the seat map frees
// seats promptly. Correctness never depends on it: every decision also
// treats a lapsed hold as expired by itself.
package sweeper

import (
	"context"
	"log/slog"
	"time"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Sweeper expires lapsed holds in batches on a fixed interval.
type Sweeper struct {
	Store    *postgres.Store
	Interval time.Duration
	Batch    int
	Metrics  *metrics.Metrics // may be nil
	Log      *slog.Logger
}

// Run sweeps until ctx is done. Several instances may run at once: they
// take the same locks in the same order, so they only ever wait on each other.
func (s *Sweeper) Run(ctx context.Context) {
	t := time.NewTicker(s.Interval)
	defer t.Stop()
	for {
		s.Sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sweep expires lapsed holds batch by batch until none is left.
func (s *Sweeper) Sweep(ctx context.Context) int {
	total := 0
	for ctx.Err() == nil {
		n, err := s.Store.ExpireHolds(ctx, s.Batch)
		if err != nil {
			if ctx.Err() == nil {
				s.Log.Error("sweep lapsed holds", "err", err)
			}
			return total
		}
		total += n
		if n > 0 {
			s.Log.Debug("lapsed holds expired", "holds", n)
		}
		if s.Metrics != nil {
			s.Metrics.HoldsExpired.Add(float64(n))
		}
		if n < s.Batch {
			return total
		}
	}
	return total
}
