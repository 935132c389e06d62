package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

// httpImpl is the real API: web.New served by net/http on a loopback port.
// Each client is a signed-in user with its own keep-alive connection, driven
// by conn, a minimal HTTP/1.1 client: one write and one read per request and
// no goroutines of its own, as a load generator such as wrk has. The
// clients share the 2 cores with the server and Postgres, so every cycle
// net/http's client spent on its goroutine hand-offs and cookie jar would be
// taken from the server under test.
type httpImpl struct {
	base  string
	conns []*conn // by client index
}

func (*httpImpl) name() string { return "HTTP" }

// startHTTP serves the API on 127.0.0.1:<random port> and signs every user
// in. stop shuts the server down.
func startHTTP(ctx context.Context, store *postgres.Store, users []user, ttl time.Duration) (h *httpImpl, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	secret := make([]byte, 32)
	rand.Read(secret)
	reg := prometheus.NewRegistry()
	handler := server.New(web.Config{
		PublicURL:       base,
		HoldTTL:         ttl,
		MaxSeatsPerHold: maxSeatsPerHold,
		WebhookSecret:   secret,
		RateLimits:      false,
		PasswordCost:    4,
	}, store, metrics.New(reg), reg, slog.New(slog.DiscardHandler))
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)

	h = &httpImpl{base: base, conns: make([]*conn, len(users))}
	stop = func() {
		for _, c := range h.conns {
			if c != nil {
				c.close()
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(users))
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.conns[i], errs[i] = h.login(ctx, u)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		stop()
		return nil, nil, err
	}
	return h, stop, nil
}

// login signs u in through POST /api/v1/login and returns a connection
// that sends u's session cookie with every request.
func (h *httpImpl) login(ctx context.Context, u user) (*conn, error) {
	c, err := dial(ctx, h.base)
	if err != nil {
		return nil, fmt.Errorf("login %s: %w", u.email, err)
	}
	resp, body, err := c.do(http.MethodPost, "/api/v1/login", "",
		map[string]string{"email": u.email, "password": password})
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%d %s", resp.StatusCode, body)
	}
	if err == nil {
		err = errors.New("no session cookie in the answer")
		for _, ck := range resp.Cookies() {
			if ck.Name == web.SessionCookie && ck.Value != "" {
				c.cookie, err = ck.Name+"="+ck.Value, nil
			}
		}
	}
	if err != nil {
		c.close()
		return nil, fmt.Errorf("login %s: %w", u.email, err)
	}
	return c, nil
}

func (h *httpImpl) hold(ctx context.Context, c *client, showID int64, seats []string) (string, error) {
	resp, body, err := h.conns[c.n].do(http.MethodPost, fmt.Sprintf("/api/v1/shows/%d/holds", showID),
		c.nextKey(), map[string][]string{"seats": seats})
	if err != nil {
		return "", fmt.Errorf("hold: %w", err)
	}
	var answer struct {
		HoldID string `json:"hold_id"`
		Error  string `json:"error"`
	}
	switch resp.StatusCode {
	case http.StatusCreated:
		if err := json.Unmarshal(body, &answer); err != nil || answer.HoldID == "" {
			return "", fmt.Errorf("hold: 201 without a hold_id: %s", body)
		}
		return answer.HoldID, nil
	case http.StatusConflict:
		if json.Unmarshal(body, &answer) == nil && answer.Error == "seats_unavailable" {
			return "", errConflict
		}
	}
	return "", fmt.Errorf("hold: %d %s", resp.StatusCode, body)
}

func (h *httpImpl) release(ctx context.Context, c *client, holdID string) error {
	resp, body, err := h.conns[c.n].do(http.MethodDelete, "/api/v1/holds/"+holdID, "", nil)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("release: %d %s", resp.StatusCode, body)
	}
	return nil
}

// conn is one keep-alive HTTP/1.1 connection to the server, used by one
// goroutine at a time.
type conn struct {
	nc     net.Conn
	r      *bufio.Reader
	host   string
	cookie string // name=value, sent with every request once set
	buf    bytes.Buffer
}

func dial(ctx context.Context, base string) (*conn, error) {
	host := strings.TrimPrefix(base, "http://")
	nc, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, r: bufio.NewReader(nc), host: host}, nil
}

func (c *conn) close() { c.nc.Close() }

// do sends one request with a JSON body (when body is not nil) and returns
// the answer with its whole body, read to the end so the connection can
// carry the next request.
func (c *conn) do(method, path, key string, body any) (*http.Response, []byte, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, nil, err
		}
	}
	c.buf.Reset()
	fmt.Fprintf(&c.buf, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", method, path, c.host, len(payload))
	if body != nil {
		c.buf.WriteString("Content-Type: application/json\r\n")
	}
	if key != "" {
		c.buf.WriteString("Idempotency-Key: " + key + "\r\n")
	}
	if c.cookie != "" {
		c.buf.WriteString("Cookie: " + c.cookie + "\r\n")
	}
	c.buf.WriteString("\r\n")
	c.buf.Write(payload)
	c.nc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.nc.Write(c.buf.Bytes()); err != nil {
		return nil, nil, err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, nil, err
	}
	if resp.Close {
		return resp, b, errors.New("the server closed the connection")
	}
	return resp, b, nil
}
