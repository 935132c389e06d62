package live_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/PuerkitoBio/goquery"
	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web/server"
)

// liveWithin bounds the wait for a committed change to show on a watcher's
// socket. It is a timeout, not a latency target (the benchmark measures
// that): generous, so a loaded machine never fails a correct server.
const liveWithin = 20 * time.Second

// newLiveEnv is newEnv with the live seat map on.
func newLiveEnv(t *testing.T, opts ...webtest.EnvOption) (*webtest.Env, *live.Hub) {
	t.Helper()
	var hub *live.Hub
	e := webtest.NewEnv(t, append(opts, func(e *webtest.Env) {
		// The store is made after the options: read it when the hub needs it.
		hub = live.NewHub(func(ctx context.Context, show int64, seats []string) ([]booking.Seat, error) {
			return e.Store.SeatStates(ctx, show, seats)
		}, slog.New(slog.DiscardHandler))
		e.Cfg.Live = hub
	})...)
	webtest.RunLive(t, hub, nil, e.Store, slog.New(slog.DiscardHandler))
	return e, hub
}

// instance is another app instance on the env's database: its own pool,
// hub, listener, notifier and port, as a second `marquee serve` would be.
type instance struct {
	url    string
	hub    *live.Hub
	closed *closeLog // nil unless made with smallBuffers
}

// newInstance starts one. With smallBuffers its sockets get tiny kernel
// send buffers, so a client that does not read blocks the writer at once,
// and the instance notes when it closes each connection.
func newInstance(e *webtest.Env, t *testing.T, smallBuffers bool) *instance {
	t.Helper()
	pgtest.Reserve(t, 4)
	pool, err := postgres.Connect(context.Background(), e.Store.Pool().Config().ConnString(), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.NewStore(pool)
	hub := live.NewHub(store.SeatStates, slog.New(slog.DiscardHandler))
	cfg := e.Cfg
	cfg.Live = hub
	reg := prometheus.NewRegistry()
	srv := httptest.NewUnstartedServer(server.New(cfg, store, metrics.New(reg), nil))
	inst := &instance{hub: hub}
	if smallBuffers {
		inst.closed = &closeLog{closed: map[string]chan struct{}{}}
		srv.Listener = smallSendBuffers{srv.Listener, inst.closed}
	}
	srv.Start()
	inst.url = srv.URL
	t.Cleanup(srv.Close)
	webtest.RunLive(t, hub, nil, store, slog.New(slog.DiscardHandler))
	return inst
}

// closeLog notes, by the client's address, when the server closed a connection.
type closeLog struct {
	mu     sync.Mutex
	closed map[string]chan struct{}
}

func (l *closeLog) ch(addr string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed[addr] == nil {
		l.closed[addr] = make(chan struct{})
	}
	return l.closed[addr]
}

type smallSendBuffers struct {
	net.Listener
	log *closeLog
}

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		if err := tc.SetWriteBuffer(4096); err != nil {
			// Not a test of slow clients without it; an error from Accept
			// would only stop the server in silence.
			panic(fmt.Sprintf("shrink the send buffer: %v", err))
		}
	}
	return &notedConn{Conn: c, closed: l.log.ch(c.RemoteAddr().String())}, nil
}

type notedConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *notedConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// handshake is what the server answered a websocket dial: its status (0:
// no answer) and, when it refused, the start of its body.
type handshake struct {
	status int
	body   []byte
}

// dialLive opens GET /shows/{show}/live at base with the Origin given ("" for
// none), as the browser whose cookies are in jar (nil: a guest).
func dialLive(base string, show int64, origin string, jar http.CookieJar) (*websocket.Conn, handshake, error) {
	conn, hs, _, err := dialLiveFrom(base, fmt.Sprintf("/shows/%d/live", show), origin, jar, false)
	return conn, hs, err
}

// dialLiveFrom is dialLive that also returns the client's own address; with
// tinyReadBuffer its kernel receive buffer is tiny.
func dialLiveFrom(base, path string, origin string, jar http.CookieJar, tinyReadBuffer bool) (*websocket.Conn, handshake, string, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	var local string
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return c, err
		}
		if tc, ok := c.(*net.TCPConn); ok && tinyReadBuffer {
			if err := tc.SetReadBuffer(4096); err != nil {
				c.Close()
				return nil, fmt.Errorf("shrink the receive buffer: %w", err)
			}
		}
		local = c.LocalAddr().String()
		return c, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), liveWithin)
	defer cancel()
	u := "ws" + strings.TrimPrefix(base, "http") + path
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: h, HTTPClient: &http.Client{Jar: jar, Transport: tr}}) //nolint:bodyclose // coder/websocket: the handshake response's body need not be closed (none on success, a buffered copy on refusal)
	var hs handshake
	if resp != nil {
		hs.status = resp.StatusCode
		if resp.Body != nil {
			b, rerr := io.ReadAll(resp.Body)
			if rerr != nil {
				err = errors.Join(err, fmt.Errorf("read the handshake's body: %w", rerr))
			}
			hs.body = b
		}
	}
	return conn, hs, local, err
}

// watcher is one browser's socket on the live seat map: a reader keeps
// the last status each seat was sent with.
type watcher struct {
	t    *testing.T
	name string
	conn *websocket.Conn

	mu       sync.Mutex
	messages int
	status   map[string]string // seat -> data-status last sent
	updates  map[string]int    // seat -> times sent after the first message
	bad      []string          // malformed fragments
	err      error             // how the socket ended
	changed  chan struct{}
}

func watch(e *webtest.Env, t *testing.T, name, base string, show int64, jar http.CookieJar) *watcher {
	t.Helper()
	return watchPath(e, t, name, base, fmt.Sprintf("/shows/%d/live", show), jar, nil)
}

// watchShowing is watch for a page that shows have (seat -> status, every
// seat not shown as available), as the show page connects: ?diff=1, then
// what it shows as its first message.
func watchShowing(e *webtest.Env, t *testing.T, name, base string, show int64, jar http.CookieJar, have map[string]string) *watcher {
	t.Helper()
	first, err := json.Marshal(map[string]any{"seats": have})
	if err != nil {
		t.Fatal(err)
	}
	return watchPath(e, t, name, base, fmt.Sprintf("/shows/%d/live?diff=1", show), jar, first)
}

func watchPath(e *webtest.Env, t *testing.T, name, base, path string, jar http.CookieJar, first []byte) *watcher {
	t.Helper()
	conn, hs, _, err := dialLiveFrom(base, path, webtest.PublicURL, jar, false)
	if err == nil && first != nil {
		err = conn.Write(context.Background(), websocket.MessageText, first)
	}
	if err != nil {
		t.Fatalf("%s: dial the live seat map: %d %v", name, hs.status, err)
	}
	conn.SetReadLimit(1 << 20)
	w := &watcher{t: t, name: name, conn: conn, status: map[string]string{}, updates: map[string]int{}, changed: make(chan struct{}, 1)}
	done := make(chan struct{})
	go w.read(done)
	t.Cleanup(func() {
		conn.CloseNow()
		<-done
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, b := range w.bad {
			t.Errorf("%s: malformed fragment: %s", name, b)
		}
	})
	return w
}

func (w *watcher) read(done chan struct{}) {
	defer close(done)
	for {
		typ, data, err := w.conn.Read(context.Background())
		w.mu.Lock()
		if err != nil {
			w.err = err
			w.mu.Unlock()
			w.signal()
			return
		}
		if typ != websocket.MessageText {
			w.bad = append(w.bad, fmt.Sprintf("a %v message", typ))
		}
		doc, perr := goquery.NewDocumentFromReader(strings.NewReader(string(data)))
		if perr != nil {
			w.bad = append(w.bad, perr.Error())
		} else {
			doc.Find("body > *").Each(func(_ int, el *goquery.Selection) {
				id, _ := el.Attr("id")
				seat, _ := el.Attr("data-seat")
				status, _ := el.Attr("data-status")
				if goquery.NodeName(el) != "button" || id != "seat-"+seat || status == "" {
					h, _ := goquery.OuterHtml(el)
					w.bad = append(w.bad, h)
					return
				}
				if w.messages > 0 {
					w.updates[seat]++
				}
				w.status[seat] = status
			})
		}
		w.messages++
		w.mu.Unlock()
		w.signal()
	}
}

func (w *watcher) signal() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until cond holds of what the socket has received.
func (w *watcher) waitFor(what string, within time.Duration, cond func(w *watcher) bool) time.Duration {
	w.t.Helper()
	began := time.Now()
	timeout := time.After(within)
	for {
		w.mu.Lock()
		ok, err := cond(w), w.err
		w.mu.Unlock()
		if ok {
			return time.Since(began)
		}
		if err != nil {
			w.t.Fatalf("%s: the socket ended (%v) before %s", w.name, err, what)
		}
		select {
		case <-w.changed:
		case <-timeout:
			w.t.Fatalf("%s: waited %v for %s", w.name, within, what)
		}
	}
}

// waitSeat waits until seat was last sent as status.
func (w *watcher) waitSeat(seat, status string) time.Duration {
	w.t.Helper()
	return w.waitFor(fmt.Sprintf("seat %s %s", seat, status), liveWithin, func(w *watcher) bool { return w.status[seat] == status })
}

func (w *watcher) Snapshot() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]string, len(w.status))
	for k, v := range w.status {
		out[k] = v
	}
	return out
}

// wantMap fails unless the watcher's seats are the seat map as viewer sees
// it through the API (available, held, booked or mine).
func (w *watcher) wantMap(c *webtest.Client) {
	w.t.Helper()
	status, mine := c.SeatStatus(w.t)
	got := w.Snapshot()
	if len(got) != len(status) {
		w.t.Fatalf("%s: the socket named %d seats, the show has %d", w.name, len(got), len(status))
	}
	for id, st := range status {
		want := strings.ToLower(st)
		if mine[id] {
			want = "mine"
		}
		if got[id] != want {
			w.t.Errorf("%s: seat %s was last sent as %q, the seat map says %q", w.name, id, got[id], want)
		}
	}
	if w.t.Failed() {
		w.t.FailNow()
	}
}

// readerAndNot opens two sockets on the env's show at a new instance with
// tiny kernel buffers: one that reads nothing yet (returned with its local
// address, closed when the test ends) and a watcher that reads everything,
// its first message received.
func readerAndNot(e *webtest.Env, t *testing.T) (*instance, *websocket.Conn, string, *watcher) {
	t.Helper()
	inst := newInstance(e, t, true)
	idle, _, addr, err := dialLiveFrom(inst.url, fmt.Sprintf("/shows/%d/live", e.Show), webtest.PublicURL, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idle.CloseNow() })
	fast := watch(e, t, "fast", inst.url, e.Show, nil)
	fast.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })
	if n := inst.hub.Subscribers(e.Show); n != 2 {
		t.Fatalf("%d subscribers, want 2", n)
	}
	return inst, idle, addr, fast
}

func TestLiveSeatMap(t *testing.T) {
	t.Run("the Origin must be this site's, exactly", func(t *testing.T) {
		t.Parallel()
		e, hub := newLiveEnv(t)
		for _, origin := range []string{"", "http://evil.test", "https://marquee.test", "http://marquee.test:8080", "http://marquee.test.evil.test", "null"} {
			conn, hs, err := dialLive(e.Srv.URL, e.Show, origin, nil)
			if err == nil {
				conn.CloseNow()
				t.Fatalf("Origin %q: the websocket was accepted", origin)
			}
			if hs.status != http.StatusForbidden {
				t.Fatalf("Origin %q: %d %v, want 403", origin, hs.status, err)
			}
			if !strings.Contains(string(hs.body), `"origin_refused"`) {
				t.Fatalf("Origin %q: 403 body %s, want the origin_refused JSON error", origin, hs.body)
			}
		}
		// A signed-in browser on another site is refused too: its cookie
		// must not let that site read the seat map as the user.
		c := e.User(t)
		if _, hs, err := dialLive(e.Srv.URL, e.Show, "http://evil.test", c.HTTP.Jar); err == nil || hs.status != http.StatusForbidden {
			t.Fatalf("a signed-in user's cookie from a foreign Origin: %v, want 403", err)
		}
		if n := hub.Subscribers(e.Show); n != 0 {
			t.Fatalf("refused sockets left %d subscribers", n)
		}
		watch(e, t, "same-origin", e.Srv.URL, e.Show, nil).waitFor("the seat map", liveWithin, func(w *watcher) bool { return w.messages > 0 })
	})

	t.Run("a PUBLIC_URL with its scheme's default port matches the Origin browsers send", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t, func(e *webtest.Env) { e.Cfg.PublicURL = "http://marquee.test:80/" })
		watch(e, t, "default port", e.Srv.URL, e.Show, nil).waitFor("the seat map", liveWithin, func(w *watcher) bool { return w.messages > 0 })
		if _, hs, err := dialLive(e.Srv.URL, e.Show, "http://marquee.test:8080", nil); err == nil || hs.status != http.StatusForbidden {
			t.Fatalf("another port: %v, want 403", err)
		}
	})

	t.Run("an unknown show is 404; without Live there is no endpoint and the page does not connect", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		for _, path := range []int64{e.Show + 1000, 0} {
			_, hs, err := dialLive(e.Srv.URL, path, webtest.PublicURL, nil)
			if err == nil || hs.status != http.StatusNotFound {
				t.Fatalf("show %d: %v, want 404", path, err)
			}
		}
		page := e.Guest().Get(fmt.Sprintf("/shows/%d", e.Show))
		if want := fmt.Sprintf(`ws-connect="/shows/%d/live?diff=1"`, e.Show); !strings.Contains(string(page.Body), want) {
			t.Fatalf("with Live on, the show page has no %s", want)
		}

		off := webtest.NewEnv(t)
		if _, hs, err := dialLive(off.Srv.URL, off.Show, webtest.PublicURL, nil); err == nil || hs.status != http.StatusNotFound {
			t.Fatalf("without Live: %v, want 404", err)
		}
		if page := off.Guest().Get(fmt.Sprintf("/shows/%d", off.Show)); strings.Contains(string(page.Body), "ws-connect") {
			t.Fatal("without Live, the show page still connects a websocket")
		}
	})

	t.Run("on connect the whole map, per viewer", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		holder, buyer := e.User(t), e.User(t)
		holder.MustHold(t, "A1", "A2")
		e.Pay(t, buyer.MustHold(t, "J10"))
		guest := watch(e, t, "guest", e.Srv.URL, e.Show, nil)
		mine := watch(e, t, "holder", e.Srv.URL, e.Show, holder.HTTP.Jar)
		for _, w := range []*watcher{guest, mine} {
			w.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })
		}
		guest.wantMap(e.Guest())
		mine.wantMap(holder)
		if got := guest.Snapshot(); got["A1"] != "held" || got["J10"] != "booked" || got["B5"] != "available" {
			t.Fatalf("the guest got A1 %q, J10 %q, B5 %q; want held, booked, available", got["A1"], got["J10"], got["B5"])
		}
		if got := mine.Snapshot(); got["A1"] != "mine" || got["A2"] != "mine" {
			t.Fatalf("the holder got A1 %q, A2 %q; want mine", got["A1"], got["A2"])
		}
	})

	t.Run("a page that says what it shows is sent only the seats that differ, or nothing", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		holder, buyer := e.User(t), e.User(t)
		holder.MustHold(t, "A1", "A2")
		e.Pay(t, buyer.MustHold(t, "J10"))
		// Pages are rendered from the instance's map in memory: up to date
		// is up to date with it, once the feed has brought the payment.
		waitMapSays(t, e, map[string]string{"A1": "HELD", "A2": "HELD", "J10": "BOOKED"})
		upToDate := watchShowing(e, t, "up to date", e.Srv.URL, e.Show, nil,
			map[string]string{"A1": "held", "A2": "held", "J10": "booked"})
		mine := watchShowing(e, t, "the holder, up to date", e.Srv.URL, e.Show, holder.HTTP.Jar,
			map[string]string{"A1": "mine", "A2": "mine", "J10": "booked"})
		// Stale: A2 and J10 missed, C3 shown sold though it is free, and
		// a seat the show does not have.
		stale := watchShowing(e, t, "stale", e.Srv.URL, e.Show, nil,
			map[string]string{"A1": "held", "C3": "booked", "Z99": "held"})
		stale.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })
		if got, want := stale.Snapshot(), map[string]string{"A2": "held", "J10": "booked", "C3": "available"}; !maps.Equal(got, want) {
			t.Fatalf("the stale page was sent %v, want only what differs: %v", got, want)
		}
		// The pages up to date were sent nothing: the first thing they
		// hear is the next change, alone.
		e.FixtureUser(t).MustHold(t, "F6")
		for _, w := range []*watcher{upToDate, mine} {
			w.waitFor("F6's change", liveWithin, func(w *watcher) bool { return w.messages > 0 })
			if got := w.Snapshot(); !maps.Equal(got, map[string]string{"F6": "held"}) || w.messages != 1 {
				t.Fatalf("%s: after %d messages it was sent %v, want only F6 held", w.name, w.messages, got)
			}
		}
	})

	t.Run("a page that says nothing, or nonsense, first is let go", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		w := watchPath(e, t, "nonsense", e.Srv.URL, fmt.Sprintf("/shows/%d/live?diff=1", e.Show), nil, []byte("{not json"))
		w.waitFor("the close", liveWithin, func(w *watcher) bool { return w.err != nil })
		if code := websocket.CloseStatus(w.err); code != websocket.StatusPolicyViolation {
			t.Fatalf("closed with %v (%v), want a policy violation", code, w.err)
		}
		if w.messages != 0 {
			t.Fatalf("the socket sent %d messages before closing", w.messages)
		}
	})

	t.Run("a seat the theatre blocks turns not for sale, and back when unblocked", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		guest := watch(e, t, "guest", e.Srv.URL, e.Show, nil)
		guest.waitSeat("D7", "available")
		entry := audit.Entry{ActorID: pgtest.User(t, e.Store), Action: "show.block_seats", Object: "live"}
		if _, err := e.Store.BlockSeats(context.Background(), e.Show, []string{"D7"}, entry); err != nil {
			t.Fatal(err)
		}
		guest.waitSeat("D7", "blocked")
		entry.Action = "show.unblock_seats"
		if _, err := e.Store.UnblockSeats(context.Background(), e.Show, []string{"D7"}, entry); err != nil {
			t.Fatal(err)
		}
		guest.waitSeat("D7", "available")
	})

	t.Run("a hold shows as held to others and mine to the holder; a release as available", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		holder, other := e.User(t), e.User(t)
		guest := watch(e, t, "guest", e.Srv.URL, e.Show, nil)
		otherW := watch(e, t, "other user", e.Srv.URL, e.Show, other.HTTP.Jar)
		mine := watch(e, t, "holder", e.Srv.URL, e.Show, holder.HTTP.Jar)
		for _, w := range []*watcher{guest, otherW, mine} {
			w.waitSeat("C3", "available")
		}

		h := holder.MustHold(t, "C3", "C4")
		held := time.Now()
		guest.waitSeat("C3", "held")
		guest.waitSeat("C4", "held")
		otherW.waitSeat("C4", "held")
		mine.waitSeat("C3", "mine")
		mine.waitSeat("C4", "mine")
		t.Logf("hold answered -> every watcher updated in %v", time.Since(held).Round(time.Millisecond))

		webtest.Want(t, holder.Delete("/api/v1/holds/"+h.Str("hold_id")), http.StatusOK)
		for _, w := range []*watcher{guest, otherW, mine} {
			w.waitSeat("C3", "available")
			w.waitSeat("C4", "available")
		}
		guest.wantMap(e.Guest())
		mine.wantMap(holder)
	})

	t.Run("two instances on one database: a hold through one reaches a socket of the other", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		b := newInstance(e, t, false)
		holder := e.User(t)
		guestB := watch(e, t, "guest on B", b.url, e.Show, nil)
		// Cookies know no ports: the holder's session works on B too.
		mineB := watch(e, t, "holder on B", b.url, e.Show, holder.HTTP.Jar)
		guestA := watch(e, t, "guest on A", e.Srv.URL, e.Show, nil)
		for _, w := range []*watcher{guestB, mineB, guestA} {
			w.waitSeat("D7", "available")
		}

		h := holder.MustHold(t, "D7") // through A
		took := guestB.waitSeat("D7", "held")
		mineB.waitSeat("D7", "mine")
		guestA.waitSeat("D7", "held")
		t.Logf("a hold through A reached a socket of B in %v", took.Round(time.Millisecond))

		e.Pay(t, h)
		guestB.waitSeat("D7", "booked")
		mineB.waitSeat("D7", "booked")
		// A's map in memory has the payment once A has sent it: the seat
		// map JSON, read through A, then says what B's socket said.
		guestA.waitSeat("D7", "booked")
		guestB.wantMap(e.Guest())
	})

	t.Run("a client that never reads is dropped; the others keep receiving", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		inst, slow, slowAddr, fast := readerAndNot(e, t)
		// Each resync is the whole map (about 50 KB): the slow client's
		// buffers fill at once, then its queue, and the hub lets it go.
		rounds := 0
		deadline := time.Now().Add(30 * time.Second)
		for inst.hub.Subscribers(e.Show) == 2 {
			if rounds++; rounds > 200 || time.Now().After(deadline) {
				t.Fatalf("after %d resyncs the client that never reads is still subscribed", rounds)
			}
			before := fast.snapshotMessages()
			inst.hub.ResyncAll()
			fast.waitFor("the resync", liveWithin, func(w *watcher) bool { return w.messages > before })
		}
		dropped := time.Now()
		t.Logf("the client that never reads was dropped after %d whole-map messages", rounds)

		// The server lets the slow socket go once the drop's grace (1 s) is
		// over, even though its writer was stuck on the full socket: well
		// before the write's own deadline (10 s) would.
		select {
		case <-inst.closed.ch(slowAddr):
			t.Logf("the server closed the dropped connection %v after the drop", time.Since(dropped).Round(time.Millisecond))
		case <-time.After(8 * time.Second):
			t.Fatal("8s after the drop the server still holds the dropped connection open")
		}
		// What the kernel had buffered can still be read; then the end.
		ctx, cancel := context.WithTimeout(context.Background(), liveWithin)
		defer cancel()
		slow.SetReadLimit(1 << 20)
		var readErr error
		for readErr == nil {
			_, _, readErr = slow.Read(ctx)
		}
		if errors.Is(readErr, context.DeadlineExceeded) {
			t.Fatalf("the dropped client's connection was still open %v after the drop", time.Since(dropped).Round(time.Millisecond))
		}
		if n := inst.hub.Subscribers(e.Show); n != 1 {
			t.Fatalf("%d subscribers after the drop, want the 1 that reads", n)
		}

		// The others keep receiving.
		holder := e.User(t)
		holder.MustHold(t, "E5")
		fast.waitSeat("E5", "held")
		t.Logf("the dropped connection ended (%v) and the other socket kept receiving", readErr)
	})

	t.Run("a client that fell behind is sent what queued up as one message, ending in the last state", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		inst, behind, _, fast := readerAndNot(e, t)
		// The client reads nothing while whole maps pile up: the server's
		// writer soon waits on the full socket, and the rest queue (fewer
		// than the hub's queue, so the client is not dropped).
		const resyncs = 10
		for range resyncs {
			before := fast.snapshotMessages()
			inst.hub.ResyncAll()
			fast.waitFor("the resync", liveWithin, func(w *watcher) bool { return w.messages > before })
		}
		e.FixtureUser(t).MustHold(t, "E5")
		fast.waitSeat("E5", "held")
		if n := inst.hub.Subscribers(e.Show); n != 2 {
			t.Fatalf("%d subscribers, want 2: the client behind was dropped", n)
		}

		ctx, cancel := context.WithTimeout(context.Background(), liveWithin)
		defer cancel()
		behind.SetReadLimit(1 << 22)
		messages, last := 0, ""
		for last != "held" {
			_, data, err := behind.Read(ctx)
			if err != nil {
				t.Fatalf("after %d messages: %v", messages, err)
			}
			messages++
			doc, err := goquery.NewDocumentFromReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			// Buttons of one seat may come more than once in a message:
			// the last is what the page shows.
			if seats := doc.Find(`[id="seat-E5"]`); seats.Length() > 0 {
				last = seats.Last().AttrOr("data-status", "")
			}
		}
		// The first map, ten whole maps and E5: twelve updates.
		if updates := 2 + resyncs; messages >= updates {
			t.Fatalf("%d updates came as %d messages: nothing queued was sent together", updates, messages)
		}
		t.Logf("%d updates came as %d messages", 2+resyncs, messages)
	})

	t.Run("at shutdown sockets close with a code the page reconnects on, and a reconnect resyncs", func(t *testing.T) {
		t.Parallel()
		e, hub := newLiveEnv(t)
		w := watch(e, t, "guest", e.Srv.URL, e.Show, nil)
		w.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })
		hub.CloseAll()
		w.waitFor("the close", liveWithin, func(w *watcher) bool { return w.err != nil })
		// The htmx ws extension reconnects after 1006, 1011, 1012 and 1013 only.
		if code := websocket.CloseStatus(w.err); code != websocket.StatusTryAgainLater && code != websocket.StatusServiceRestart {
			t.Fatalf("the socket closed with %v (%v): the page would not reconnect", code, w.err)
		}
		e.FixtureUser(t).MustHold(t, "F6") // while the page is away
		again := watch(e, t, "guest again", e.Srv.URL, e.Show, nil)
		again.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })
		// The first message comes from the map in memory, which the change
		// feed brings F6 to a moment after the hold: F6 arrives in it or
		// right after, and the page ends as the seat map JSON says.
		again.waitSeat("F6", "held")
		again.wantMap(e.Guest())
	})

	t.Run("pings keep answering sockets open and reap those that stopped answering", func(t *testing.T) {
		t.Parallel()
		// A ping is answered within every, or the socket is let go: long
		// enough for a loaded machine's reader to answer.
		const every = 2 * time.Second
		e, hub := newLiveEnv(t, func(e *webtest.Env) { e.Cfg.LivePing = every })
		alive := watch(e, t, "reading", e.Srv.URL, e.Show, nil) // reads, so answers pings
		alive.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })
		// A socket whose other end stopped reading answers no ping.
		dead, _, err := dialLive(e.Srv.URL, e.Show, webtest.PublicURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dead.CloseNow()
		if n := hub.Subscribers(e.Show); n != 2 {
			t.Fatalf("%d subscribers, want 2", n)
		}
		deadline := time.Now().Add(liveWithin)
		for hub.Subscribers(e.Show) > 1 && time.Now().Before(deadline) {
			time.Sleep(every / 20)
		}
		if n := hub.Subscribers(e.Show); n != 1 {
			t.Fatalf("after %v, %d subscribers: the silent socket was not reaped", liveWithin, n)
		}
		// The answering one outlived many pings and still gets changes.
		e.FixtureUser(t).MustHold(t, "F2")
		alive.waitSeat("F2", "held")
	})

	t.Run("a show taken off sale closes its sockets normally, so pages do not reconnect", func(t *testing.T) {
		t.Parallel()
		e, hub := newLiveEnv(t)
		w := watch(e, t, "guest", e.Srv.URL, e.Show, nil)
		w.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })
		if _, err := e.Store.Pool().Exec(context.Background(), `UPDATE shows SET status = 'CANCELLED', cancelled_at = now() WHERE id = $1`, e.Show); err != nil {
			t.Fatal(err)
		}
		hub.ResyncAll()
		w.waitFor("the close", liveWithin, func(w *watcher) bool { return w.err != nil })
		if code := websocket.CloseStatus(w.err); code != websocket.StatusNormalClosure {
			t.Fatalf("the socket closed with %v (%v), want a normal closure", code, w.err)
		}
	})

	t.Run("a burst of changes arrives complete and ends in the database's state", func(t *testing.T) {
		t.Parallel()
		e, _ := newLiveEnv(t)
		me := e.Guest()
		myID, _ := me.Signup(t)
		guest := watch(e, t, "guest", e.Srv.URL, e.Show, nil)
		mine := watch(e, t, "me", e.Srv.URL, e.Show, me.HTTP.Jar)
		guest.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })
		mine.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })

		// 24 users at once hold four seats each (rows A-J); then at once a
		// third of them (me among them) keep holding, a third release, a
		// third pay.
		const users = 24
		ids := make([]string, users)
		ids[0] = myID
		for i := 1; i < users; i++ {
			ids[i] = pgtest.User(t, e.Store)
		}
		holds := make([]booking.Hold, users)
		ctx := context.Background()
		pgtest.Release(users, func(i int) {
			var seats []string
			for j := range 4 {
				k := i*4 + j
				seats = append(seats, fmt.Sprintf("%c%d", 'A'+k/10, k%10+1))
			}
			res, err := e.Store.HoldSeats(ctx, booking.HoldRequest{UserID: ids[i], ShowID: e.Show, Seats: seats, TTL: webtest.HoldTTL, Key: "burst"}, webtest.MaxSeats)
			if err != nil {
				t.Errorf("hold %v: %v", seats, err)
				return
			}
			holds[i] = res.Hold
		})
		if t.Failed() {
			t.FailNow()
		}
		pgtest.Release(users, func(i int) {
			var err error
			switch i % 3 {
			case 1:
				_, err = e.Store.CancelHold(ctx, ids[i], holds[i].ID)
			case 2:
				_, err = e.Store.ConfirmPayment(ctx, booking.Payment{ID: "burst-" + holds[i].ID, HoldRef: holds[i].ID,
					AmountMinor: holds[i].AmountMinor, Currency: holds[i].Currency})
			}
			if err != nil {
				t.Error(err)
			}
		})
		if t.Failed() {
			t.FailNow()
		}
		// A marker, changed after all the rest: once it arrives, everything
		// before it has been announced and read after its commit.
		e.FixtureUser(t).MustHold(t, "J10")
		guest.waitSeat("J10", "held")
		mine.waitSeat("J10", "held")

		guest.wantMap(e.Guest())
		mine.wantMap(me)
		for i := range users * 4 {
			seat := fmt.Sprintf("%c%d", 'A'+i/10, i%10+1)
			for _, w := range []*watcher{guest, mine} {
				w.mu.Lock()
				n := w.updates[seat]
				w.mu.Unlock()
				if n == 0 {
					t.Errorf("%s: seat %s changed but was never sent", w.name, seat)
				}
			}
		}
		if got := mine.Snapshot(); !slices.Equal([]string{got["A1"], got["A4"], got["A5"], got["A9"]}, []string{"mine", "mine", "available", "booked"}) {
			t.Fatalf("A1 A4 (mine), A5 (released), A9 (bought) show %s %s %s %s", got["A1"], got["A4"], got["A5"], got["A9"])
		}
		t.Logf("%d seat changes (holds, then releases and purchases) to %d seats: the guest got %d messages", users*4+2*(users/3)*4, users*4, guest.snapshotMessages())
	})
}

func (w *watcher) snapshotMessages() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.messages
}
