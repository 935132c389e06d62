package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

func TestMain(m *testing.M) {
	serveIfChild() // a fault test's app (faults_test.go)
	pgtest.Main(m)
}

// logRecords keeps serve's log messages with their attributes, so the test
// learns the address it listens on and sees how it stopped.
type logRecords struct {
	mu          sync.Mutex
	msgs        []string
	addr        chan string
	metricsAddr chan string
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecords) WithGroup(string) slog.Handler            { return l }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	to := map[string]chan string{"listening": l.addr, "serving metrics": l.metricsAddr}[r.Message]
	if to != nil {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "addr" {
				to <- a.Value.String()
			}
			return true
		})
	}
	return nil
}

func (l *logRecords) said(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.msgs {
		if m == msg {
			return true
		}
	}
	return false
}

// serve starts, answers, and on the signal stops taking connections, lets
// the request in flight finish, stops its workers and returns.
func TestServeStartsAndShutsDownGracefully(t *testing.T) {
	cfg, err := loadConfig(env(map[string]string{
		"DATABASE_URL": pgtest.NewDatabase(t),
		"ADDR":         "127.0.0.1:0",
		"METRICS_ADDR": "127.0.0.1:0",
		"RATE_LIMITS":  "off",
		"PAYMENTS":     "sandbox",
	}))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logRecords{addr: make(chan string, 1), metricsAddr: make(chan string, 1)}
	ctx, signal := context.WithCancel(context.Background())
	defer signal()
	var stopSignalsCalls int
	stopSignals := func() { stopSignalsCalls++ }
	returned := make(chan error, 1)
	go func() { returned <- serve(ctx, stopSignals, cfg, false, slog.New(logs)) }()

	var addr string
	select {
	case addr = <-logs.addr:
	case err := <-returned:
		t.Fatalf("serve returned before listening: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not listen within 60 s")
	}
	get := func(url string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		return statusAndBody(t, http.DefaultClient, req)
	}
	if status, _ := get("http://" + addr + "/readyz"); status != http.StatusOK {
		t.Fatalf("/readyz = %d, want 200", status)
	}

	// The metrics are on their own address, not the public one.
	metricsAddr := <-logs.metricsAddr
	if status, body := get("http://" + metricsAddr + "/metrics"); status != http.StatusOK ||
		!strings.Contains(body, "go_goroutines") || !strings.Contains(body, "marquee_seat_conflicts_total") {
		t.Fatalf("METRICS_ADDR /metrics = %d, want 200 with the runtime's and Marquee's metrics:\n%.300s", status, body)
	}
	if status, _ := get("http://" + addr + "/metrics"); status != http.StatusNotFound {
		t.Fatalf("ADDR /metrics = %d, want 404", status)
	}

	// A request in flight when the signal comes: its headers and half its
	// body are sent, the rest follows after the signal.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"email":"nobody@example.com","password":"not the password"}`
	fmt.Fprintf(conn, "POST /api/v1/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		addr, len(body), body[:10])
	// Until the server has read the headers and serves the request (it
	// holds a write slot, waiting for the body): the connection is active.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		_, m := get("http://" + metricsAddr + "/metrics")
		if strings.Contains(m, `marquee_requests_active{kind="write"} 1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request in flight was not being served a minute after its headers were sent")
		}
	}

	signal()
	// New connections are refused once the listener is closed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still accepting connections 10 s after the signal")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-returned:
		t.Fatalf("serve returned (%v) with a request still in flight", err)
	default:
	}

	if _, err := conn.Write([]byte(body[10:])); err != nil {
		t.Fatalf("the request in flight was cut off: %v", err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	answer, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the request in flight got no answer: %v", err)
	}
	answer.Body.Close()
	if answer.StatusCode != http.StatusUnauthorized {
		t.Errorf("the request in flight = %d, want 401 (wrong email or password)", answer.StatusCode)
	}

	select {
	case err := <-returned:
		if err != nil {
			t.Fatalf("serve returned %v after the signal, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return within 30 s of the signal")
	}
	if stopSignalsCalls != 1 {
		t.Errorf("stopSignals called %d times, want once (a second Ctrl-C must kill the process)", stopSignalsCalls)
	}
	for _, msg := range []string{"background workers stopped", "database pool closed"} {
		if !logs.said(msg) {
			t.Errorf("serve did not log %q on its way out", msg)
		}
	}
	if c, err := net.DialTimeout("tcp", metricsAddr, time.Second); err == nil {
		c.Close()
		t.Error("the metrics listener is still open after serve returned")
	}
	if logs.said("requests still in flight after the drain; closing their connections") {
		t.Error("the drain cut a request off")
	}
}

// With no payment provider configured serve still starts and sells holds,
// but refuses every checkout, and serves no sandbox pages.
func TestServeWithoutPaymentProvider(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	cfg, err := loadConfig(env(map[string]string{"DATABASE_URL": dbURL, "ADDR": "127.0.0.1:0", "RATE_LIMITS": "off"}))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logRecords{addr: make(chan string, 1)}
	ctx, stop := context.WithCancel(context.Background())
	returned := make(chan error, 1)
	go func() { returned <- serve(ctx, func() {}, cfg, false, slog.New(logs)) }()
	defer func() {
		stop()
		if err := <-returned; err != nil {
			t.Errorf("serve returned %v", err)
		}
	}()
	var base string
	select {
	case addr := <-logs.addr:
		base = "http://" + addr
	case err := <-returned:
		t.Fatalf("serve returned before listening: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not listen within 60 s")
	}
	if !logs.said("PAYMENTS is not set: no payment provider, so every checkout is refused, " +
		"and refunds and reconciliation wait until one is configured (PAYMENTS=sandbox for development)") {
		t.Error("serve did not warn that checkouts are refused")
	}

	pool, err := postgres.Connect(ctx, dbURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := postgres.NewStore(pool)
	show := pgtest.NewShow(t, store, pgtest.NewVenue(t, store), 2, 2, time.Now().Add(48*time.Hour))

	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	send := func(method, path, body string, header ...string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return statusAndBody(t, client, req)
	}
	if status, body := send("POST", "/api/v1/signup", `{"email":"nopay@example.com","password":"correct horse","name":"N"}`); status != http.StatusCreated {
		t.Fatalf("signup = %d %s", status, body)
	}
	status, body := send("POST", fmt.Sprintf("/api/v1/shows/%d/holds", show), `{"seats":["A1"]}`, "Idempotency-Key", "k1")
	var hold struct {
		HoldID string `json:"hold_id"`
	}
	if err := json.Unmarshal([]byte(body), &hold); status != http.StatusCreated || err != nil {
		t.Fatalf("hold = %d %s", status, body)
	}
	if status, body := send("POST", "/api/v1/holds/"+hold.HoldID+"/checkout", ""); status != http.StatusServiceUnavailable ||
		!strings.Contains(body, `"payment_provider_unavailable"`) {
		t.Fatalf("checkout = %d %s, want 503 payment_provider_unavailable", status, body)
	}
	if status, _ := send("GET", "/sandbox", "", "Accept", "text/html"); status != http.StatusNotFound {
		t.Fatalf("/sandbox = %d, want 404 without the sandbox", status)
	}
}

// statusAndBody sends req with client and returns the answer's status and body.
func statusAndBody(t *testing.T, client *http.Client, req *http.Request) (int, string) {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
