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

	ws       *http.Client // the websockets' handshakes, one connection each
	provider chan *apiclient.Conn
	// second is the unit of the waits before trying again (Retry-After
	// counts seconds): time.Second, shorter in tests.
	second time.Duration

	routes  [nRoutes]*tally
	sockets *sockets

	mu       sync.Mutex
	outcomes [nOutcomes]int
	problems []string // the first few surprises, for the report

	start      time.Time
	heldSeats  atomic.Int64
	soldSeats  atomic.Int64
	allHeld    atomic.Int64 // since start, when every seat was held or sold; 0: never
	soldOut    atomic.Int64 // since start, when every seat was sold; 0: never
	lastLeft   atomic.Int64 // since start
	active     atomic.Int64 // people in their visit now
	mostActive atomic.Int64
	open       atomic.Int64 // websockets open now
	mostOpen   atomic.Int64
}

func newCrowd(base string, show int64, seats int, secret []byte, cookies []string, window time.Duration, seed uint64) *crowd {
	c := &crowd{
		base: base, show: show, seats: seats, secret: secret, cookies: cookies, window: window, seed: seed,
		ws: &http.Client{Transport: &http.Transport{
			DialContext:       (&net.Dialer{Timeout: requestDeadline}).DialContext,
			DisableKeepAlives: true,
		}},
		provider: make(chan *apiclient.Conn, providerConns),
		second:   time.Second,
		sockets:  newSockets(),
	}
	for r := range c.routes {
		c.routes[r] = newTally()
	}
	return c
}

// run lets everyone arrive, evenly over the window from now on, and
// returns when the last has left (or ctx is done and all have stopped).
// Each person is a goroutine that sleeps while it waits on the app.
func (c *crowd) run(ctx context.Context) {
	var people sync.WaitGroup
	c.start = time.Now()
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
}

func (c *crowd) visit(ctx context.Context, i int) {
	raiseTo(&c.mostActive, c.active.Add(1))
	p := &person{c: c, cookie: c.cookies[i], rng: rand.New(rand.NewPCG(c.seed, uint64(i)))}
	out := p.visit(ctx)
	p.leave()
	c.active.Add(-1)
	raiseTo(&c.lastLeft, int64(time.Since(c.start)))
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

// visit is the person's visit, steps 1 to 5 of docs/benchmarks.md.
func (p *person) visit(ctx context.Context) outcome {
	c := p.c
	// 1. The show page, as the browser loads it (its assets are cached).
	a, ok := c.send(ctx, routePage, &p.conn, p.cookie, p.rng, http.MethodGet, fmt.Sprintf("/shows/%d", c.show), acceptGzip, nil)
	if ctx.Err() != nil {
		return interrupted
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
	// 3. The seat map's JSON.
	seats, ok := p.readSeats(ctx)
	if !ok {
		return failedSeatMap
	}
	// 4. Two seats side by side.
	var hold struct {
		HoldID      string `json:"hold_id"`
		AmountMinor int64  `json:"amount_minor"`
		Currency    string `json:"currency"`
	}
	for attempt := 1; ; attempt++ {
		pair, ok := pickPair(seats, p.rng)
		if !ok {
			return noPair
		}
		h := http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {fmt.Sprintf("burst-%d", attempt)}}
		body := fmt.Appendf(nil, `{"seats":[%q,%q]}`, pair[0], pair[1])
		a, ok := c.send(ctx, routeHold, &p.conn, p.cookie, p.rng, http.MethodPost, fmt.Sprintf("/api/v1/shows/%d/holds", c.show), h, body)
		if ctx.Err() != nil {
			return interrupted
		}
		if ok && (a.StatusCode == http.StatusCreated || a.StatusCode == http.StatusOK) {
			if err := json.Unmarshal(a.Body, &hold); err != nil || hold.HoldID == "" {
				c.problem("a hold's answer: %v: %.200s", err, a.Body)
				return failedHold
			}
			break
		}
		if !ok || a.StatusCode != http.StatusConflict {
			return failedHold
		}
		if attempt == holdAttempts {
			return lostThrice
		}
		if seats, ok = p.readSeats(ctx); !ok {
			return failedSeatMap
		}
	}
	if c.heldSeats.Add(2) >= int64(c.seats) {
		c.allHeld.CompareAndSwap(0, int64(time.Since(c.start)))
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
		c.soldOut.CompareAndSwap(0, int64(time.Since(c.start)))
	}
	return booked
}

// readSeats reads the seat map's JSON.
func (p *person) readSeats(ctx context.Context) ([]seat, bool) {
	c := p.c
	a, ok := c.send(ctx, routeSeatMap, &p.conn, p.cookie, p.rng, http.MethodGet, fmt.Sprintf("/api/v1/shows/%d/seats", c.show), acceptGzip, nil)
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
			}
		}
		if *conn != nil {
			began := time.Now()
			var err error
			a, err = (*conn).Send(method, path, h, body)
			took := time.Since(began)
			if a.StatusCode != 0 {
				c.routes[rt].answered(a.StatusCode, a.Body, took)
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
	ws, resp, err := websocket.Dial(dctx, fmt.Sprintf("%s/shows/%d/live?diff=1", c.base, c.show), &websocket.DialOptions{ //nolint:bodyclose // coder/websocket: the handshake response has no body to close
		HTTPClient:      c.ws,
		HTTPHeader:      http.Header{"Origin": {c.base}, "Cookie": {p.cookie}},
		CompressionMode: websocket.CompressionNoContextTakeover, // offered, as browsers do
	})
	if err != nil {
		if resp != nil {
			c.sockets.refused(fmt.Sprintf("HTTP %d", resp.StatusCode))
		} else if ctx.Err() == nil {
			c.sockets.refused(errorClass(err))
		}
		return
	}
	if err := ws.Write(dctx, websocket.MessageText, hello); err != nil {
		ws.CloseNow()
		c.sockets.refused("first message: " + errorClass(err))
		return
	}
	c.sockets.opened(time.Since(began))
	raiseTo(&c.mostOpen, c.open.Add(1))
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
				}
				c.sockets.closed(n, why)
				return
			}
			n++
		}
	}()
}

// leave closes the person's websocket (1001, going away, as a browser
// leaving the page) and connection.
func (p *person) leave() {
	p.leaving.Store(true)
	if p.ws != nil {
		p.ws.Close(websocket.StatusGoingAway, "")
		<-p.wsDone
		p.c.open.Add(-1)
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
