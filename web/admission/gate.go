// Package admission turns a crowd away at the door rather than let it wait
// out its deadline. A Gate serves the requests of one kind in a few slots at
// once. When the slots are taken, a request waits in a short queue, first
// come first served, if its turn is expected soon; otherwise it is turned
// away at once (ErrBusy), to come back in a few seconds, rather than left to
// wait behind everyone else.
//
// A slot is what may hold a database connection, and the pool has one
// connection per slot (plus the background workers'): an admitted request
// never waits for a connection, the wait that used to be unbounded.
package admission

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
)

// Capacity is how many requests of one kind are served at once and how
// many may wait for a turn.
type Capacity struct {
	// Slots is how many are served at once.
	Slots int
	// Queue is how many may wait for a turn; 0: none.
	Queue int
	// MaxWait is the longest wait a request is queued for: one whose
	// expected wait is longer is turned away at once. As a backstop, one
	// whose turn has not come after twice MaxWait is turned away then.
	// 0 = the kind's default.
	MaxWait time.Duration
}

const (
	// DefaultMaxWait bounds the wait of reads and writes: past it a person
	// is better told at once to come back in a few seconds. Twice it, the
	// backstop, is the "about a second" nobody admitted waits longer than.
	DefaultMaxWait = 500 * time.Millisecond
	// DefaultWebhookMaxWait is longer: a payment turned away waits for
	// the provider's retry, often minutes.
	DefaultWebhookMaxWait = 2 * time.Second
	// queuePerSlot sizes the default queues. The expected wait is what
	// turns requests away; the queue's length only bounds the memory a
	// crowd may take while service times are short.
	queuePerSlot = 64
)

// NewCapacity is slots served at once, the default queue (64 per slot) and
// maxWait.
func NewCapacity(slots int, maxWait time.Duration) Capacity {
	return Capacity{Slots: slots, Queue: queuePerSlot * slots, MaxWait: maxWait}
}

// ErrBusy is a request turned away at the door: nothing was done, and it
// may come again in a few seconds.
var ErrBusy = errors.New("busy: turned away at the door")

// Why a request was turned away: the label of metrics.RequestsShed.
const (
	shedQueueFull = "queue_full"
	shedWait      = "wait"
	shedTimeout   = "timeout"
)

// Gate admits the requests of one kind: at most Slots at once, the others
// in a FIFO queue of at most Queue, each queued only when its expected wait
// is within MaxWait.
type Gate struct {
	capacity Capacity
	now      func() time.Time
	active   prometheus.Gauge
	queued   prometheus.Gauge
	shed     *prometheus.CounterVec // by reason

	mu      sync.Mutex
	serving int
	queue   list.List // of *turn, first come first
	// mean is the smoothed time a request of this kind holds its slot,
	// which the expected wait is reckoned from: each request served weighs
	// a fifth, so the mean follows a change within ten or so of them.
	mean time.Duration
	// moved is when the queue last moved: a slot was given back, or the
	// queue began.
	moved time.Time
}

// meanShare is the share of the mean each new measurement moves: 1/5.
const meanShare = 5

// turn is a queued request's place: ready is closed when a slot is given
// to it.
type turn struct {
	ready chan struct{}
	given bool // under Gate.mu: the slot is this turn's
}

// NewGate is the gate of the requests of kind (the metrics' label), of
// capacity c, measuring the time they take by now.
func NewGate(kind string, c Capacity, m *metrics.Metrics, now func() time.Time) *Gate {
	return &Gate{
		capacity: c, now: now,
		active: m.RequestsActive.WithLabelValues(kind),
		queued: m.RequestsQueued.WithLabelValues(kind),
		shed:   m.RequestsShed.MustCurryWith(prometheus.Labels{"kind": kind}),
	}
}

// Enter takes a slot, waiting in the queue if the wait is expected to be
// short; leave gives the slot back. A request turned away gets ErrBusy; one
// whose client went away while it waited gets ctx's error.
func (g *Gate) Enter(ctx context.Context) (leave func(), err error) {
	g.mu.Lock()
	if g.serving < g.capacity.Slots && g.queue.Len() == 0 {
		g.serving++
		g.active.Set(float64(g.serving))
		g.mu.Unlock()
		return g.served(), nil
	}
	if g.queue.Len() >= g.capacity.Queue {
		g.mu.Unlock()
		return nil, g.turnAway(shedQueueFull)
	}
	now := g.now()
	if g.expectedWait(g.queue.Len()+1, now) > g.capacity.MaxWait {
		g.mu.Unlock()
		return nil, g.turnAway(shedWait)
	}
	if g.queue.Len() == 0 {
		g.moved = now
	}
	t := &turn{ready: make(chan struct{})}
	place := g.queue.PushBack(t)
	g.queued.Set(float64(g.queue.Len()))
	g.mu.Unlock()

	// The backstop, for an estimate that proved wrong: the requests served
	// turned slow, or hang.
	backstop := time.NewTimer(2 * g.capacity.MaxWait)
	defer backstop.Stop()
	select {
	case <-t.ready:
		return g.served(), nil
	case <-backstop.C:
	case <-ctx.Done():
	}
	g.mu.Lock()
	if t.given {
		// The turn came just as the wait ended.
		g.mu.Unlock()
		if err := ctx.Err(); err != nil {
			g.leave(0, false)
			return nil, fmt.Errorf("wait for a turn: %w", err)
		}
		return g.served(), nil
	}
	g.queue.Remove(place)
	g.queued.Set(float64(g.queue.Len()))
	g.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("wait for a turn: %w", err)
	}
	return nil, g.turnAway(shedTimeout)
}

// expectedWait is how long the request at place (1 for the first) in the
// queue is expected to wait at now: a turn comes every mean / Slots (the
// slots serve one request each per mean), or, while the queue has not
// moved for longer than that, every so long. A crowd slows the requests
// it joins, and the mean learns of it only as they end: a queue that
// stands still says so at once. Until a request has been served there is
// no mean, and the queue's length and the backstop alone bound the wait.
func (g *Gate) expectedWait(place int, now time.Time) time.Duration {
	perTurn := g.mean / time.Duration(g.capacity.Slots)
	if g.queue.Len() > 0 {
		perTurn = max(perTurn, now.Sub(g.moved))
	}
	return perTurn * time.Duration(place)
}

// served starts the clock on a request given a slot, and returns what
// gives the slot back.
func (g *Gate) served() (leave func()) {
	began := g.now()
	return func() { g.leave(g.now().Sub(began), true) }
}

// leave gives a slot to the first in the queue, or frees it. took is how
// long the request held it, when measured.
func (g *Gate) leave(took time.Duration, measured bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.moved = g.now()
	if measured {
		if g.mean == 0 {
			g.mean = took
		} else {
			g.mean += (took - g.mean) / meanShare
		}
	}
	if first := g.queue.Front(); first != nil {
		t := g.queue.Remove(first).(*turn)
		t.given = true
		close(t.ready)
		g.queued.Set(float64(g.queue.Len()))
		return
	}
	g.serving--
	g.active.Set(float64(g.serving))
}

func (g *Gate) turnAway(reason string) error {
	g.shed.WithLabelValues(reason).Inc()
	return ErrBusy
}
