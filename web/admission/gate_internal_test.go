package admission

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/marquee-tickets/marquee/internal/metrics"
)

// fakeClock is the time the gate measures service times by: it moves only
// when the test says.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func testGate(t *testing.T, c Capacity) (*Gate, *metrics.Metrics, *fakeClock) {
	t.Helper()
	m := metrics.New(prometheus.NewRegistry())
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	return NewGate("write", c, m, clock.Now), m, clock
}

// admitted is what a request got at the gate.
type admitted struct {
	leave func()
	err   error
}

// queueUp starts a request at the gate, and returns once it is in the
// queue; what it gets comes on the channel.
func queueUp(t *testing.T, g *Gate, ctx context.Context) <-chan admitted {
	t.Helper()
	out := make(chan admitted, 1)
	g.mu.Lock()
	before := g.queue.Len()
	g.mu.Unlock()
	go func() {
		leave, err := g.Enter(ctx)
		out <- admitted{leave, err}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.mu.Lock()
		n := g.queue.Len()
		g.mu.Unlock()
		if n > before {
			return out
		}
		select {
		case a := <-out:
			t.Fatalf("the request was not queued: %v", a.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never joined the queue")
		}
		time.Sleep(time.Millisecond)
	}
}

func mustEnter(t *testing.T, g *Gate) func() {
	t.Helper()
	leave, err := g.Enter(context.Background())
	if err != nil {
		t.Fatalf("enter: %v", err)
	}
	return leave
}

func wantBusy(t *testing.T, err error, m *metrics.Metrics, reason string, count float64) {
	t.Helper()
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	if n := testutil.ToFloat64(m.RequestsShed.WithLabelValues("write", reason)); n != count {
		t.Fatalf("%v requests shed for %s, want %v", n, reason, count)
	}
}

func TestGate(t *testing.T) {
	t.Parallel()

	t.Run("turns come first come first served", func(t *testing.T) {
		t.Parallel()
		g, m, _ := testGate(t, Capacity{Slots: 1, Queue: 2, MaxWait: time.Hour})
		first := mustEnter(t, g)
		second := queueUp(t, g, context.Background())
		third := queueUp(t, g, context.Background())
		if n := testutil.ToFloat64(m.RequestsQueued.WithLabelValues("write")); n != 2 {
			t.Fatalf("%v queued, want 2", n)
		}
		// The slot passes to the second as the first leaves, the third
		// still waiting.
		first()
		a := <-second
		if a.err != nil {
			t.Fatal(a.err)
		}
		if n := testutil.ToFloat64(m.RequestsQueued.WithLabelValues("write")); n != 1 {
			t.Fatalf("%v queued while the second is served, want 1", n)
		}
		a.leave()
		if b := <-third; b.err != nil {
			t.Fatal(b.err)
		} else {
			b.leave()
		}
		if n := testutil.ToFloat64(m.RequestsActive.WithLabelValues("write")); n != 0 {
			t.Fatalf("%v active after all left, want 0", n)
		}
	})

	t.Run("a full queue turns away at once", func(t *testing.T) {
		t.Parallel()
		g, m, _ := testGate(t, Capacity{Slots: 1, Queue: 1, MaxWait: time.Hour})
		leave := mustEnter(t, g)
		queued := queueUp(t, g, context.Background())
		_, err := g.Enter(context.Background())
		wantBusy(t, err, m, shedQueueFull, 1)
		leave()
		(<-queued).leave()
	})

	t.Run("no queue: the slots alone", func(t *testing.T) {
		t.Parallel()
		g, m, _ := testGate(t, Capacity{Slots: 2, Queue: 0, MaxWait: time.Hour})
		a, b := mustEnter(t, g), mustEnter(t, g)
		_, err := g.Enter(context.Background())
		wantBusy(t, err, m, shedQueueFull, 1)
		a()
		b()
		mustEnter(t, g)()
	})

	t.Run("a wait expected past MaxWait turns away at once", func(t *testing.T) {
		t.Parallel()
		// Two slots; requests take 100 ms: the first in the queue waits
		// 50 ms, the second 100 ms, the third 150 ms, past 120 ms.
		g, m, clock := testGate(t, Capacity{Slots: 2, Queue: 10, MaxWait: 120 * time.Millisecond})
		for range 3 {
			leave := mustEnter(t, g)
			clock.Advance(100 * time.Millisecond)
			leave()
		}
		a, b := mustEnter(t, g), mustEnter(t, g)
		q1 := queueUp(t, g, context.Background())
		q2 := queueUp(t, g, context.Background())
		_, err := g.Enter(context.Background())
		wantBusy(t, err, m, shedWait, 1)
		a()
		b()
		(<-q1).leave()
		(<-q2).leave()
	})

	t.Run("a queue that stands still is expected to go on standing", func(t *testing.T) {
		t.Parallel()
		// Requests took 10 ms, but the one served now has taken 60 ms and
		// the first in the queue has not moved since: the second would
		// wait 120 ms, past 100 ms, not the 20 ms the mean says.
		g, m, clock := testGate(t, Capacity{Slots: 1, Queue: 10, MaxWait: 100 * time.Millisecond})
		leave := mustEnter(t, g)
		clock.Advance(10 * time.Millisecond)
		leave()
		leave = mustEnter(t, g)
		first := queueUp(t, g, context.Background())
		clock.Advance(60 * time.Millisecond)
		_, err := g.Enter(context.Background())
		wantBusy(t, err, m, shedWait, 1)
		// Once it moves, the mean counts again.
		leave()
		a := <-first
		second := queueUp(t, g, context.Background())
		a.leave()
		(<-second).leave()
	})

	t.Run("the mean follows the service time", func(t *testing.T) {
		t.Parallel()
		g, _, clock := testGate(t, Capacity{Slots: 1, Queue: 10, MaxWait: time.Hour})
		serve := func(d time.Duration) {
			leave := mustEnter(t, g)
			clock.Advance(d)
			leave()
		}
		serve(100 * time.Millisecond)
		if g.mean != 100*time.Millisecond {
			t.Fatalf("mean %v after one request of 100ms", g.mean)
		}
		serve(600 * time.Millisecond) // 100 + (600-100)/5
		if g.mean != 200*time.Millisecond {
			t.Fatalf("mean %v, want 200ms", g.mean)
		}
		for range 30 {
			serve(10 * time.Millisecond)
		}
		if g.mean > 12*time.Millisecond {
			t.Fatalf("mean %v after 30 requests of 10ms, want it near 10ms", g.mean)
		}
	})

	t.Run("the backstop turns away a wait that proved long", func(t *testing.T) {
		t.Parallel()
		// No mean yet, so the request is queued; the slot is never given
		// back, so it is let go after twice MaxWait.
		g, m, _ := testGate(t, Capacity{Slots: 1, Queue: 1, MaxWait: time.Millisecond})
		leave := mustEnter(t, g)
		defer leave()
		_, err := g.Enter(context.Background())
		wantBusy(t, err, m, shedTimeout, 1)
		if n := testutil.ToFloat64(m.RequestsQueued.WithLabelValues("write")); n != 0 {
			t.Fatalf("%v queued after the backstop, want 0", n)
		}
	})

	t.Run("a client gone from the queue leaves it", func(t *testing.T) {
		t.Parallel()
		g, m, _ := testGate(t, Capacity{Slots: 1, Queue: 1, MaxWait: time.Hour})
		leave := mustEnter(t, g)
		ctx, cancel := context.WithCancel(context.Background())
		gone := queueUp(t, g, ctx)
		cancel()
		if a := <-gone; !errors.Is(a.err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", a.err)
		}
		if n := testutil.ToFloat64(m.RequestsQueued.WithLabelValues("write")); n != 0 {
			t.Fatalf("%v queued, want 0", n)
		}
		if n := testutil.CollectAndCount(m.RequestsShed); n != 0 {
			t.Fatalf("a client that went away counted as shed")
		}
		// The queue has room again, and the slot goes to the next.
		next := queueUp(t, g, context.Background())
		leave()
		(<-next).leave()
	})
}
