package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

func TestOperations(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)

	t.Run("healthz and readyz answer", func(t *testing.T) {
		webtest.Want(t, e.Guest().Get("/healthz"), http.StatusOK)
		if r := e.Guest().Get("/readyz"); r.Status != http.StatusOK || r.Str("status") != "ready" {
			t.Fatalf("readyz = %s", r)
		}
	})

	t.Run("metrics count hold outcomes, served apart from the app", func(t *testing.T) {
		c := e.User(t)
		c.MustHold(t, "A1")
		webtest.WantError(t, e.User(t).Hold("A1"), http.StatusConflict, "seats_unavailable")
		webtest.WantError(t, e.Guest().Get("/metrics"), http.StatusNotFound, "not_found")
		ms := httptest.NewServer(server.Metrics(e.Reg))
		defer ms.Close()
		resp, err := http.Get(ms.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("metrics = %d %v", resp.StatusCode, err)
		}
		text := string(body)
		for _, line := range []string{
			`marquee_hold_attempts_total{outcome="held"} 1`,
			`marquee_hold_attempts_total{outcome="conflict"} 1`,
			`marquee_seat_conflicts_total 1`,
			`marquee_hold_duration_seconds_count 2`,
		} {
			if !strings.Contains(text, line) {
				t.Errorf("metrics lack %q", line)
			}
		}
	})

	t.Run("a wrong method says which are allowed", func(t *testing.T) {
		r := e.Guest().Send(webtest.Req{Method: "PATCH", Path: "/api/v1/bookings"})
		webtest.WantError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
		if allow := r.Header.Get("Allow"); !strings.Contains(allow, "GET") {
			t.Fatalf("Allow = %q", allow)
		}
	})
}

// The limits count by the store's clock, which stands still here: however
// slowly the requests go, the allowance does not refill between them.
func TestRateLimits(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithRateLimits, webtest.WithClock)
	holder := e.FixtureUser(t) // one login of the five the address may burst

	t.Run("hammering login is answered 429 with Retry-After", func(t *testing.T) {
		var limited *webtest.Response
		for i := 0; i < 20 && limited == nil; i++ {
			r := e.Guest().Post("/api/v1/login", map[string]string{"email": "guess@example.com", "password": "guess " + strconv.Itoa(i)})
			switch r.Status {
			case http.StatusUnauthorized:
			case http.StatusTooManyRequests:
				limited = r
			default:
				t.Fatalf("login %d = %s", i, r)
			}
		}
		if limited == nil {
			t.Fatal("20 logins in a row were never limited")
		}
		webtest.WantError(t, limited, http.StatusTooManyRequests, "rate_limited")
		if s, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || s < 1 {
			t.Fatalf("Retry-After = %q", limited.Header.Get("Retry-After"))
		}
		// Sign-up has an allowance of its own.
		r := e.Guest().Post("/api/v1/signup", map[string]string{"email": "new@example.com", "password": "long enough", "name": "N"})
		webtest.Want(t, r, http.StatusCreated)
	})

	t.Run("hammering holds is answered 429", func(t *testing.T) {
		limited := false
		for i := 0; i < 40 && !limited; i++ {
			r := holder.HoldKey("same", "A1") // replays after the first
			switch r.Status {
			case http.StatusCreated, http.StatusOK:
			case http.StatusTooManyRequests:
				limited = true
				webtest.WantError(t, r, http.StatusTooManyRequests, "rate_limited")
				if r.Header.Get("Retry-After") == "" {
					t.Fatal("429 without Retry-After")
				}
			default:
				t.Fatalf("hold %d = %s", i, r)
			}
		}
		if !limited {
			t.Fatal("40 holds in a row were never limited")
		}
	})
}

// When the database fails, the client hears a 5xx that says nothing of it;
// the log says everything.
func TestInternalErrorsStayInside(t *testing.T) {
	t.Parallel()
	pgtest.Reserve(t, 2)
	pool, err := postgres.Connect(context.Background(), pgtest.NewDatabase(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	store := postgres.NewStore(pool)
	var logs webtest.LogBuffer
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(server.New(web.Config{PublicURL: webtest.PublicURL, WebhookSecret: webtest.WebhookSecret, PasswordCost: 4, Admission: webtest.PatientAdmission(), RequestTimeout: webtest.PatientRequests},
		store, metrics.New(reg), slog.New(slog.NewTextHandler(&logs, nil))))
	defer srv.Close()
	pool.Close() // every query fails from here on
	e := &webtest.Env{T: t, Srv: srv, HTTPClient: &http.Client{}}

	r := e.Guest().Get("/api/v1/shows")
	webtest.WantError(t, r, http.StatusInternalServerError, "internal")
	if strings.Contains(strings.ToLower(string(r.Body)), "pool") {
		t.Fatalf("answer leaks the cause: %s", r)
	}
	webtest.WantError(t, e.Guest().Get("/readyz"), http.StatusServiceUnavailable, "not_ready")
	if !strings.Contains(logs.String(), "closed pool") {
		t.Fatalf("log = %q, want the cause", logs.String())
	}
}
