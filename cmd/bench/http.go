package main

import (
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
	"net/http/cookiejar"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
)

// httpImpl is the real API: web.New served by net/http on a loopback port,
// each client a keep-alive HTTP client signed in as its own user.
type httpImpl struct {
	base    string
	clients []*http.Client // by client index
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
	handler := web.New(web.Config{
		PublicURL:       base,
		HoldTTL:         ttl,
		MaxSeatsPerHold: maxSeatsPerHold,
		WebhookSecret:   secret,
		RateLimits:      false,
		PasswordCost:    4,
	}, store, metrics.New(reg), reg, slog.New(slog.DiscardHandler))
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)

	// One transport, so connections are kept alive and reused; each client
	// has its own cookie jar, so its own session.
	transport := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: len(users) + 16,
		IdleConnTimeout:     5 * time.Minute,
		DisableCompression:  true,
	}
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		transport.CloseIdleConnections()
	}
	h = &httpImpl{base: base, clients: make([]*http.Client, len(users))}
	var wg sync.WaitGroup
	errs := make([]error, len(users))
	for i, u := range users {
		jar, _ := cookiejar.New(nil)
		h.clients[i] = &http.Client{Transport: transport, Jar: jar, Timeout: 30 * time.Second}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.login(ctx, h.clients[i], u)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		stop()
		return nil, nil, err
	}
	return h, stop, nil
}

func (h *httpImpl) login(ctx context.Context, hc *http.Client, u user) error {
	status, body, err := h.do(ctx, hc, http.MethodPost, "/api/v1/login", "",
		map[string]string{"email": u.email, "password": password})
	if err != nil {
		return fmt.Errorf("login %s: %w", u.email, err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("login %s: %d %s", u.email, status, body)
	}
	return nil
}

func (h *httpImpl) hold(ctx context.Context, c *client, showID int64, seats []string) (string, error) {
	status, body, err := h.do(ctx, h.clients[c.n], http.MethodPost, fmt.Sprintf("/api/v1/shows/%d/holds", showID),
		c.nextKey(), map[string][]string{"seats": seats})
	if err != nil {
		return "", fmt.Errorf("hold: %w", err)
	}
	var answer struct {
		HoldID string `json:"hold_id"`
		Error  string `json:"error"`
	}
	switch status {
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
	return "", fmt.Errorf("hold: %d %s", status, body)
}

func (h *httpImpl) release(ctx context.Context, c *client, holdID string) error {
	status, body, err := h.do(ctx, h.clients[c.n], http.MethodDelete, "/api/v1/holds/"+holdID, "", nil)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("release: %d %s", status, body)
	}
	return nil
}

// do sends one request with a JSON body (when body is not nil) and returns
// the status and the whole answer, read to the end so the connection is
// reused.
func (h *httpImpl) do(ctx context.Context, hc *http.Client, method, path, key string, body any) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.base+path, r)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, b, nil
}
