package live

import (
	"context"
	"log/slog"
	"time"
)

// Flusher announces the seat changes committed since its last call and
// returns how many it announced (see postgres.Store.AnnounceSeatChanges).
type Flusher func(ctx context.Context, limit int) (int, error)

// Notifier batches committed seat changes into one NOTIFY per show every
// Interval. Booking transactions only insert a row each; the database-wide
// commit lock that NOTIFY takes is paid here, once per batch, not by every
// hold. Several instances may run one: each batch is taken by one of them.
type Notifier struct {
	Flush    Flusher
	Interval time.Duration
	Batch    int
	Log      *slog.Logger

	// Vacuum, when set, is called after every VacuumEvery changes announced
	// (see postgres.Store.VacuumSeatEvents). The queue is taken by a scan
	// that also walks the rows already taken until a vacuum frees them, and
	// autovacuum comes by once a minute at best, or never where it is off:
	// without this, a busy minute would make every batch scan the whole of it.
	Vacuum      func(ctx context.Context) error
	VacuumEvery int
}

// Run flushes until ctx is done.
func (n *Notifier) Run(ctx context.Context) {
	t := time.NewTicker(n.Interval)
	defer t.Stop()
	taken := 0 // changes announced since the last vacuum
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for ctx.Err() == nil {
			k, err := n.Flush(ctx, n.Batch)
			if err != nil {
				if ctx.Err() == nil {
					n.Log.Error("announce seat changes", "err", err)
				}
				break
			}
			taken += k
			if k < n.Batch {
				break
			}
		}
		if n.Vacuum != nil && taken >= n.VacuumEvery && ctx.Err() == nil {
			if err := n.Vacuum(ctx); err != nil && ctx.Err() == nil {
				n.Log.Error("vacuum the announced seat changes", "err", err)
			}
			taken = 0
		}
	}
}
