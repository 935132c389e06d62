// Package appserver runs Marquee's web server for the benchmarks: in the
// benchmark's process on a loopback port, or as a child process with the
// live seat map wired as serve wires it. It is the one package of
// cmd/bench that imports web and web/server.
package appserver

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
	"github.com/marquee-tickets/marquee/web/session"
)

// SessionCookie is the name of the server's session cookie.
const SessionCookie = session.Cookie

// As in cmd/marquee/serve.go: the notifier's period, batch size, and how
// many changes it announces between vacuums of seat_events.
const (
	AnnounceInterval    = 50 * time.Millisecond
	AnnounceBatch       = 2000
	AnnounceVacuumEvery = 1000
)

// Handler is server.New for a benchmark: served at base, rate limits off,
// bcrypt's cheapest cost, a random webhook secret, no payment provider, no
// live seat map; its metrics go to a registry of its own.
func Handler(store *postgres.Store, base string, ttl time.Duration, log *slog.Logger) http.Handler {
	secret := make([]byte, 32)
	rand.Read(secret)
	return server.New(config(base, ttl, secret), store, metrics.New(prometheus.NewRegistry()), log)
}

// config is the web.Config of a benchmark's server, before the payment
// provider and the live seat map are given to it.
func config(base string, ttl time.Duration, secret []byte) web.Config {
	return web.Config{
		PublicURL:       base,
		HoldTTL:         ttl,
		MaxSeatsPerHold: seed.MaxSeatsPerHold,
		WebhookSecret:   secret,
		RateLimits:      false,
		PasswordCost:    4,
	}
}

// Start serves Handler (without the live seat map) on 127.0.0.1:<random
// port> in this process and returns its base URL. stop shuts it down and
// returns why it could not, or why it had stopped serving before.
func Start(store *postgres.Store, ttl time.Duration) (base string, stop func() error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	base = "http://" + ln.Addr().String()
	srv := &http.Server{
		Handler:           Handler(store, base, ttl, slog.New(slog.DiscardHandler)),
		ReadHeaderTimeout: 10 * time.Second,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	return base, sync.OnceValue(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var errs []error
		if err := srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shut down: %w", err))
		}
		// Serve has returned once Shutdown is called: ErrServerClosed,
		// unless it had failed before.
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, fmt.Errorf("serve: %w", err))
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("the benchmark's HTTP server: %w", err)
		}
		return nil
	}), nil
}
