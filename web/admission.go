package web

import (
	"container/list"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
)

// Admission control. Every request but the static files, the health probes
// and the live seat map's socket is served in a slot of its kind. When the
// slots are taken it waits in a short queue, first come first served, if
// its turn is expected soon; otherwise it is answered 503 busy at once,
// with a Retry-After, rather than left to wait out its deadline behind
// everyone else. Reads and writes have slots of their own, so a page view
// never waits behind a checkout, and so have the payment provider's
// webhooks, so a crowd never turns a payment away.
//
// A slot is what may hold a database connection, and the pool has one
// connection per slot (plus the background workers'): an admitted request
// never waits for a connection, the wait that used to be unbounded.

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

// Admission is the capacity of each kind of request: reads (GET and HEAD:
// pages, fragments, seat maps, browsing), writes (every other method:
// holds, checkout, release, cancel, admin changes, login, sign-up) and the
// payment provider's webhooks. A Capacity without Slots is the kind's
// default (DefaultAdmission).
type Admission struct {
	Reads, Writes, Webhooks Capacity
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

// DefaultAdmission is the admission of a machine with cpus cores: two
// slots per core for reads and as many for writes (more would only queue
// on the cores, which the database often shares, and on seat locks), and
// two for webhooks.
func DefaultAdmission(cpus int) Admission {
	n := 2 * max(1, cpus)
	return Admission{
		Reads:    NewCapacity(n, DefaultMaxWait),
		Writes:   NewCapacity(n, DefaultMaxWait),
		Webhooks: NewCapacity(2, DefaultWebhookMaxWait),
	}
}

// Slots is how many requests are served at once, of every kind together:
// the database connections they may hold.
func (a Admission) Slots() int { return a.Reads.Slots + a.Writes.Slots + a.Webhooks.Slots }

// orDefault is a with def's capacity for each kind without slots, and the
// default wait for each without one.
func (a Admission) orDefault(def Admission) Admission {
	fill := func(c, def Capacity) Capacity {
		if c.Slots <= 0 {
			return def
		}
		c.Queue = max(0, c.Queue)
		if c.MaxWait <= 0 {
			c.MaxWait = def.MaxWait
		}
		return c
	}
	return Admission{
		Reads:    fill(a.Reads, def.Reads),
		Writes:   fill(a.Writes, def.Writes),
		Webhooks: fill(a.Webhooks, def.Webhooks),
	}
}

// errBusyCode is the code of a request turned away by admission control.
const errBusyCode = "busy"

// Retry-After of a busy answer: 2 to 5 seconds, at random, so that a crowd
// turned away together does not come back together.
const (
	busyRetryMin    = 2
	busyRetrySpread = 4
)

// errBusy is a request turned away at the door, with its own Retry-After.
// It never reached the route's middleware, so it says no-store itself: no
// cache may answer the retry with it.
func errBusy() *Error {
	e := retrying(NewError(http.StatusServiceUnavailable, errBusyCode,
		"Marquee is very busy right now. Try again in a few seconds."), busyRetryMin+rand.IntN(busyRetrySpread))
	e.Header[echo.HeaderCacheControl] = "no-store"
	return e
}

// Why a request was turned away: the label of metrics.RequestsShed.
const (
	shedQueueFull = "queue_full"
	shedWait      = "wait"
	shedTimeout   = "timeout"
)

// gates are the slots and queues of each kind of request.
type gates struct {
	reads, writes, webhooks *gate
}

func newGates(a Admission, m *metrics.Metrics, now func() time.Time) *gates {
	return &gates{
		reads:    newGate("read", a.Reads, m, now),
		writes:   newGate("write", a.Writes, m, now),
		webhooks: newGate("webhook", a.Webhooks, m, now),
	}
}

// of is the gate c's request goes through; nil: none, it is served at once.
func (g *gates) of(c echo.Context) *gate {
	switch c.Path() {
	// Files from memory and the probes cost next to nothing, and a probe
	// turned away would take a busy instance out of service. The live seat
	// map's socket lasts as long as its page; it is not a request to
	// take a turn for.
	case StaticRoute, HealthRoute, ReadyRoute, LiveRoute, QueueLiveRoute:
		return nil
	case WebhookRoute:
		return g.webhooks
	}
	switch c.Request().Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return g.reads
	}
	return g.writes
}

// admit serves each request in a slot of its kind, or answers it 503 busy
// at once. It answers that error itself, inside compress, as answerErrors
// does every other (which runs inside it, so that an error page's own
// reads are made in the request's slot).
func (s *Server) admit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		g := s.gates.of(c)
		if g == nil {
			return next(c)
		}
		leave, err := g.enter(c.Request().Context())
		if err != nil {
			c.Error(err)
			return nil
		}
		defer leave()
		return next(c)
	}
}

// gate admits the requests of one kind: at most Slots at once, the others
// in a FIFO queue of at most Queue, each queued only when its expected wait
// is within MaxWait.
type gate struct {
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
	given bool // under gate.mu: the slot is this turn's
}

func newGate(kind string, c Capacity, m *metrics.Metrics, now func() time.Time) *gate {
	return &gate{
		capacity: c, now: now,
		active: m.RequestsActive.WithLabelValues(kind),
		queued: m.RequestsQueued.WithLabelValues(kind),
		shed:   m.RequestsShed.MustCurryWith(prometheus.Labels{"kind": kind}),
	}
}

// enter takes a slot, waiting in the queue if the wait is expected to be
// short; leave gives the slot back. A request turned away gets errBusy; one
// whose client went away while it waited gets ctx's error.
func (g *gate) enter(ctx context.Context) (leave func(), err error) {
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
func (g *gate) expectedWait(place int, now time.Time) time.Duration {
	perTurn := g.mean / time.Duration(g.capacity.Slots)
	if g.queue.Len() > 0 {
		perTurn = max(perTurn, now.Sub(g.moved))
	}
	return perTurn * time.Duration(place)
}

// served starts the clock on a request given a slot, and returns what
// gives the slot back.
func (g *gate) served() (leave func()) {
	began := g.now()
	return func() { g.leave(g.now().Sub(began), true) }
}

// leave gives a slot to the first in the queue, or frees it. took is how
// long the request held it, when measured.
func (g *gate) leave(took time.Duration, measured bool) {
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

func (g *gate) turnAway(reason string) error {
	g.shed.WithLabelValues(reason).Inc()
	return errBusy()
}
