package linearizability_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/linearizability"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/sweeper"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// The test databases are copies of one template; Main drops it at the end.
func TestMain(m *testing.M) { pgtest.Main(m) }

const (
	clients  = 32
	holdTTL  = time.Second
	hallRows = 3
	hallCols = 4
	workload = 6 * time.Second
	// How long porcupine may take; a history it cannot decide in time fails.
	checkTimeout = 30 * time.Second
)

// 32 moviegoers, released together, hold, pay for, release, cancel and look
// at the 12 seats of one show over HTTP for a few seconds, with holds of one
// second and the sweeper running, while every request is recorded with the
// times of its call and its answer. Porcupine then checks that the history
// is linearizable under the model of this package, one partition per seat
// and per hold. On failure the visualization of the history is written to
// $LINEARIZABILITY_OUT (default testdata/out) and its path logged.
func TestSeatsAndHoldsAreLinearizable(t *testing.T) {
	e, show := newServer(t)
	checkOneClock(t, e)

	// Accounts made in the store, signed in over HTTP.
	users := e.FixtureUsers(t, clients)

	ctx, stop := context.WithCancel(context.Background())
	var swept sync.WaitGroup
	var sweepErrors bytes.Buffer // read once the sweeper has stopped
	sw := &sweeper.Sweeper{Store: e.Store, Interval: 100 * time.Millisecond, Batch: 100,
		Log: slog.New(slog.NewTextHandler(&sweepErrors, &slog.HandlerOptions{Level: slog.LevelError}))}
	swept.Go(func() { sw.Run(ctx) })

	rec := newRecorder()
	readers := make(chan struct{}, 6)
	epoch := time.Now()
	deadline := epoch.Add(workload)
	pgtest.Release(clients, func(i int) {
		c := &client{n: i, web: users[i], e: e, show: show, rec: rec, readers: readers,
			rng: rand.New(rand.NewPCG(uint64(i), uint64(epoch.UnixNano())))}
		c.run(deadline)
	})
	stop()
	swept.Wait()
	if sweepErrors.Len() > 0 {
		t.Errorf("the sweeper failed: %s", sweepErrors.String())
	}
	pgtest.CheckInvariants(t, e.Store)
	// An unexpected answer fails the test, and the history is checked all
	// the same, with that request as having changed nothing.
	for _, err := range rec.errors() {
		t.Error(err)
	}

	history := rec.history()
	t.Logf("%d operations in %s: %s", len(history), time.Since(epoch).Round(time.Millisecond), rec.summary())
	model := linearizability.NewModel(holdTTL, epoch)
	began := time.Now()
	res, info := porcupine.CheckOperationsVerbose(model, history, checkTimeout)
	t.Logf("porcupine: %s in %s", res, time.Since(began).Round(time.Millisecond))
	if res != porcupine.Ok || os.Getenv("LINEARIZABILITY_OUT") != "" {
		path, err := visualize(t, model, info)
		if err != nil {
			t.Errorf("write the visualization: %v", err)
		} else {
			t.Logf("visualization: %s", path)
		}
	}
	switch res {
	case porcupine.Illegal:
		for _, why := range linearizability.Explain(model, epoch, history, info) {
			t.Error(why)
		}
		t.Fatal("the history is not linearizable: see the visualization for the partition and the operation that cannot be placed")
	case porcupine.Unknown:
		t.Fatalf("porcupine could not decide within %s", checkTimeout)
	}
}

// newServer is the app's HTTP server (server.New, as serve runs it, with
// Sandbox Pay and rate limits off) on a fresh database, with holds of
// holdTTL, and a show of hallRows x hallCols seats.
//
// It is webtest.NewEnv but for the store's lock timeout: a hold that waits
// for a seat's row lock longer than LockTimeout three times answers
// seats_unavailable for all the seats it asked for without deciding (the
// fail-fast of design.md), which the model cannot tell from a decision.
// Here every wait ends in a decision.
func newServer(t *testing.T) (*webtest.Env, int64) {
	t.Helper()
	store := pgtest.NewStore(t, 16)
	store.LockTimeout = 10 * time.Second
	venue := pgtest.NewVenue(t, store)
	show := pgtest.NewShow(t, store, venue, hallRows, hallCols, time.Now().Add(72*time.Hour))
	cfg := web.Config{
		PublicURL: webtest.PublicURL, HoldTTL: holdTTL, MaxSeatsPerHold: webtest.MaxSeats,
		WebhookSecret: webtest.WebhookSecret, PasswordCost: 4,
		Sandbox:   webtest.NewSandbox(store, webtest.PublicURL, nil),
		Admission: webtest.PatientAdmission(),
	}
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(server.New(cfg, store, metrics.New(reg), nil))
	t.Cleanup(srv.Close)
	return &webtest.Env{
		T: t, Store: store, Venue: venue, Show: show, Srv: srv, Reg: reg, Cfg: cfg,
		HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second},
	}, show
}

// checkOneClock fails the test unless the database's clock reads between
// two readings of this process's: the model compares the deadlines the
// database sets with the times the test reads.
func checkOneClock(t *testing.T, e *webtest.Env) {
	t.Helper()
	for range 5 {
		before := time.Now()
		db := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT clock_timestamp()`)
		after := time.Now()
		if db.Before(before.Truncate(time.Microsecond)) || db.After(after) {
			t.Fatalf("the database's clock reads %s between %s and %s of this machine's: the check needs the database on this machine's clock",
				db.Format(time.RFC3339Nano), before.Format(time.RFC3339Nano), after.Format(time.RFC3339Nano))
		}
	}
}

// visualize writes porcupine's visualization of the check into the test's
// output folder.
func visualize(t *testing.T, model porcupine.Model, info porcupine.LinearizationInfo) (string, error) {
	dir := os.Getenv("LINEARIZABILITY_OUT")
	if dir == "" {
		dir = filepath.Join("testdata", "out")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s-%s.html", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().Format("20060102-150405"))
	path, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		return "", err
	}
	return path, porcupine.VisualizePath(model, info, path)
}

// recorder keeps the history, and short names for the server's ids so that
// the visualization reads h12, b3 and p40.
type recorder struct {
	mu    sync.Mutex
	ops   []porcupine.Operation
	names map[string]string
	next  map[string]int
	kinds map[string]int
	errs  []string
}

func newRecorder() *recorder {
	return &recorder{names: map[string]string{}, next: map[string]int{}, kinds: map[string]int{}}
}

func (r *recorder) name(prefix, id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.names[id]; ok {
		return n
	}
	r.next[prefix]++
	n := fmt.Sprintf("%s%d", prefix, r.next[prefix])
	r.names[id] = n
	return n
}

// newName is a fresh name, for the ids the test makes (payments).
func (r *recorder) newName(prefix string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next[prefix]++
	return fmt.Sprintf("%s%d", prefix, r.next[prefix])
}

func (r *recorder) add(lane int, in linearizability.Input, out linearizability.Output) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: lane, Input: in, Output: out, Call: in.Call, Return: in.Return})
	kind := in.Kind.String()
	switch {
	case out.Failed != "":
		kind += " failed"
	case in.Kind == linearizability.Hold && out.Held:
		kind += " held"
	case in.Kind == linearizability.Hold:
		kind += " taken"
	case in.Kind == linearizability.Pay:
		kind += " " + out.Outcome
		if out.Reason != "" {
			kind += " (" + out.Reason + ")"
		}
	case in.Kind == linearizability.Release || in.Kind == linearizability.ReadHold:
		kind += " " + out.State
	}
	r.kinds[kind]++
}

func (r *recorder) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errs) > 0
}

func (r *recorder) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

func (r *recorder) history() []porcupine.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ops)
}

func (r *recorder) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.kinds)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.kinds[k]))
	}
	return strings.Join(parts, ", ")
}

// client is one moviegoer in a browser of its own.
type client struct {
	n    int
	web  *webtest.Client
	e    *webtest.Env
	show int64
	rec  *recorder
	rng  *rand.Rand

	// readers bounds the reads of the seat map in flight, among all
	// clients. A read is an operation of every seat's partition, and each
	// read in flight at once multiplies the orders porcupine may have to
	// try (most of all to prove a history illegal), so a slow server, as
	// under the race detector, must not let dozens pile up. Holds, payments
	// and the rest are not bounded.
	readers chan struct{}
}

// hold is a hold the client has.
type hold struct {
	id, name string
	seats    []string
	until    time.Time
	amount   int64
	currency string
}

// do sends one request on lane and records it with its answer, parsed by
// parse. An answer parse does not expect is recorded as Failed, and as an
// error of the test.
func (c *client) do(lane int, in linearizability.Input, send func() *webtest.Response,
	parse func(*webtest.Response) (linearizability.Output, bool)) (linearizability.Output, bool) {
	in.User = c.n
	in.Call = time.Now().UnixNano()
	r := send()
	in.Return = time.Now().UnixNano()
	out, ok := parse(r)
	if !ok {
		answer := strings.TrimSpace(r.String())
		c.rec.fail("u%d %s %s %v: unexpected answer %s", c.n, in.Kind, in.Hold, in.Seats, answer)
		out = linearizability.Output{Failed: answer}
	}
	c.rec.add(lane, in, out)
	return out, ok
}

func (c *client) intn(n int) int { return c.rng.IntN(n) }

func (c *client) sleep(max time.Duration) {
	time.Sleep(time.Duration(c.intn(int(max/time.Millisecond)+1)) * time.Millisecond)
}

// twice runs req on the client's lane and, one time in every `in`, a twin of
// it at the same moment on a second lane: a double click, a provider that
// delivers twice.
func (c *client) twice(in int, req func(lane int)) {
	if c.intn(in) != 0 {
		req(c.n)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { req(c.n) })
	wg.Go(func() { req(c.n + clients) })
	wg.Wait()
}

func (c *client) run(deadline time.Time) {
	// Sales open: everyone asks for seats at once, before anyone has seen
	// the map (so all seats look available).
	var view map[string]linearizability.SeatView
	for first := true; time.Now().Before(deadline) && !c.rec.failed(); first = false {
		if !first {
			var ok bool
			if view, ok = c.readMap(); !ok {
				return
			}
			c.think()
		}
		h, ok := c.hold(c.pick(view))
		if !ok {
			return
		}
		if h == nil {
			c.sleep(200 * time.Millisecond) // and looks again
			continue
		}
		c.think()
		var bookingID string
		switch r := c.intn(100); {
		case r < 15: // changes their mind
			c.twice(4, func(lane int) { c.release(lane, h) })
		case r < 55: // pays in time
			c.sleep(holdTTL / 2)
			bookingID = c.pay(h)
		case r < 75: // pays around the deadline
			time.Sleep(time.Until(h.until.Add(time.Duration(c.intn(41)-20) * time.Millisecond)))
			bookingID = c.pay(h)
		case r < 88: // comes back after the deadline
			time.Sleep(time.Until(h.until.Add(time.Duration(c.intn(50)) * time.Millisecond)))
			c.readHold(h)
			if c.intn(2) == 0 {
				c.release(c.n, h)
			} else {
				bookingID = c.pay(h)
			}
		default: // looks at the hold, then lets go
			c.readHold(h)
			c.sleep(holdTTL / 4)
			c.release(c.n, h)
		}
		if bookingID != "" {
			c.sleep(150 * time.Millisecond)
			if c.intn(2) == 0 {
				c.readMap()
				c.think()
			}
			c.twice(5, func(lane int) { c.cancel(lane, h, bookingID) })
		}
		c.think()
	}
}

// think is the pause of a person between two clicks. It keeps the load such
// that requests take milliseconds, not the hundreds a saturated machine
// makes of them: the wider the requests, the more around each deadline the
// model must allow, and the more orders porcupine must try.
func (c *client) think() { time.Sleep(time.Duration(20+c.intn(60)) * time.Millisecond) }

// pick chooses one or two seats, mostly among those the map showed
// available.
func (c *client) pick(view map[string]linearizability.SeatView) []string {
	var all, available []string
	for r := range hallRows {
		for n := range hallCols {
			seat := fmt.Sprintf("%c%d", 'A'+r, n+1)
			all = append(all, seat)
			if v, seen := view[seat]; !seen || v.Status == linearizability.SeatAvailable {
				available = append(available, seat)
			}
		}
	}
	from := all
	if len(available) > 0 && c.intn(10) < 8 {
		from = available
	}
	n := 1
	if c.intn(10) < 3 && len(from) > 1 {
		n = 2
	}
	picked := slices.Clone(from)
	c.rng.Shuffle(len(picked), func(i, j int) { picked[i], picked[j] = picked[j], picked[i] })
	picked = picked[:n]
	slices.Sort(picked)
	return picked
}

func (c *client) readMap() (map[string]linearizability.SeatView, bool) {
	c.readers <- struct{}{}
	defer func() { <-c.readers }()
	out, ok := c.do(c.n, linearizability.Input{Kind: linearizability.ReadMap},
		func() *webtest.Response { return c.web.Get(fmt.Sprintf("/api/v1/shows/%d/seats", c.show)) },
		func(r *webtest.Response) (linearizability.Output, bool) {
			seats, _ := r.JSON["seats"].([]any)
			if r.Status != http.StatusOK || len(seats) != hallRows*hallCols {
				return linearizability.Output{}, false
			}
			out := linearizability.Output{Seats: map[string]linearizability.SeatView{}}
			for _, s := range seats {
				seat, _ := s.(map[string]any)
				id, _ := seat["id"].(string)
				status, _ := seat["status"].(string)
				mine, _ := seat["mine"].(bool)
				out.Seats[id] = linearizability.SeatView{Status: status, Mine: mine}
			}
			return out, true
		})
	return out.Seats, ok
}

// hold asks for seats: the hold it got, or nil when some were taken.
func (c *client) hold(seats []string) (*hold, bool) {
	var h *hold
	key := c.rec.newName("key")
	_, ok := c.do(c.n, linearizability.Input{Kind: linearizability.Hold, Seats: seats},
		func() *webtest.Response { return c.web.HoldOn(c.show, key, seats...) },
		func(r *webtest.Response) (linearizability.Output, bool) {
			switch {
			// 200 is a replay of the same request, which the HTTP client
			// may send again after a connection fails.
			case r.Status == http.StatusCreated || r.Status == http.StatusOK:
				until, err := time.Parse(time.RFC3339Nano, r.Str("expires_at"))
				if err != nil || !slices.Equal(r.Strs("seats"), seats) {
					return linearizability.Output{}, false
				}
				h = &hold{id: r.Str("hold_id"), name: c.rec.name("h", r.Str("hold_id")), seats: seats, until: until,
					amount: int64(r.Num("amount_minor")), currency: r.Str("currency")}
				return linearizability.Output{Held: true, Hold: h.name, Until: until.UnixNano()}, true
			case r.Status == http.StatusConflict && r.Str("error") == "seats_unavailable":
				return linearizability.Output{Taken: r.Strs("seats")}, true
			}
			return linearizability.Output{}, false
		})
	return h, ok
}

func (c *client) release(lane int, h *hold) {
	c.do(lane, linearizability.Input{Kind: linearizability.Release, Hold: h.name, Seats: h.seats},
		func() *webtest.Response { return c.web.Delete("/api/v1/holds/" + h.id) },
		func(r *webtest.Response) (linearizability.Output, bool) {
			switch {
			case r.Status == http.StatusOK:
				return linearizability.Output{State: r.Str("state")}, true
			case r.Status == http.StatusConflict && r.Str("error") == "hold_confirmed":
				return linearizability.Output{State: linearizability.StateConfirmed}, true
			}
			return linearizability.Output{}, false
		})
}

func (c *client) readHold(h *hold) {
	c.do(c.n, linearizability.Input{Kind: linearizability.ReadHold, Hold: h.name, Seats: nil},
		func() *webtest.Response { return c.web.Get("/api/v1/holds/" + h.id) },
		func(r *webtest.Response) (linearizability.Output, bool) {
			return linearizability.Output{State: r.Str("state")}, r.Status == http.StatusOK
		})
}

// pay reports a successful payment for h by the signed webhook: one, the
// same one twice at once, or two different ones at once. It returns the
// booking made, if any.
func (c *client) pay(h *hold) string {
	payments := []string{c.rec.newName("p")}
	switch c.intn(7) {
	case 0:
		payments = append(payments, payments[0])
	case 1:
		payments = append(payments, c.rec.newName("p"))
	}
	var mu sync.Mutex
	var booked string
	var wg sync.WaitGroup
	for i, p := range payments {
		wg.Go(func() {
			c.do(c.n+i*clients, linearizability.Input{Kind: linearizability.Pay, Hold: h.name, Payment: p, Seats: h.seats},
				func() *webtest.Response {
					return c.e.Webhook(webtest.WebhookBody{PaymentID: p, HoldID: h.id, AmountMinor: h.amount, Currency: h.currency, Status: "succeeded"})
				},
				func(r *webtest.Response) (linearizability.Output, bool) {
					if r.Status != http.StatusOK {
						return linearizability.Output{}, false
					}
					out := linearizability.Output{Outcome: r.Str("outcome"), Reason: r.Str("reason")}
					if id := r.Str("booking_id"); id != "" {
						out.Booking = c.rec.name("b", id)
						mu.Lock()
						booked = id
						mu.Unlock()
					}
					return out, true
				})
		})
	}
	wg.Wait()
	return booked
}

func (c *client) cancel(lane int, h *hold, bookingID string) {
	c.do(lane, linearizability.Input{Kind: linearizability.CancelBooking, Booking: c.rec.name("b", bookingID), Seats: h.seats},
		func() *webtest.Response { return c.web.Post("/api/v1/bookings/"+bookingID+"/cancel", nil) },
		func(r *webtest.Response) (linearizability.Output, bool) {
			return linearizability.Output{}, r.Status == http.StatusOK && r.Str("status") == "CANCELLED"
		})
}
