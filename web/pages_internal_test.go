package web

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// A page's errors are HTML: a whole page, or for htmx a fragment for #flash,
// with the status and nothing of the cause.
func TestPageErrorsAreFriendlyHTML(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &Server{Log: slog.New(slog.NewTextHandler(&logs, nil))}
	e := echo.New()
	e.HTTPErrorHandler = s.HandleError
	e.Use(recoverPanics())
	e.GET("/boom", func(echo.Context) error { panic("secret detail 42") }, markPage)
	e.GET("/db", func(echo.Context) error { return errors.New("SQLSTATE 42P01 relation secret_table") }, markPage)
	e.GET("/conflict", func(echo.Context) error { return booking.ErrShowClosed }, markPage)
	e.GET("/invalid", func(echo.Context) error { return booking.ErrNoSeats }, markPage)
	e.GET("/down", func(echo.Context) error {
		return fmt.Errorf("read show: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
	}, markPage)

	for _, tc := range []struct {
		path   string
		htmx   bool
		status int
		text   string
	}{
		{"/boom", false, 500, "Something went wrong"},
		{"/boom", true, 500, "Something went wrong"},
		{"/db", false, 500, "Something went wrong"},
		{"/conflict", false, 409, "no longer on sale"},
		{"/conflict", true, 409, "no longer on sale"},
		{"/invalid", true, 422, "Pick at least one seat"},
		{"/missing", false, 404, "find that"},
		{"/down", false, 503, "Nothing you did was lost"},
		{"/down", true, 503, "Nothing you did was lost"},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		req.Header.Set("Accept", "text/html")
		if tc.htmx {
			req.Header.Set("HX-Request", "true")
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		body := rec.Body.String()
		if rec.Code != tc.status || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || !strings.Contains(body, tc.text) {
			t.Errorf("%s htmx=%v: %d %s %q", tc.path, tc.htmx, rec.Code, rec.Header().Get("Content-Type"), body)
		}
		if tc.status == 503 && rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s htmx=%v: 503 without Retry-After", tc.path, tc.htmx)
		}
		if strings.Contains(body, "secret") || strings.Contains(body, "SQLSTATE") || strings.Contains(body, "dial") {
			t.Errorf("%s: the answer shows internals: %s", tc.path, body)
		}
		if got := rec.Header().Get("Content-Security-Policy"); !strings.Contains(got, "default-src 'self'") {
			t.Errorf("%s: CSP = %q", tc.path, got)
		}
		isFragment := !strings.Contains(body, "<html")
		if isFragment != tc.htmx || (tc.htmx && rec.Header().Get("HX-Retarget") != "#flash") {
			t.Errorf("%s htmx=%v: fragment=%v retarget=%q", tc.path, tc.htmx, isFragment, rec.Header().Get("HX-Retarget"))
		}
	}
	if !strings.Contains(logs.String(), "secret detail 42") {
		t.Errorf("the panic is not logged: %s", logs.String())
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"": "/", "/shows/1?seats=A1%2CA2": "/shows/1?seats=A1%2CA2", "//evil.example/x": "/x",
		"https://evil.example/a?b=1": "/a?b=1", "/\\evil": "/", "javascript:alert(1)": "/", "shows/1": "/",
	} {
		if got := SafeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}
