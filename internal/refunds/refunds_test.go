package refunds_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
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

	provider := &flakyProvider{failures: 2, calls: map[string]int{}}
	w := &refunds.Worker{Store: s, Provider: provider, Batch: 10, Lease: time.Minute, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	status := func() string {
		return pgtest.Scalar[string](t, s.Pool(), `SELECT status FROM refunds WHERE payment_id = 'pay-late'`)
	}

	if n := w.RunOnce(ctx); n != 0 || status() != "FAILED" {
		t.Fatalf("first run paid %d, status %s; want a failed attempt", n, status())
	}
	if n := w.RunOnce(ctx); n != 0 {
		t.Fatalf("retried before the backoff passed (%d paid)", n)
	}
	clock.Advance(refunds.Backoff(1))
	w.RunOnce(ctx) // second failure
	clock.Advance(refunds.Backoff(2))
	if n := w.RunOnce(ctx); n != 1 || status() != "SUCCEEDED" {
		t.Fatalf("third attempt paid %d, status %s; want SUCCEEDED", n, status())
	}
	clock.Advance(time.Hour)
	if n := w.RunOnce(ctx); n != 0 {
		t.Fatal("a succeeded refund was paid again")
	}
	if got := pgtest.Scalar[int](t, s.Pool(), `SELECT attempts FROM refunds WHERE payment_id = 'pay-late'`); got != 3 {
		t.Fatalf("attempts = %d, want 3", got)
	}
	pgtest.CheckInvariants(t, s)
}

func TestLeasedRefundIsNotTakenTwice(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	if _, err := s.ConfirmPayment(ctx, booking.Payment{ID: "pay-x", HoldRef: "no-such-hold", AmountMinor: 100, Currency: "INR"}); err != nil {
		t.Fatal(err)
	}
	first, err := s.LeaseRefunds(ctx, 10, time.Minute)
	if err != nil || len(first) != 1 {
		t.Fatalf("lease = %v, %v", first, err)
	}
	if again, _ := s.LeaseRefunds(ctx, 10, time.Minute); len(again) != 0 {
		t.Fatal("a leased refund was leased again before its lease ended")
	}
	clock.Advance(time.Minute)
	if again, _ := s.LeaseRefunds(ctx, 10, time.Minute); len(again) != 1 {
		t.Fatal("a refund whose worker vanished was not taken again after the lease")
	}
}

func TestBackoff(t *testing.T) {
	for attempts, want := range map[int]time.Duration{1: 10 * time.Second, 2: 20 * time.Second, 3: 40 * time.Second, 30: time.Hour} {
		if got := refunds.Backoff(attempts); got != want {
			t.Errorf("Backoff(%d) = %v, want %v", attempts, got, want)
		}
	}
}
