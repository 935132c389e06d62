package sweeper_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/sweeper"
)

func TestSweepExpiresEveryLapsedHoldInBatches(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	show := pgtest.NewShow(t, s, pgtest.NewVenue(t, s), 2, 4, clock.Now().Add(24*time.Hour))
	for _, seat := range []string{"A1", "A2", "A3", "A4", "B1"} {
		if _, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: pgtest.User(t, s), ShowID: show, Seats: []string{seat}, TTL: time.Minute, Key: seat}, 10); err != nil {
			t.Fatal(err)
		}
	}
	m := metrics.New(prometheus.NewRegistry())
	sw := &sweeper.Sweeper{Store: s, Batch: 2, Metrics: m, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}

	if n := sw.Sweep(ctx); n != 0 {
		t.Fatalf("swept %d live holds", n)
	}
	clock.Advance(time.Minute)
	if n := sw.Sweep(ctx); n != 5 {
		t.Fatalf("swept %d, want all 5 across batches of 2", n)
	}
	if got := testutil.ToFloat64(m.HoldsExpired); got != 5 {
		t.Fatalf("expired metric = %v, want 5", got)
	}
	if n := pgtest.Scalar[int](t, s.Pool(), `SELECT count(*) FROM show_seats WHERE status <> 'AVAILABLE'`); n != 0 {
		t.Fatalf("%d seats still taken", n)
	}
	pgtest.CheckInvariants(t, s)
}
