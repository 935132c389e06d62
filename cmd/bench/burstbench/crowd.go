package burstbench

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/internal/payment"
)

const (
	// requestDeadline is each request's client deadline, a browser's
	// patience: the server's own deadline is 10 s too.
	requestDeadline = 10 * time.Second
	// maxRetries bounds the tries again of one request after a 503 (after
	// its Retry-After) or no answer (after about a second, on a new
	// connection). Retrying is safe: a hold is replayed by its
	// Idempotency-Key, a checkout returns the one open, a webhook the
	// payment's stored outcome.
	maxRetries = 3
	// maxRetryAfter caps a Retry-After waited for, in seconds.
	maxRetryAfter = 30
	// holdAttempts is how many times a person tries for seats, each after
	// reading the seat map again, before giving up.
	holdAttempts = 3
	// providerConns is how many idle keep-alive connections the payment
	// provider keeps for its webhooks.
	providerConns = 16
)

// crowd is one cell's people arriving at one show of the app at base.
type crowd struct {
	base    string
	show    int64
	seats   int    // the show's
	secret  []byte // the webhooks'
	cookies []string
	window  time.Duration
	seed    uint64
	pick    Pick
	room    bool             // the show's waiting room is on: everyone queues first
	think   [2]time.Duration // a person thinks from think[0] to think[1] before holding

	ws       *http.Client // the websockets' handshakes, one connection each
	provider chan *apiclient.Conn
	// second is the unit of the waits before trying again (Retry-After
	// counts seconds): time.Second, shorter in tests.
	second time.Duration

	routes       [nRoutes]*tally
	sockets      *sockets // the live seat map's
	queueSockets *sockets // the waiting room's
	queue        *queueFigures
	broke        *firsts

	mu       sync.Mutex
	outcomes [nOutcomes]int
	problems []string // the first few surprises, for the report

	// gone is done once the seats are gone (the show sold out, or someone
	// admitted found no seats left): whoever still waits in the room
	// leaves, as they would when its page said so.
	gone     context.Context
	markGone context.CancelFunc

	start         time.Time
	heldSeats     atomic.Int64
	soldSeats     atomic.Int64
	allHeld       atomic.Int64 // since start, when every seat was held or sold; 0: never
	soldOut       atomic.Int64 // since start, when every seat was sold; 0: never
	goneAt        atomic.Int64 // since start, when the seats were gone; 0: never
	lastLeft      atomic.Int64 // since start
	active        atomic.Int64 // people in their visit now
	mostActive    atomic.Int64
	open          atomic.Int64 // live seat map websockets open now
	mostOpen      atomic.Int64
	queueOpen     atomic.Int64 // waiting room websockets open now
	mostQueueOpen atomic.Int64
	mostSockets   atomic.Int64 // of both kinds at once
}

func newCrowd(base string, show int64, seats int, secret []byte, cookies []string, window time.Duration, seed uint64) *crowd {
	c := &crowd{
		base: base, show: show, seats: seats, secret: secret, cookies: cookies, window: window, seed: seed,
		ws: &http.Client{Transport: &http.Transport{
			DialContext:       (&net.Dialer{Timeout: requestDeadline}).DialContext,
			DisableKeepAlives: true,
		}},
		provider:     make(chan *apiclient.Conn, providerConns),
		second:       time.Second,
		sockets:      newSockets(),
		queueSockets: newSockets(),
		queue:        &queueFigures{},
		broke:        newFirsts(),
	}
	c.gone, c.markGone = context.WithCancel(context.Background())
	for r := range c.routes {
		c.routes[r] = newTally()
	}
	return c
}

// since is the time from the first arrival to now.
func (c *crowd) since() time.Duration { return time.Since(c.start) }

// seatsGone notes that the seats are gone, at the first call.
func (c *crowd) seatsGone() {
	if c.goneAt.CompareAndSwap(0, int64(c.since())) {
		c.markGone()
	}
}

// opened counts a websocket opened (live is the seat map's, else the
// waiting room's) and raises the peaks.
func (c *crowd) opened(live bool) {
	if live {
		raiseTo(&c.mostOpen, c.open.Add(1))
	} else {
		raiseTo(&c.mostQueueOpen, c.queueOpen.Add(1))
	}
	raiseTo(&c.mostSockets, c.open.Load()+c.queueOpen.Load())
}

func (c *crowd) closed(live bool) {
	if live {
		c.open.Add(-1)
	} else {
		c.queueOpen.Add(-1)
	}
}

// run lets everyone arrive, evenly over the window from start (now,
// unless set), and returns when the last has left (or ctx is done and all
// have stopped). Each person is a goroutine that sleeps while it waits on
// the app.
func (c *crowd) run(ctx context.Context) {
	var people sync.WaitGroup
	stop := context.AfterFunc(ctx, c.markGone)
	defer stop()
	defer c.markGone()
	if c.start.IsZero() {
		c.start = time.Now()
	}
	n := len(c.cookies)
	for i := range n {
		if !sleep(ctx, time.Until(c.start.Add(time.Duration(i)*c.window/time.Duration(n)))) {
			c.mu.Lock()
			c.outcomes[interrupted] += n - i
			c.mu.Unlock()
			break
		}
		people.Go(func() { c.visit(ctx, i) })
	}
	people.Wait()
	close(c.provider)
	for conn := range c.provider {
		conn.Close()
	}
	c.ws.CloseIdleConnections()
}

// span is the time from the first arrival to the last departure.
func (c *crowd) span() time.Duration { return time.Duration(c.lastLeft.Load()) }

// person is one visitor: signed in, with a keep-alive connection of their
// own and, once the page is up, the live seat map's websocket.
type person struct {
	c       *crowd
	cookie  string
	rng     *rand.Rand
	conn    *apiclient.Conn
	ws      *websocket.Conn
	wsDone  chan struct{}
	leaving atomic.Bool
	// seatMapStatus is the last seat map's status, 0 for none.
	seatMapStatus int
}

func (c *crowd) visit(ctx context.Context, i int) {
	raiseTo(&c.mostActive, c.active.Add(1))
	p := &person{c: c, cookie: c.cookies[i], rng: rand.New(rand.NewPCG(c.seed, uint64(i)))}
	out := p.visit(ctx)
	p.leave()
	c.active.Add(-1)
	raiseTo(&c.lastLeft, int64(c.since()))
	if out.broken() {
		c.broke.note("a person "+outcomeNames[out], c.since())
	}
	c.mu.Lock()
	c.outcomes[out]++
	c.mu.Unlock()
}

// problem notes a surprise (an answer the benchmark cannot read); the
// report lists the first few.
func (c *crowd) problem(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.problems) < 5 {
		c.problems = append(c.problems, fmt.Sprintf(format, args...))
	}
}

var acceptGzip = http.Header{"Accept-Encoding": {"gzip"}}

// visit is the person's visit, the steps of docs/benchmarks.md: the
// waiting room when it is on, then the show page and its live seat map,
// a moment's thought, two seats and the payment.
func (p *person) visit(ctx context.Context) outcome {
	c := p.c
	if c.room {
		if out, admitted := p.wait(ctx); !admitted {
			return out
		}
	}
	// 1. The show page, as the browser loads it (its assets are cached).
	a, ok := c.send(ctx, routePage, &p.conn, p.cookie, p.rng, http.MethodGet, fmt.Sprintf("/shows/%d", c.show), acceptGzip, nil)
	if ctx.Err() != nil {
		return interrupted
	}
	if ok && a.StatusCode == http.StatusSeeOther {
		return sentBack
	}
	if !ok || a.StatusCode != http.StatusOK {
		return noPage
	}
	html, done, err := decoded(a)
	if err != nil {
		c.problem("the show page: %v", err)
		return noPage
	}
	shown, ok := pageShows(html)
	if !ok {
		c.problem("the show page has no seats: %.200s", html)
	}
	done()
	if !ok {
		return noPage
	}
	// 2. The live seat map, open for the rest of the visit.
	p.watch(ctx, shown)
	// A moment's thought, while the live seat map keeps the page current.
	if !sleep(ctx, p.thinkTime()) {
		return interrupted
	}
	// 3 and 4. Two seats.
	var hold heldSeats
	var out outcome
	if c.pick == BestAvailable {
		hold, out = p.holdBest(ctx)
	} else {
		hold, out = p.holdByHand(ctx)
	}
	switch out {
	case booked: // held: on to paying
	case noPair, noSeats:
		c.seatsGone()
		return out
	default:
		return out
	}
	if c.heldSeats.Add(2) >= int64(c.seats) {
		c.allHeld.CompareAndSwap(0, int64(c.since()))
	}
	// 5. Pay: the checkout, then the provider's signed webhook.
	a, ok = c.send(ctx, routeCheckout, &p.conn, p.cookie, p.rng, http.MethodPost, "/api/v1/holds/"+hold.HoldID+"/checkout", nil, nil)
	if ctx.Err() != nil {
		return interrupted
	}
	if !ok || (a.StatusCode != http.StatusCreated && a.StatusCode != http.StatusOK) {
		return failedCheckout
	}
	if !c.pay(ctx, p.rng, hold.HoldID, hold.AmountMinor, hold.Currency) {
		if ctx.Err() != nil {
			return interrupted
		}
		return failedPayment
	}
	if c.soldSeats.Add(2) >= int64(c.seats) {
		c.soldOut.CompareAndSwap(0, int64(c.since()))
		c.seatsGone()
	}
	return booked
}

// thinkTime is how long the person looks at the page before holding: a
// random time from think[0] to think[1].
func (p *person) thinkTime() time.Duration {
	lo, hi := p.c.think[0], p.c.think[1]
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(p.rng.Int64N(int64(hi-lo)+1))
}

// heldSeats is what the person reads of a hold's answer.
type heldSeats struct {
	HoldID      string `json:"hold_id"`
	AmountMinor int64  `json:"amount_minor"`
	Currency    string `json:"currency"`
}

// holdByHand reads the seat map and holds two seats side by side picked
// from it; on a 409 it reads the map again and picks again, holdAttempts
// tries in all. The map is read after the person thought: what the live
// seat map would have shown by then. The outcome is booked for a hold
// made.
func (p *person) holdByHand(ctx context.Context) (heldSeats, outcome) {
	seats, ok := p.readSeats(ctx)
	if ctx.Err() != nil {
		return heldSeats{}, interrupted
	}
	if !ok {
		return heldSeats{}, p.refusedSeatMap()
	}
	for attempt := 1; ; attempt++ {
		pair, ok := pickPair(seats, p.rng)
		if !ok {
			return heldSeats{}, noPair
		}
		body := fmt.Appendf(nil, `{"seats":[%q,%q]}`, pair[0], pair[1])
		hold, out, retry := p.tryHold(ctx, attempt, body)
		if !retry {
			return hold, out
		}
		if attempt == holdAttempts {
			return heldSeats{}, lostThrice
		}
		if seats, ok = p.readSeats(ctx); !ok {
			if ctx.Err() != nil {
				return heldSeats{}, interrupted
			}
			return heldSeats{}, p.refusedSeatMap()
		}
	}
}

// holdBest asks the server for the two best seats free. A 409
// not_enough_seats means fewer than two are free: the person leaves. Any
// other 409 is tried again, holdAttempts tries in all.
func (p *person) holdBest(ctx context.Context) (heldSeats, outcome) {
	for attempt := 1; ; attempt++ {
		hold, out, retry := p.tryHold(ctx, attempt, []byte(`{"best_available":{"count":2}}`))
		if !retry {
			return hold, out
		}
		if attempt == holdAttempts {
			return heldSeats{}, lostThrice
		}
	}
}

// tryHold posts one hold (attempt numbers its Idempotency-Key). retry is
// true for a 409 other than not_enough_seats: the seats were taken, pick
// again; otherwise the outcome is booked for a hold made, or why not.
func (p *person) tryHold(ctx context.Context, attempt int, body []byte) (hold heldSeats, out outcome, retry bool) {
	c := p.c
	h := http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {fmt.Sprintf("burst-%d", attempt)}}
	a, ok := c.send(ctx, routeHold, &p.conn, p.cookie, p.rng, http.MethodPost, fmt.Sprintf("/api/v1/shows/%d/holds", c.show), h, body)
	switch {
	case ctx.Err() != nil:
		return hold, interrupted, false
	case ok && (a.StatusCode == http.StatusCreated || a.StatusCode == http.StatusOK):
		if err := json.Unmarshal(a.Body, &hold); err != nil || hold.HoldID == "" {
			c.problem("a hold's answer: %v: %.200s", err, a.Body)
			return hold, failedHold, false
		}
		return hold, booked, false
	case ok && a.StatusCode == http.StatusConflict && errorCode(a.Body) == "not_enough_seats":
		return hold, noSeats, false
	case ok && a.StatusCode == http.StatusConflict:
		return hold, lostThrice, true
	case ok && a.StatusCode == http.StatusForbidden && errorCode(a.Body) == "queue_required":
		return hold, queueRequired, false
	}
	return hold, failedHold, false
}

// refusedSeatMap is why the seat map did not load: with the waiting room
// on, a 403 queue_required is the room turning an admitted person away.
func (p *person) refusedSeatMap() outcome {
	if p.seatMapStatus == http.StatusForbidden {
		return queueRequired
	}
	return failedSeatMap
}

// readSeats reads the seat map's JSON.
func (p *person) readSeats(ctx context.Context) ([]seat, bool) {
	c := p.c
	a, ok := c.send(ctx, routeSeatMap, &p.conn, p.cookie, p.rng, http.MethodGet, fmt.Sprintf("/api/v1/shows/%d/seats", c.show), acceptGzip, nil)
	p.seatMapStatus = a.StatusCode
	if !ok || a.StatusCode != http.StatusOK {
		return nil, false
	}
	b, done, err := decoded(a)
	if err == nil {
		var seats []seat
		seats, err = parseSeatMap(b)
		done()
		if err == nil {
			return seats, true
		}
	}
	c.problem("the seat map: %v", err)
	return nil, false
}

// pay sends the payment's webhook as the provider would once the person
// paid: signed with the secret the app was given, on one of the
// provider's own connections. It reports whether the payment booked.
func (c *crowd) pay(ctx context.Context, rng *rand.Rand, holdID string, amount int64, currency string) bool {
	body, err := json.Marshal(map[string]any{
		"payment_id": fmt.Sprintf("pay_%016x%08x", rng.Uint64(), rng.Uint32()), "hold_id": holdID,
		"amount_minor": amount, "currency": currency, "status": "succeeded",
		"captured_at": time.Now().UTC().Format(time.RFC3339Nano),
	})
	if err != nil {
		c.problem("the webhook's body: %v", err)
		return false
	}
	h := http.Header{"Content-Type": {"application/json"}, payment.SignatureHeader: {payment.Sign(c.secret, time.Now(), body)}}
	var conn *apiclient.Conn
	select {
	case conn = <-c.provider:
	default: // send dials one
	}
	a, ok := c.send(ctx, routeWebhook, &conn, "", rng, http.MethodPost, "/payments/webhook", h, body)
	if conn != nil {
		select {
		case c.provider <- conn:
		default:
			conn.Close()
		}
	}
	if !ok || a.StatusCode != http.StatusOK {
		return false
	}
	var conf struct {
		Outcome string `json:"outcome"`
	}
	if err := json.Unmarshal(a.Body, &conf); err != nil || conf.Outcome != "BOOKED" {
		c.problem("a payment did not book: %.200s", a.Body)
		return false
	}
	return true
}

// send makes one request over *conn, dialled when nil, as a page's script
// or an app would: again after a 503's Retry-After (with jitter), and on a
// new connection after no answer, up to maxRetries times. Each try is
// counted on rt's tally. ok is false when no try was answered, or the
// last answer was still a 503.
func (c *crowd) send(ctx context.Context, rt route, conn **apiclient.Conn, cookie string, rng *rand.Rand,
	method, path string, h http.Header, body []byte) (a apiclient.Answer, ok bool) {
	for try := 0; ; try++ {
		wait := c.second // after no answer
		if *conn == nil {
			nc, err := apiclient.Dial(ctx, c.base)
			if err == nil {
				nc.Deadline = requestDeadline
				nc.SetCookie(cookie)
				*conn = nc
			} else if ctx.Err() == nil {
				c.routes[rt].failed(err)
				c.broke.note(routeNames[rt]+": no connection ("+errorClass(err)+")", c.since())
			}
		}
		if *conn != nil {
			began := time.Now()
			var err error
			a, err = (*conn).Send(method, path, h, body)
			took := time.Since(began)
			if a.StatusCode != 0 {
				c.routes[rt].answered(a, took)
				if a.StatusCode >= 500 {
					c.broke.note(fmt.Sprintf("%s: %d %s", routeNames[rt], a.StatusCode, errorCode(a.Body)), c.since())
				}
				if err != nil { // apiclient.ErrClosed: the answer is whole
					(*conn).Close()
					*conn = nil
				}
				if a.StatusCode != http.StatusServiceUnavailable {
					return a, true
				}
				wait = retryAfter(a, c.second)
			} else {
				if ctx.Err() == nil {
					c.routes[rt].failed(err)
					c.broke.note(routeNames[rt]+": no answer ("+errorClass(err)+")", c.since())
				}
				(*conn).Close()
				*conn = nil
			}
		}
		if try == maxRetries || !sleep(ctx, wait+time.Duration(rng.Int64N(int64(wait/2)+1))) {
			return a, false
		}
	}
}

// retryAfter is the wait a 503 asks for: its Retry-After in seconds (1 if
// it has none), at most maxRetryAfter seconds.
func retryAfter(a apiclient.Answer, second time.Duration) time.Duration {
	s, err := strconv.Atoi(a.Header.Get("Retry-After"))
	if err != nil || s < 1 {
		s = 1
	}
	return time.Duration(min(s, maxRetryAfter)) * second
}

var (
	gzipReaders sync.Pool // *gzip.Reader
	bodies      sync.Pool // *bytes.Buffer, each about a page's size once used
)

// decoded is a's body, gunzipped when it came gzipped, and the function
// that gives its buffer back once the body has been read: the page of a
// 1,000-seat show and its seat map are read thousands of times.
func decoded(a apiclient.Answer) (body []byte, done func(), err error) {
	if a.Header.Get("Content-Encoding") != "gzip" {
		return a.Body, func() {}, nil
	}
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(a.Body))
	} else {
		err = zr.Reset(bytes.NewReader(a.Body))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("gunzip: %w", err)
	}
	defer gzipReaders.Put(zr)
	buf, _ := bodies.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	if _, err := buf.ReadFrom(zr); err != nil {
		bodies.Put(buf)
		return nil, nil, fmt.Errorf("gunzip: %w", err)
	}
	return buf.Bytes(), func() { bodies.Put(buf) }, nil
}

// watch opens the live seat map's websocket as the show page does
// (?diff=1, then what the page shows) and reads its messages until the
// person leaves. A socket that does not open is counted and the visit goes
// on: the page works without it.
func (p *person) watch(ctx context.Context, shown map[string]string) {
	c := p.c
	hello, err := json.Marshal(map[string]any{"seats": shown})
	if err != nil {
		c.problem("the socket's first message: %v", err)
		return
	}
	dctx, cancel := context.WithTimeout(ctx, requestDeadline)
	defer cancel()
	began := time.Now()
	ws, err := p.dial(dctx, c.sockets, fmt.Sprintf("/shows/%d/live?diff=1", c.show))
	if err != nil {
		return
	}
	if err := ws.Write(dctx, websocket.MessageText, hello); err != nil {
		ws.CloseNow()
		c.refused(c.sockets, "first message: "+errorClass(err))
		return
	}
	c.sockets.opened(time.Since(began))
	c.opened(true)
	ws.SetReadLimit(1 << 20)
	p.ws, p.wsDone = ws, make(chan struct{})
	go func() {
		defer close(p.wsDone)
		var n int64
		for {
			_, r, err := ws.Reader(context.Background())
			if err == nil {
				_, err = io.Copy(io.Discard, r)
			}
			if err != nil {
				why := ""
				if !p.leaving.Load() {
					why = closeReason(err)
					c.broke.note("live seat map socket ended by the server ("+why+")", c.since())
				}
				c.sockets.closed(n, why)
				return
			}
			n++
		}
	}()
}

// dial opens the websocket at path with the person's cookies and the
// app's Origin, as the page's script does. A socket that does not open is
// counted on s.
func (p *person) dial(ctx context.Context, s *sockets, path string) (*websocket.Conn, error) {
	c := p.c
	ws, resp, err := websocket.Dial(ctx, c.base+path, &websocket.DialOptions{ //nolint:bodyclose // coder/websocket: the handshake response has no body to close
		HTTPClient:      c.ws,
		HTTPHeader:      http.Header{"Origin": {c.base}, "Cookie": {p.cookie}},
		CompressionMode: websocket.CompressionNoContextTakeover, // offered, as browsers do
	})
	if err != nil {
		if resp != nil {
			c.refused(s, fmt.Sprintf("HTTP %d", resp.StatusCode))
		} else if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			c.refused(s, errorClass(err))
		}
		return nil, err
	}
	return ws, nil
}

// refused counts a websocket of s that did not open, and why.
func (c *crowd) refused(s *sockets, why string) {
	s.refused(why)
	kind := "live seat map"
	if s == c.queueSockets {
		kind = "waiting room"
	}
	c.broke.note(kind+" socket did not open ("+why+")", c.since())
}

// leave closes the person's websocket (1001, going away, as a browser
// leaving the page) and connection.
func (p *person) leave() {
	p.leaving.Store(true)
	if p.ws != nil {
		p.ws.Close(websocket.StatusGoingAway, "")
		<-p.wsDone
		p.c.closed(true)
	}
	if p.conn != nil {
		p.conn.Close()
	}
}

// closeReason names why a websocket ended: its close code, or the error.
func closeReason(err error) string {
	if code := websocket.CloseStatus(err); code != -1 {
		return fmt.Sprintf("closed %d", code)
	}
	return errorClass(err)
}

// errorClass names a network error by its kind: its text would name ports.
func errorClass(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "reset"
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "out of file descriptors"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "out of ports"
	}
	return "other error"
}

// sleep waits d, or less when ctx is done first; it reports whether ctx
// is still going.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// raiseTo sets *most to v when v is more.
func raiseTo(most *atomic.Int64, v int64) {
	for {
		m := most.Load()
		if v <= m || most.CompareAndSwap(m, v) {
			return
		}
	}
}
