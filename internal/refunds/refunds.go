// Package refunds pays back money owed: every refund the store records
// (late or duplicate payments, cancelled bookings and shows) comes with a
// River job (jobs.Refund), which this worker does through the payment
// provider, outside any transaction. River retries a failed one with a
// growing wait and gives up after jobs.RefundAttempts, when an admin's
// "retry now" queues it again.
package refunds

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Refunder pays a refund back through the payment provider. The refund id
// is the provider's idempotency key, so a retry never pays twice.
type Refunder interface {
	Refund(ctx context.Context, r booking.Refund) error
}

// Worker pays refunds, one job at a time.
type Worker struct {
	river.WorkerDefaults[jobs.Refund]
	Store    *postgres.Store
	Provider Refunder
	Log      *slog.Logger
}

// Work pays job's refund, unless it is paid already. A failure is recorded
// on the refund (its admin sees why) and returned, for River to retry.
func (w *Worker) Work(ctx context.Context, job *river.Job[jobs.Refund]) error {
	r, err := w.Store.StartRefund(ctx, job.Args.RefundID)
	if err != nil {
		return err
	}
	if r.Status == booking.RefundSucceeded {
		return nil
	}
	log := w.Log.With("refund_id", r.ID, "payment_id", r.PaymentID, "job_id", job.ID)
	if booking.CounterPayment(r.PaymentID) {
		// Money taken at the counter goes back at the counter, by hand: no
		// provider holds it. The refund stays owed until staff pay it.
		log.Info("a counter sale's refund is paid at the counter", "amount_minor", r.AmountMinor, "currency", r.Currency)
		return river.JobCancel(fmt.Errorf("refund %s of counter payment %s: paid back at the counter", r.ID, r.PaymentID))
	}
	if err := w.Provider.Refund(ctx, r); err != nil {
		log.Warn("refund failed; will retry", "attempt", job.Attempt, "err", err)
		if err := w.Store.RefundFailed(context.WithoutCancel(ctx), r.ID, err); err != nil {
			log.Error("record failed refund", "err", err)
		}
		return fmt.Errorf("refund %s: %w", r.ID, err)
	}
	if err := w.Store.RefundSucceeded(context.WithoutCancel(ctx), r.ID); err != nil {
		return err
	}
	log.Info("refund paid", "amount_minor", r.AmountMinor, "currency", r.Currency, "reason", r.Reason)
	return nil
}
