package refunds_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/refunds"
)

// flakyProvider fails the first failures calls for each refund.
type flakyProvider struct {
	mu       sync.Mutex
	failures int
	calls    map[string]int
}

func (p *flakyProvider) Refund(_ context.Context, r booking.Refund) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[r.ID]++
	if p.calls[r.ID] <= p.failures {
		return errors.New("provider unavailable")
	}
	return nil
}

func TestWorkerPaysBackLatePaymentsWithRetries(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 2, clock.Now().Add(48*time.Hour))
	res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: pgtest.User(t, s), ShowID: show, Seats: []string{"A1"}, TTL: time.Minute, Key: "k"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	h := res.Hold
	clock.Set(h.ExpiresAt) // the payment arrives late
	if c, err := s.ConfirmPayment(ctx, booking.Payment{ID: "pay-late", HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency}); err != nil || c.Outcome != booking.OutcomeRefundRequired {
		t.Fatalf("confirm = %+v, %v", c, err)
	}
	refundID := pgtest.Scalar[string](t, s.Pool(), `SELECT id::text FROM refunds WHERE payment_id = 'pay-late'`)
	// The refund's job was inserted with it, in the payment's transaction.
	driver := riverpgxv5.New(s.Pool())
	job := rivertest.RequireInserted(ctx, t, driver, jobs.Refund{RefundID: refundID}, &rivertest.RequireInsertedOpts{MaxAttempts: jobs.RefundAttempts})

	provider := &flakyProvider{failures: 2, calls: map[string]int{}}
	w := rivertest.NewWorker(t, driver, &river.Config{}, river.Worker[jobs.Refund](&refunds.Worker{
		Store: s, Provider: provider, Log: slog.New(slog.DiscardHandler),
	}))
	status := func() string {
		return pgtest.Scalar[string](t, s.Pool(), `SELECT status FROM refunds WHERE payment_id = 'pay-late'`)
	}
	row := job.JobRow
	work := func() *rivertest.WorkResult {
		t.Helper()
		tx, err := s.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		res, err := w.WorkJob(ctx, t, tx, row) // err: the worker's, also in res
		if res == nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		row = res.Job
		return res
	}

	if r := work(); r.EventKind != river.EventKindJobFailed || status() != "FAILED" {
		t.Fatalf("first attempt: %s, refund %s; want a failed attempt, to be retried", r.EventKind, status())
	}
	if got := pgtest.Scalar[string](t, s.Pool(), `SELECT last_error FROM refunds WHERE payment_id = 'pay-late'`); got != "provider unavailable" {
		t.Fatalf("last_error = %q, want the provider's", got)
	}
	work() // second failure
	if r := work(); r.EventKind != river.EventKindJobCompleted || status() != "SUCCEEDED" {
		t.Fatalf("third attempt: %s, refund %s; want SUCCEEDED", r.EventKind, status())
	}
	// The job run again (its worker killed after the provider paid, before
	// River recorded it) pays nothing.
	again := &refunds.Worker{Store: s, Provider: provider, Log: slog.New(slog.DiscardHandler)}
	if err := again.Work(ctx, &river.Job[jobs.Refund]{JobRow: row, Args: jobs.Refund{RefundID: refundID}}); err != nil {
		t.Fatalf("the job run again: %v", err)
	}
	if provider.calls[refundID] != 3 {
		t.Fatalf("the provider was asked %d times, want 3", provider.calls[refundID])
	}
	if got := pgtest.Scalar[int](t, s.Pool(), `SELECT attempts FROM refunds WHERE payment_id = 'pay-late'`); got != 3 {
		t.Fatalf("attempts = %d, want 3", got)
	}
	pgtest.CheckInvariants(t, s)
}
