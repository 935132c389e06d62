package live

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/metrics"
)

func TestHubMetrics(t *testing.T) {
	m := metrics.New(prometheus.NewRegistry())
	load := func(context.Context, int64, []string) ([]booking.Seat, error) {
		return []booking.Seat{{ID: "A1", Status: booking.SeatHeld}}, nil
	}
	h := NewHub(load, slog.New(slog.DiscardHandler))
	h.Metrics = m

	reader := h.Subscribe(7, 8)
	stuck := h.Subscribe(7, 1)
	if got := testutil.ToFloat64(m.LiveSubscribers); got != 2 {
		t.Fatalf("subscribers = %v, want 2", got)
	}
	at := time.Now().Add(-40 * time.Millisecond).UnixMilli()
	for range 2 {
		h.deliver(context.Background(), Change{ShowID: 7, Seats: []string{"A1"}, At: at})
	}
	<-stuck.Dropped()
	if got := testutil.ToFloat64(m.LiveDropped); got != 1 {
		t.Fatalf("dropped = %v, want the subscriber that did not read", got)
	}
	if got := testutil.ToFloat64(m.LiveSubscribers); got != 1 {
		t.Fatalf("subscribers = %v after the drop, want 1", got)
	}
	if n := testutil.CollectAndCount(m.LiveLag); n != 1 {
		t.Fatalf("lag histogram has %d series, want 1", n)
	}
	var out = &dtoHistogram{}
	out.read(t, m.LiveLag)
	if out.count != 2 || out.sum < 0.04 {
		t.Fatalf("lag observed %d times, sum %vs; want 2 observations of at least 40 ms", out.count, out.sum)
	}
	reader.Close()
	if got := testutil.ToFloat64(m.LiveSubscribers); got != 0 {
		t.Fatalf("subscribers = %v after close, want 0", got)
	}
}

type dtoHistogram struct {
	count uint64
	sum   float64
}

func (d *dtoHistogram) read(t *testing.T, h prometheus.Histogram) {
	t.Helper()
	ch := make(chan prometheus.Metric, 1)
	h.Collect(ch)
	var pb dto.Metric
	if err := (<-ch).Write(&pb); err != nil {
		t.Fatal(err)
	}
	d.count, d.sum = pb.GetHistogram().GetSampleCount(), pb.GetHistogram().GetSampleSum()
}
