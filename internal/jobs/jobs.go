// Package jobs is Marquee's background work that may wait, retry and must
// happen once: refunds paid back, payment checks, Sandbox Pay's webhook
// deliveries and e-mails. River (riverqueue.com) runs them from the
// database the booking state is in, so the store inserts a job in the
// transaction of the change that needs it: a refund owed is a refund job,
// or neither exists.
//
// This package names each kind of job (its arguments, shared by the store
// that inserts it and the worker that does it) and its queue, and makes
// River's clients. The workers live with what they act on
// (internal/refunds, internal/reconcile, internal/payment/sandbox,
// internal/notify). The hold sweeper and the live seat map's notifier are
// not jobs: they are about time to the second, and River's polling is not.
package jobs

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
)

// Refund pays refund RefundID back through the payment provider. One job
// per refund, whatever inserts it again.
type Refund struct {
	RefundID string `json:"refund_id"`
}

func (Refund) Kind() string { return "refund" }

// RefundAttempts is how many times a refund is tried before it is left for
// a person (River's retries wait attempt⁴ seconds and more: about three
// weeks in all).
const RefundAttempts = 25

func (Refund) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueuePayments, MaxAttempts: RefundAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// Inserter inserts jobs, in the caller's transaction. It runs none.
type Inserter = river.Client[pgx.Tx]

// NewInserter is the store's client: it inserts jobs and runs none.
func NewInserter(pool *pgxpool.Pool) (*Inserter, error) {
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("river inserter: %w", err)
	}
	return c, nil
}

// Config is how a Runner works jobs.
type Config struct {
	Workers *river.Workers
	// Queues are the queues worked, each with how many of its jobs run at
	// once. A queue not named waits for an instance that works it: one
	// with no payment provider leaves refunds alone, one that cannot send
	// mail leaves mail.
	Queues map[string]int
	Log    *slog.Logger
	// Clock, when set, is the time jobs are scheduled and retried by (a
	// test's clock); nil: the real one.
	Clock func() time.Time
	// RescueAfter is how long a job may stay running before it is taken
	// for the work of an instance that died mid-job and run again; 0:
	// DefaultRescueAfter. Tests that kill an app shorten it, rather than
	// wait minutes for the rescue.
	RescueAfter time.Duration
}

// DefaultRescueAfter is how long a job is left running before another
// instance takes it up: longer than any job of ours takes.
const DefaultRescueAfter = 5 * time.Minute

// Retention of finished jobs: long enough to see what happened to a
// booking's mails and refunds, short enough that the table stays small.
const (
	keepCompleted = 7 * 24 * time.Hour
	keepFailed    = 30 * 24 * time.Hour
)

// NewRunner is a client that works jobs once started, on a pool of its own
// (so that jobs never take the connections requests need).
func NewRunner(pool *pgxpool.Pool, cfg Config) (*river.Client[pgx.Tx], error) {
	queues := make(map[string]river.QueueConfig, len(cfg.Queues))
	for name, n := range cfg.Queues {
		queues[name] = river.QueueConfig{MaxWorkers: max(1, n)}
	}
	rescueAfter := cmp.Or(cfg.RescueAfter, DefaultRescueAfter)
	rc := &river.Config{
		Queues:                      queues,
		Workers:                     cfg.Workers,
		Logger:                      cfg.Log,
		CompletedJobRetentionPeriod: keepCompleted,
		CancelledJobRetentionPeriod: keepFailed,
		DiscardedJobRetentionPeriod: keepFailed,
		// A worker killed mid-job leaves it running; another takes it up
		// after this. Every job here is safe to run again (the provider's
		// idempotency key, the store's checks).
		RescueStuckJobsAfter: rescueAfter,
		// River rescues no job before its timeout has passed either, and
		// refuses a rescue shorter than the timeout: a shorter rescue
		// shortens the timeout with it. By default it is River's own.
		JobTimeout: min(river.JobTimeoutDefault, rescueAfter),
	}
	if cfg.Clock != nil {
		rc.Test.Time = Clock(cfg.Clock)
	}
	c, err := river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return c, nil
}

// Clock is a test's clock as River's time, for scheduling and retries.
type Clock func() time.Time

func (c Clock) Now() time.Time { return c() }
func (c Clock) NowOrNil() *time.Time {
	t := c()
	return &t
}

var _ rivertype.TimeGenerator = Clock(nil)

// Start works jobs on pool with cfg's workers until stop is called. stop
// lets the jobs being worked finish until its context ends, then cancels
// them: another instance takes them up, since every job may run again.
func Start(ctx context.Context, pool *pgxpool.Pool, cfg Config) (stop func(context.Context) error, err error) {
	if len(cfg.Queues) == 0 {
		return func(context.Context) error { return nil }, nil
	}
	c, err := NewRunner(pool, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start the background jobs: %w", err)
	}
	return c.Stop, nil
}
