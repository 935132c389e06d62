package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/wsclient"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web/session"
)

// What the fault tests need around `marquee serve` in a child process: the
// child itself (this test binary, serving when childEnv says so), a client
// of its JSON API with a session cookie, a payment provider's webhook, and
// a viewer of the live seat map.

// childEnv makes this test binary run `marquee serve` instead of its tests.
const childEnv = "MARQUEE_FAULTS_SERVE"

const (
	faultsPublicURL = "http://marquee.test"
	faultsSecret    = "faults-webhook-secret-0123456789"
)

// serveIfChild runs `marquee serve`, configured by the environment, and
// exits, when this process is a fault test's app.
func serveIfChild() {
	if os.Getenv(childEnv) != "1" {
		return
	}
	if v := os.Getenv(rescueAfterEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			fmt.Fprintf(os.Stderr, "%s=%q: want a positive duration\n", rescueAfterEnv, v)
			os.Exit(2)
		}
		jobsRescueAfter = d
	}
	os.Exit(run([]string{"serve"}, os.Getenv, os.Stdout, os.Stderr))
}

// rescueAfterEnv, set for a fault test's app, is how long it leaves a job
// another app left running before running it again (jobsRescueAfter): a
// test of a killed app's jobs need not wait the production 5 minutes. It
// is a test's setting, not the app's configuration.
const rescueAfterEnv = "MARQUEE_FAULTS_RESCUE_AFTER"

// app is `marquee serve` in a child process.
type app struct {
	Base string // http://127.0.0.1:<port>

	cmd    *exec.Cmd
	exited chan struct{}
	log    *logLines
}

// logLines keeps what the child logs, for a failing test to show.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

// count is how many lines contain s.
func (l *logLines) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

func (l *logLines) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines[max(0, len(l.lines)-n):], "\n")
}

var listeningAddr = regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+)`)

// startApp runs `marquee serve` on databaseURL, on a loopback port, with
// rate limits off and reconciliation out of the way (the test is the
// payment provider), and waits until it listens. It is killed when the
// test ends.
func startApp(t *testing.T, databaseURL string) *app {
	t.Helper()
	return startAppFor(t, t, databaseURL)
}

// startAppFor is startApp from a subtest t for an app that lives until
// test owner ends. Env (NAME=value) is added to the app's environment,
// and wins over the same names set before.
func startAppFor(t, owner *testing.T, databaseURL string, env ...string) *app {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=1",
		"DATABASE_URL="+databaseURL, "ADDR=127.0.0.1:0", "PUBLIC_URL="+faultsPublicURL,
		"PAYMENT_WEBHOOK_SECRET="+faultsSecret, "PAYMENTS=sandbox", "RATE_LIMITS=off", "RECONCILE_DELAY=10m",
		"READ_SLOTS=2", "WRITE_SLOTS=4", "WEBHOOK_SLOTS=2")
	cmd.Env = append(cmd.Env, env...)
	// The app dies with the test process, however that ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the app: %v", err)
	}
	a := &app{cmd: cmd, exited: make(chan struct{}), log: &logLines{}}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			a.log.add(line)
			if m := listeningAddr.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(a.exited)
	}()
	owner.Cleanup(func() {
		a.kill()
		// MARQUEE_FAULTS_DUMP=/tmp/app keeps each app's whole log in
		// /tmp/app-<pid>.log, for a failure the last lines do not explain.
		if dump := os.Getenv("MARQUEE_FAULTS_DUMP"); dump != "" {
			_ = os.WriteFile(fmt.Sprintf("%s-%d.log", dump, cmd.Process.Pid), []byte(a.log.tail(1<<30)), 0o644)
		}
		if owner.Failed() {
			owner.Logf("the app (pid %d) logged, last lines:\n%s", cmd.Process.Pid, a.log.tail(60))
		}
	})
	select {
	case got := <-addr:
		a.Base = "http://" + got
	case <-a.exited:
		t.Fatalf("the app exited before it listened:\n%s", a.log.tail(30))
	case <-time.After(90 * time.Second):
		t.Fatalf("the app did not listen within 90 s:\n%s", a.log.tail(30))
	}
	return a
}

// kill ends the app with SIGKILL: no drain, no deferred call, its
// connections dropped by the kernel as they are.
func (a *app) kill() {
	select {
	case <-a.exited:
		return
	default:
	}
	_ = a.cmd.Process.Signal(syscall.SIGKILL)
	<-a.exited
}

// visitor is one person's client of the app: a session cookie of its own
// over a transport the test's visitors share.
type visitor struct {
	base   string
	hc     *http.Client
	cookie string // name=value, once signed in
}

// newTransport is a transport for many visitors of one app.
func newTransport() *http.Transport {
	return &http.Transport{MaxIdleConns: 200, MaxIdleConnsPerHost: 200, IdleConnTimeout: 30 * time.Second}
}

func newVisitor(base string, tr http.RoundTripper) *visitor {
	// No request waits for ever; the app's own deadline is 10 s.
	return &visitor{base: base, hc: &http.Client{Transport: tr, Timeout: 45 * time.Second}}
}

// answer is a response with its body read and, when JSON, decoded.
type answer struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

func (a answer) String() string { return fmt.Sprintf("%d %.300s", a.Status, a.Body) }

func (a answer) str(key string) string {
	s, _ := a.JSON[key].(string)
	return s
}

// code is the error code of an error answer.
func (a answer) code() string { return a.str("error") }

// send makes one request. Key, when set, is its Idempotency-Key; a body
// that is not []byte is sent as JSON.
func (v *visitor) send(ctx context.Context, method, path, key string, body any, header map[string]string) (answer, error) {
	var raw []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			return answer{}, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, v.base+path, bytes.NewReader(raw))
	if err != nil {
		return answer{}, err
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if v.cookie != "" {
		req.Header.Set("Cookie", v.cookie)
	}
	for k, val := range header {
		req.Header.Set(k, val)
	}
	resp, err := v.hc.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(b, &a.JSON)
	}
	return a, nil
}

// login signs the visitor in as email (pgtest.FixturePassword).
func (v *visitor) login(ctx context.Context, email string) error {
	// Many logins at once (a password hash is slow on purpose) may be
	// turned away 503, busy or timed out on a loaded machine, with a
	// Retry-After: each comes back, as a browser would, after 100 ms
	// rather than the seconds Retry-After asks, to keep the test short.
	var a answer
	var err error
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		a, err = v.send(ctx, http.MethodPost, "/api/v1/login", "", map[string]string{"email": email, "password": pgtest.FixturePassword}, nil)
		if err != nil || a.Status != http.StatusServiceUnavailable || a.Header.Get("Retry-After") == "" || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("login %s: %w", email, err)
	}
	if a.Status != http.StatusOK {
		return fmt.Errorf("login %s: %s", email, a)
	}
	for _, line := range a.Header.Values("Set-Cookie") {
		if ck, err := http.ParseSetCookie(line); err == nil && ck.Name == session.Cookie && ck.Value != "" {
			v.cookie = ck.Name + "=" + ck.Value
			return nil
		}
	}
	return fmt.Errorf("login %s: no session cookie", email)
}

func holdPath(show int64) string { return fmt.Sprintf("/api/v1/shows/%d/holds", show) }

// holdBody is a hold request for seats.
func holdBody(seats []string) map[string][]string { return map[string][]string{"seats": seats} }

// webhookBody is a successful payment of a hold's amount, as the provider
// reports it.
func webhookBody(paymentID string, hold answer) []byte {
	amount, _ := hold.JSON["amount_minor"].(float64)
	b, _ := json.Marshal(map[string]any{
		"payment_id": paymentID, "hold_id": hold.str("hold_id"),
		"amount_minor": int64(amount), "currency": hold.str("currency"), "status": "succeeded",
	})
	return b
}

// webhook delivers a payment report signed now, as the provider does.
func (v *visitor) webhook(ctx context.Context, raw []byte) (answer, error) {
	return v.send(ctx, http.MethodPost, "/payments/webhook", "", raw,
		map[string]string{payment.SignatureHeader: payment.Sign([]byte(faultsSecret), time.Now(), raw)})
}

// seatEvent is a seat's status as a viewer of the live seat map saw it.
type seatEvent struct {
	seat, status string
	at           time.Time
}

// viewer watches a show's live seat map as a guest's show page does,
// reconnecting whenever its socket drops.
type viewer struct {
	mu         sync.Mutex
	events     []seatEvent
	connects   int
	lastDrop   error
	stop       context.CancelFunc
	done       chan struct{}
	changed    chan struct{} // a token per batch of events
	base, path string
}

// watch starts a viewer of show on the app at base, stopped when the test
// ends.
func watch(t *testing.T, base string, show int64) *viewer {
	ctx, cancel := context.WithCancel(context.Background())
	v := &viewer{stop: cancel, done: make(chan struct{}), changed: make(chan struct{}, 1),
		base: base, path: fmt.Sprintf("/shows/%d/live", show)}
	go v.run(ctx)
	t.Cleanup(func() {
		cancel()
		<-v.done
	})
	return v
}

func (v *viewer) run(ctx context.Context) {
	defer close(v.done)
	wsURL := "ws" + strings.TrimPrefix(v.base, "http") + v.path
	for ctx.Err() == nil {
		err := v.read(ctx, wsURL)
		v.mu.Lock()
		v.lastDrop = err
		v.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond): // as the page's ws extension waits
		}
	}
}

func (v *viewer) read(ctx context.Context, wsURL string) error {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(dctx, wsURL, &websocket.DialOptions{ //nolint:bodyclose // coder/websocket: the handshake response has no body to close
		HTTPHeader: http.Header{"Origin": []string{faultsPublicURL}},
	})
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(4 << 20)
	v.mu.Lock()
	v.connects++
	v.mu.Unlock()
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			return err
		}
		at := time.Now()
		v.mu.Lock()
		wsclient.ScanSeats(msg, func(seat, status string) {
			v.events = append(v.events, seatEvent{seat: seat, status: status, at: at})
		})
		v.mu.Unlock()
		select {
		case v.changed <- struct{}{}:
		default:
		}
	}
}

// sees waits up to wait for the viewer to show seat as status in a message
// received after since.
func (v *viewer) sees(seat, status string, since time.Time, wait time.Duration) bool {
	deadline := time.After(wait)
	for {
		v.mu.Lock()
		for _, e := range v.events {
			if e.seat == seat && e.status == status && !e.at.Before(since) {
				v.mu.Unlock()
				return true
			}
		}
		v.mu.Unlock()
		select {
		case <-v.changed:
		case <-deadline:
			return false
		}
	}
}

// stats are the viewer's connections and why the last one dropped.
func (v *viewer) stats() (connects int, lastDrop error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.connects, v.lastDrop
}

// readyWithin polls /readyz until it answers 200, for up to wait.
func readyWithin(base string, wait time.Duration) error {
	hc := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(wait)
	var last string
	for time.Now().Before(deadline) {
		resp, err := hc.Get(base + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("/readyz did not answer 200 within %v (last: %s)", wait, last)
}

// checkerURL is databaseURL for the test's own connections, named apart
// from the app's in pg_stat_activity.
func checkerURL(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil {
		panic(err)
	}
	q := u.Query()
	q.Set("application_name", "marquee-faults-test")
	u.RawQuery = q.Encode()
	return u.String()
}

// viaProxy is databaseURL with its host and port replaced by addr.
func viaProxy(databaseURL, addr string) string {
	u, err := url.Parse(databaseURL)
	if err != nil {
		panic(err)
	}
	u.Host = addr
	return u.String()
}

// hostPort is the host:port of databaseURL.
func hostPort(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil {
		panic(err)
	}
	if u.Port() == "" {
		return u.Hostname() + ":5432"
	}
	return u.Host
}

// appBackends are the pids of the app's sessions on the database (the
// test's own connections are named apart by checkerURL).
func appBackends(ctx context.Context, pool *pgxpool.Pool) ([]int32, error) {
	rows, err := pool.Query(ctx, `
		SELECT pid FROM pg_stat_activity
		 WHERE datname = current_database() AND application_name = 'marquee' ORDER BY pid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pids []int32
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			return nil, err
		}
		pids = append(pids, pid)
	}
	return pids, rows.Err()
}

// locksHeld lists the locks client sessions other than the caller's hold
// on the database, as "pid application mode locktype relation state", from
// pg_locks joined to pg_stat_activity. Postgres's own workers are left out:
// an autovacuum of the test's tables holds a lock too, with no state,
// and it is nobody's lock left behind.
func locksHeld(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rows, err := pool.Query(ctx, `
		SELECT concat_ws(' ', l.pid, a.application_name, l.mode, l.locktype, l.relation::regclass::text, a.state)
		  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		 WHERE a.datname = current_database() AND l.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
		   AND l.locktype <> 'virtualxid'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var locks []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		locks = append(locks, s)
	}
	return locks, rows.Err()
}

// seatsLockable reports whether every seat row of show can be locked at
// once, NOWAIT: no transaction, live or left behind, holds one.
func seatsLockable(ctx context.Context, pool *pgxpool.Pool, show int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SELECT 1 FROM show_seats WHERE show_id = $1 FOR UPDATE NOWAIT`, show)
	return err
}

// waitGone waits up to wait until none of pids is a session of the
// database any more.
func waitGone(ctx context.Context, pool *pgxpool.Pool, pids []int32, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		var left []int32
		err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(pid), '{}') FROM pg_stat_activity WHERE pid = ANY($1)`, pids).Scan(&left)
		if err != nil {
			return err
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sessions %v of the killed app still open after %v", left, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openChecker is the test's own pool on databaseURL, beside the app's.
func openChecker(t *testing.T, databaseURL string, conns int32) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	pool, err := postgres.Connect(context.Background(), checkerURL(databaseURL), conns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return postgres.NewStore(pool), pool
}

// retryAfter is an answer's Retry-After in seconds, or 0.
func retryAfter(a answer) int {
	n, _ := strconv.Atoi(a.Header.Get("Retry-After"))
	return n
}

// seatLockedIdle reports whether a session of the app, idle inside its
// transaction (waiting for the app's next statement), has seat's row
// locked: the row's xmax is its transaction's id.
func seatLockedIdle(ctx context.Context, pool *pgxpool.Pool, show int64, seat string) (bool, error) {
	var locked bool
	err := pool.QueryRow(ctx, `
		SELECT EXISTS (
			SELECT FROM pg_stat_activity a JOIN show_seats s ON s.xmax = a.backend_xid
			 WHERE a.datname = current_database() AND a.application_name = 'marquee'
			   AND a.state = 'idle in transaction' AND s.show_id = $1 AND s.seat_id = $2)`, show, seat).Scan(&locked)
	return locked, err
}
