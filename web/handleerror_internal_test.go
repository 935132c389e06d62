package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web/problem"
)

// A panic is a 500 with nothing of the panic in the answer; the log has it.
func TestPanicIsInternal(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &Server{Log: slog.New(slog.NewTextHandler(&logs, nil))}
	e := echo.New()
	e.HTTPErrorHandler = s.HandleError
	e.Use(recoverPanics())
	e.GET("/boom", func(echo.Context) error { panic("secret detail 42") })

	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/boom", nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("answer %q is not JSON: %v", rec.Body, err)
	}
	if rec.Code != 500 || body["error"] != "internal" || strings.Contains(rec.Body.String(), "secret") {
		t.Fatalf("answer = %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), "secret detail 42") || !strings.Contains(logs.String(), "stack") {
		t.Fatalf("log = %q, want the panic and its stack", logs.String())
	}
}

// A database out of reach is a 503 unavailable with Retry-After, in the
// envelope of every error, without the driver's words.
func TestUnavailableAnswer(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &Server{Log: slog.New(slog.NewTextHandler(&logs, nil))}
	e := echo.New()
	e.HTTPErrorHandler = s.HandleError
	e.GET("/api/v1/shows", func(echo.Context) error {
		return fmt.Errorf("list shows: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
	})

	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/shows", nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("answer %q is not JSON: %v", rec.Body, err)
	}
	if rec.Code != 503 || body["error"] != "unavailable" || body["retry_after"] != float64(problem.UnavailableRetryAfter) ||
		strings.Contains(rec.Body.String(), "dial") {
		t.Fatalf("answer = %d %s", rec.Code, rec.Body)
	}
	if got := rec.Header().Get("Retry-After"); got != fmt.Sprint(problem.UnavailableRetryAfter) {
		t.Errorf("Retry-After = %q, want %d", got, problem.UnavailableRetryAfter)
	}
	if !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("log = %q, want the cause", logs.String())
	}
}
