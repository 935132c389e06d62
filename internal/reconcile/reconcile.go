// Package reconcile makes sure no payment is left hanging. A webhook can be
// lost (a provider's outage, ours, a proxy): the money is then taken and
// nothing is booked or refunded. So for every hold a checkout was opened
// for, the worker asks the provider, server to server, how paying went, and
// processes each charge the provider took exactly as its webhook would have,
// through the same boxoffice.Receiver: a booking while the hold is valid,
// otherwise a refund. A webhook that arrives after that finds the outcome
// stored and changes nothing, and so does a check after a webhook.
package reconcile

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Provider is what the worker asks: how paying for a hold went, with the
// charges that took money for it.
type Provider interface {
	PaymentStatus(ctx context.Context, holdID string) (payment.Report, error)
}

// Worker asks the provider about every watched hold (see
// Store.WatchPayments): first Delay after its checkout opened, if no
// outcome is stored by then, again with a doubling wait up to MaxWait, once
// more when the hold expires, and a last time Settle after that (for a
// charge whose report was still on its way at the deadline, or a second
// one from another tab). Workers of several instances share the checks: each
// is leased by one of them at a time (FOR UPDATE SKIP LOCKED).
type Worker struct {
	Store    *postgres.Store
	Provider Provider
	Receiver *boxoffice.Receiver

	Interval time.Duration // how often due checks are looked for; 0 = 1 s
	Batch    int           // checks leased at once; 0 = 20
	// Lease is how long a leased check is this worker's before another may
	// take it; 0 = 1 minute. Each question to the provider is cut at a
	// quarter of it.
	Lease time.Duration
	// Delay after a checkout opens before the provider is first asked: time
	// for the webhook to arrive by itself; 0 = 10 s.
	Delay time.Duration
	// MaxWait caps the wait between two checks before the deadline; 0 = 1 minute.
	MaxWait time.Duration
	// Settle after the hold's deadline is the last check; 0 = 2 minutes.
	Settle time.Duration
	Log    *slog.Logger // may be nil
}

// Defaults of the Worker's settings.
const (
	DefaultDelay   = 10 * time.Second
	DefaultMaxWait = time.Minute
	DefaultSettle  = 2 * time.Minute
)

type settings struct {
	interval, lease, delay, maxWait, settle time.Duration
	batch                                   int
	log                                     *slog.Logger
}

func (w *Worker) settings() settings {
	or := func(d, def time.Duration) time.Duration {
		if d <= 0 {
			return def
		}
		return d
	}
	s := settings{
		interval: or(w.Interval, time.Second), lease: or(w.Lease, time.Minute), delay: or(w.Delay, DefaultDelay),
		maxWait: or(w.MaxWait, DefaultMaxWait), settle: or(w.Settle, DefaultSettle), batch: w.Batch, log: w.Log,
	}
	if s.batch <= 0 {
		s.batch = 20
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Run reconciles until ctx is done.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.settings().interval)
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

// RunOnce makes every check due now and returns how many asked the provider.
func (w *Worker) RunOnce(ctx context.Context) int {
	cfg := w.settings()
	asked := 0
	for ctx.Err() == nil {
		due, err := w.Store.LeasePaymentChecks(ctx, cfg.batch, cfg.delay, cfg.lease)
		if err != nil {
			if ctx.Err() == nil {
				cfg.log.Error("lease payment checks", "err", err)
			}
			return asked
		}
		for _, c := range due {
			if w.check(ctx, cfg, c) {
				asked++
			}
		}
		if len(due) < cfg.batch {
			return asked
		}
	}
	return asked
}

// check makes leased check c and schedules the next one, or finishes. It
// reports whether it asked the provider.
func (w *Worker) check(ctx context.Context, cfg settings, c booking.PaymentCheck) bool {
	last := c.ExpiresAt.Add(cfg.settle)
	if c.Settled && c.Now.Before(last) {
		// The webhook did its work: only the last look remains.
		w.reschedule(ctx, cfg, c, last, nil)
		return false
	}
	err := w.reconcile(ctx, cfg, c)
	if err != nil && ctx.Err() != nil {
		return true // shutting down: the lease runs out and the check is made again
	}
	if err != nil {
		cfg.log.Warn("payment check failed; will ask again", "hold_id", c.HoldID, "check", c.Checks, "err", err)
	}
	if err == nil && !c.Now.Before(last) {
		if err := w.Store.FinishPaymentCheck(ctx, c); err != nil {
			cfg.log.Error("finish payment check", "hold_id", c.HoldID, "err", err)
		}
		return true
	}
	w.reschedule(ctx, cfg, c, next(cfg, c), err)
	return true
}

// reconcile asks the provider about c's hold and receives every charge it
// took, as the charge's webhook would be received.
func (w *Worker) reconcile(ctx context.Context, cfg settings, c booking.PaymentCheck) error {
	askCtx, cancel := context.WithTimeout(ctx, cfg.lease/4)
	report, err := w.Provider.PaymentStatus(askCtx, c.HoldID)
	cancel()
	if err != nil {
		return err
	}
	var failed error
	for _, p := range report.Charges {
		conf, err := w.Receiver.Receive(ctx, p, true)
		var mismatch *booking.AmountMismatchError
		switch {
		case errors.As(err, &mismatch):
			// Recorded with its refund, like the webhook's 422: for review.
			cfg.log.Warn("reconciled payment does not match its hold", "payment_id", p.ID, "hold_id", p.HoldRef)
		case errors.Is(err, booking.ErrPaymentConflict):
			cfg.log.Error("reconciled payment conflicts with a recorded one", "payment_id", p.ID, "hold_id", p.HoldRef)
		case err != nil:
			failed = errors.Join(failed, err)
		default:
			cfg.log.Debug("payment reconciled", "payment_id", p.ID, "hold_id", p.HoldRef, "outcome", conf.Outcome, "reason", conf.Reason)
		}
	}
	return failed
}

func (w *Worker) reschedule(ctx context.Context, cfg settings, c booking.PaymentCheck, at time.Time, cause error) {
	if err := w.Store.ReschedulePaymentCheck(ctx, c, at, cause); err != nil && ctx.Err() == nil {
		cfg.log.Error("reschedule payment check", "hold_id", c.HoldID, "err", err)
	}
}

// next is when to ask again after c: Delay after the last check, doubling
// with each one up to MaxWait, but at the hold's deadline at the latest
// while it is ahead, and at the last check, Settle after it, at the latest.
// A last check that failed is retried with the same wait.
func next(cfg settings, c booking.PaymentCheck) time.Time {
	wait := cfg.delay
	for i := 1; i < c.Checks && wait < cfg.maxWait; i++ {
		wait *= 2
	}
	wait = min(wait, cfg.maxWait)
	at := c.Now.Add(wait)
	if c.Now.Before(c.ExpiresAt) && at.After(c.ExpiresAt) {
		at = c.ExpiresAt
	}
	if last := c.ExpiresAt.Add(cfg.settle); at.After(last) && c.Now.Before(last) {
		at = last
	}
	return at
}
