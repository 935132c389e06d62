package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestMain(m *testing.M) {
	serveIfChild() // a fault test's app (faults_test.go)
	pgtest.Main(m)
}

// logRecords keeps serve's log messages with their attributes, so the test
// learns the address it listens on and sees how it stopped.
type logRecords struct {
	mu   sync.Mutex
	msgs []string
	addr chan string
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecords) WithGroup(string) slog.Handler            { return l }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	if r.Message == "listening" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "addr" {
				l.addr <- a.Value.String()
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
		"RATE_LIMITS":  "off",
	}))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logRecords{addr: make(chan string, 1)}
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
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz = %d, want 200", resp.StatusCode)
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
	time.Sleep(200 * time.Millisecond) // the server has read the headers: the connection is active

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
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
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
	if logs.said("requests still in flight after the drain; closing their connections") {
		t.Error("the drain cut a request off")
	}
}
