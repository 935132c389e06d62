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
}

// Run flushes until ctx is done.
func (n *Notifier) Run(ctx context.Context) {
	t := time.NewTicker(n.Interval)
	defer t.Stop()
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
			if k < n.Batch {
				break
			}
		}
	}
}
