// Package reconcile makes sure no payment is left hanging. A webhook can be
// lost (a provider's outage, ours, a proxy): the money is then taken and
// nothing is booked or refunded. So for every hold a checkout was opened
// for, the store inserts a payment check job (jobs.PaymentCheck), and this
// worker asks the provider, server to server, how paying went, and
// processes each charge the provider took exactly as its webhook would have,
// through the same boxoffice.Receiver: a booking while the hold is valid,
// otherwise a refund. A webhook that arrives after that finds the outcome
// stored and changes nothing, and so does a check after a webhook.
package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Provider is what the worker asks: how paying for a hold went, with the
// charges that took money for it.
type Provider interface {
	PaymentStatus(ctx context.Context, holdID string) (payment.Report, error)
}

// Worker makes a watched hold's payment checks (see Store.WatchPayments),
// one job per hold: first Delay after its checkout opened (the store's
// PaymentCheckDelay, which should be the same), if no outcome is stored by
// then, again with a doubling wait up to MaxWait, once more when the hold
// expires, and a last time Settle after that (for a charge whose report was
// still on its way at the deadline, or a second one from another tab).
// Between two checks the job snoozes; it completes after the last one. A
// check that fails is retried by River with the same doubling wait, up to
// jobs.PaymentCheckAttempts times.
type Worker struct {
	river.WorkerDefaults[jobs.PaymentCheck]
	Store    *postgres.Store
	Provider Provider
	Receiver *boxoffice.Receiver

	// Delay after a checkout opens before the provider is first asked: time
	// for the webhook to arrive by itself; 0 = 10 s. The wait after the
	// first check is Delay, and doubles with each one.
	Delay time.Duration
	// MaxWait caps the wait between two checks before the deadline; 0 = 1 minute.
	MaxWait time.Duration
	// Settle after the hold's deadline is the last check; 0 = 2 minutes.
	Settle time.Duration
	// AskTimeout cuts each question to the provider; 0 = 15 s.
	AskTimeout time.Duration
	Log        *slog.Logger // may be nil
}

// Defaults of the Worker's settings.
const (
	DefaultDelay   = jobs.DefaultPaymentCheckDelay
	DefaultMaxWait = time.Minute
	DefaultSettle  = 2 * time.Minute
)

type settings struct {
	delay, maxWait, settle, askTimeout time.Duration
	log                                *slog.Logger
}

func (w *Worker) settings() settings {
	or := func(d, def time.Duration) time.Duration {
		if d <= 0 {
			return def
		}
		return d
	}
	s := settings{
		delay: or(w.Delay, DefaultDelay), maxWait: or(w.MaxWait, DefaultMaxWait), settle: or(w.Settle, DefaultSettle),
		askTimeout: or(w.AskTimeout, 15*time.Second), log: w.Log,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// progress is what a check job records of itself in its metadata (see
// jobs.PaymentCheckChecks).
type progress struct {
	Checks int `json:"checks"` // questions asked of the provider so far
}

func progressOf(job *river.Job[jobs.PaymentCheck]) progress {
	var p progress
	_ = json.Unmarshal(job.Metadata, &p) // River's metadata is JSON; a job without ours has asked nothing
	return p
}

// Work makes job's check: asks the provider about its hold, unless only the
// last look remains, and snoozes until the next check, or finishes after
// the last look. A check that fails returns the error, for River to retry.
func (w *Worker) Work(ctx context.Context, job *river.Job[jobs.PaymentCheck]) error {
	cfg := w.settings()
	holdID := job.Args.HoldID
	c, err := w.Store.PaymentCheckState(ctx, holdID)
	if errors.Is(err, booking.ErrNotFound) {
		return river.JobCancel(err) // no hold, no payment of it to wait for
	}
	if err != nil {
		return fmt.Errorf("payment check of hold %s: %w", holdID, err)
	}
	last := c.ExpiresAt.Add(cfg.settle)
	if c.Settled && c.Now.Before(last) {
		// The webhook did its work: only the last look remains.
		return river.JobSnooze(last.Sub(c.Now))
	}
	checks := progressOf(job).Checks + 1
	err = w.reconcile(ctx, cfg, holdID)
	if err != nil && ctx.Err() != nil {
		// Cut short (the instance stopping, or the job's time up): nothing
		// is recorded, and River makes the check again.
		return fmt.Errorf("payment check of hold %s: %w", holdID, err)
	}
	// Recorded whether the check failed or not: the next wait doubles with
	// the checks, and an admin sees why one fails.
	var lastError *string
	if err != nil {
		msg := err.Error()
		lastError = &msg
	}
	if err := errors.Join(river.MetadataSet(ctx, jobs.PaymentCheckChecks, checks),
		river.MetadataSet(ctx, jobs.PaymentCheckLastError, lastError)); err != nil {
		return fmt.Errorf("record payment check of hold %s: %w", holdID, err)
	}
	if err != nil {
		cfg.log.Warn("payment check failed; will ask again", "hold_id", holdID, "check", checks, "err", err)
		return fmt.Errorf("payment check of hold %s: %w", holdID, err)
	}
	if !c.Now.Before(last) {
		return nil
	}
	return river.JobSnooze(next(cfg, c, checks).Sub(c.Now))
}

// NextRetry brings a failed check back after the wait a successful one
// would have had, rather than River's default, which waits more and more
// and would miss the hold's deadline. It does not know the deadline: a
// check that fails just before it is made again up to MaxWait after it.
func (w *Worker) NextRetry(job *river.Job[jobs.PaymentCheck]) time.Time {
	now := time.Now()
	if w.Store.Clock != nil {
		now = w.Store.Clock() // River's clock in the tests that set one
	}
	return now.Add(wait(w.settings(), progressOf(job).Checks+1))
}

// reconcile asks the provider about hold holdID and receives every charge
// it took, as the charge's webhook would be received.
func (w *Worker) reconcile(ctx context.Context, cfg settings, holdID string) error {
	askCtx, cancel := context.WithTimeout(ctx, cfg.askTimeout)
	report, err := w.Provider.PaymentStatus(askCtx, holdID)
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

// wait is how long after check number checks the next one comes: Delay,
// doubling with each check, up to MaxWait.
func wait(cfg settings, checks int) time.Duration {
	d := cfg.delay
	for i := 1; i < checks && d < cfg.maxWait; i++ {
		d *= 2
	}
	return min(d, cfg.maxWait)
}

// next is when to ask again after check number checks of c, made at c.Now:
// wait after it, but at the hold's deadline at the latest while it is
// ahead, and at the last check, Settle after it, at the latest.
func next(cfg settings, c booking.PaymentCheck, checks int) time.Time {
	at := c.Now.Add(wait(cfg, checks))
	if c.Now.Before(c.ExpiresAt) && at.After(c.ExpiresAt) {
		at = c.ExpiresAt
	}
	if last := c.ExpiresAt.Add(cfg.settle); at.After(last) && c.Now.Before(last) {
		at = last
	}
	return at
}
