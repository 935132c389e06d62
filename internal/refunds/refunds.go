// Package refunds pays back money owed: every refund obligation the store
// records (late or duplicate payments, cancelled bookings) is executed here
// through the payment provider, with retries, outside any transaction.
package refunds

import (
	"context"
	"log/slog"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Refunder pays a refund back through the payment provider. The refund id
// is the provider's idempotency key, so a retry never pays twice.
type Refunder interface {
	Refund(ctx context.Context, r booking.Refund) error
}

// Worker executes due refunds.
type Worker struct {
	Store    *postgres.Store
	Provider Refunder
	Interval time.Duration
	Batch    int
	Lease    time.Duration // how long a claimed refund is ours before another worker may retry it
	Log      *slog.Logger
}

// Run executes refunds until ctx is done.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.Interval)
	defer t.Stop()
	for {
		w.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunOnce executes every refund due now and returns how many succeeded.
func (w *Worker) RunOnce(ctx context.Context) int {
	ok := 0
	for ctx.Err() == nil {
		due, err := w.Store.LeaseRefunds(ctx, w.Batch, w.Lease)
		if err != nil {
			w.Log.Error("lease refunds", "err", err)
			return ok
		}
		for _, r := range due {
			log := w.Log.With("refund_id", r.ID, "payment_id", r.PaymentID)
			if err := w.Provider.Refund(ctx, r); err != nil {
				log.Warn("refund failed; will retry", "attempt", r.Attempts, "err", err)
				if err := w.Store.RefundFailed(ctx, r.ID, err, Backoff(r.Attempts)); err != nil {
					log.Error("record failed refund", "err", err)
				}
				continue
			}
			if err := w.Store.RefundSucceeded(ctx, r.ID); err != nil {
				log.Error("record refund", "err", err)
				continue
			}
			log.Info("refund paid", "amount_minor", r.AmountMinor, "currency", r.Currency, "reason", r.Reason)
			ok++
		}
		if len(due) < w.Batch {
			return ok
		}
	}
	return ok
}

// Backoff is the wait before attempt n+1: 10 s doubling, at most an hour.
func Backoff(attempts int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < attempts && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}
