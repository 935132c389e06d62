package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/web/admission"
)

// Admission control (see package admission). Every request but the static
// files, the health probes and the live seat map's socket is served in a
// slot of its kind, or answered 503 busy at once, with a Retry-After. Reads
// and writes have slots of their own, so a page view never waits behind a
// checkout, and so have the payment provider's webhooks, so a crowd never
// turns a payment away.

// Capacity is the admission of one kind of request, in Config's Admission.
type Capacity = admission.Capacity

// Admission is the capacity of each kind of request: reads (GET and HEAD:
// pages, fragments, seat maps, browsing), writes (every other method:
// holds, checkout, release, cancel, admin changes, login, sign-up) and the
// payment provider's webhooks. A Capacity without Slots is the kind's
// default (DefaultAdmission).
type Admission struct {
	Reads, Writes, Webhooks Capacity
}

// DefaultAdmission is the admission of a machine with cpus cores: two
// slots per core for reads and as many for writes (more would only queue
// on the cores, which the database often shares, and on seat locks), and
// two for webhooks.
func DefaultAdmission(cpus int) Admission {
	n := 2 * max(1, cpus)
	return Admission{
		Reads:    admission.NewCapacity(n, admission.DefaultMaxWait),
		Writes:   admission.NewCapacity(n, admission.DefaultMaxWait),
		Webhooks: admission.NewCapacity(2, admission.DefaultWebhookMaxWait),
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

// gates are the slots and queues of each kind of request.
type gates struct {
	reads, writes, webhooks *admission.Gate
}

func newGates(a Admission, m *metrics.Metrics, now func() time.Time) *gates {
	return &gates{
		reads:    admission.NewGate("read", a.Reads, m, now),
		writes:   admission.NewGate("write", a.Writes, m, now),
		webhooks: admission.NewGate("webhook", a.Webhooks, m, now),
	}
}

// of is the gate c's request goes through; nil: none, it is served at once.
func (g *gates) of(c echo.Context) *admission.Gate {
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
// at once. It answers that error itself, inside the compression
// middleware, as answerErrors does every other (which runs inside it, so
// that an error page's own reads are made in the request's slot).
func (s *Server) admit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		g := s.gates.of(c)
		if g == nil {
			return next(c)
		}
		leave, err := g.Enter(c.Request().Context())
		if err != nil {
			c.Error(err)
			return nil
		}
		defer leave()
		return next(c)
	}
}
