package accesslog_test

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/logctx"
	"github.com/marquee-tickets/marquee/web/accesslog"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// lines is a server's log, kept as JSON lines.
type lines struct{ webtest.LogBuffer }

// only is the one line logged so far.
func (l *lines) only(t *testing.T) map[string]any {
	t.Helper()
	all := l.JSONLines(t)
	if len(all) != 1 {
		t.Fatalf("logged %v, want one line", all)
	}
	return all[0]
}

// server is an Echo with the access log and a few routes, whose log is
// kept. Requests from 192.0.2.0/24 come from our proxy; the user is the
// request's X-Test-User.
func server(t *testing.T, level slog.Level) (*echo.Echo, *lines) {
	log := &lines{}
	e := echo.New()
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(accesslog.Middleware(accesslog.Config{
		Log:       slog.New(slog.NewJSONHandler(log, &slog.HandlerOptions{Level: level})),
		FromProxy: func(r *http.Request) bool { return strings.HasPrefix(r.RemoteAddr, "192.0.2.") },
		User:      func(c echo.Context) string { return c.Request().Header.Get("X-Test-User") },
		Quiet:     func(c echo.Context) bool { return c.Path() == "/healthz" },
	}))
	e.GET("/shows/:show_id", func(c echo.Context) error {
		// A line the handler logs about the request names it too.
		slog.New(logctx.NewHandler(slog.NewJSONHandler(log, nil))).InfoContext(c.Request().Context(), "in the handler")
		return c.String(http.StatusOK, "a show of 20 bytes.\n")
	})
	e.GET("/healthz", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	e.GET("/fails", func(c echo.Context) error { return errors.New("broken") })
	return e, log
}

func serve(e *echo.Echo, path, peer string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr = peer
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

func TestRequestID(t *testing.T) {
	t.Run("a request gets a made id, in the header and the log", func(t *testing.T) {
		e, log := server(t, slog.LevelInfo)
		rec := serve(e, "/shows/7", "198.51.100.4:5000", nil)
		id := rec.Header().Get(accesslog.Header)
		if len(id) != 26 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
			t.Fatalf("X-Request-Id = %q, want 26 characters of base32", id)
		}
		all := log.JSONLines(t)
		if len(all) != 2 {
			t.Fatalf("logged %v, want the handler's line and the access line", all)
		}
		for _, line := range all {
			if line["request_id"] != id {
				t.Errorf("line %v: request_id %v, want %s", line, line["request_id"], id)
			}
		}
		again := serve(e, "/shows/7", "198.51.100.4:5000", nil).Header().Get(accesslog.Header)
		if again == id {
			t.Errorf("two requests were both named %s", id)
		}
	})

	for _, tt := range []struct {
		name, peer, sent string
		kept             bool
	}{
		{"a trusted proxy's id is kept", "192.0.2.10:443", "f3a1c9e2-5b7d-4e0a-9c1f-2d8b6a4e7c30", true},
		{"a proxy's id of printable ASCII is kept", "192.0.2.10:443", "Root=1-67a2f9c1-abc;Parent=53995c3f", true},
		{"an untrusted client's id is replaced", "198.51.100.4:5000", "f3a1c9e2-5b7d-4e0a-9c1f-2d8b6a4e7c30", false},
		{"a proxy's id with a space is replaced", "192.0.2.10:443", "two words", false},
		{"a proxy's id with a control character is replaced", "192.0.2.10:443", "id\x01", false},
		{"a proxy's id of other than ASCII is replaced", "192.0.2.10:443", "réf-1", false},
		{"a proxy's id over 64 bytes is replaced", "192.0.2.10:443", strings.Repeat("a", 65), false},
		{"a proxy's id of 64 bytes is kept", "192.0.2.10:443", strings.Repeat("a", 64), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, log := server(t, slog.LevelInfo)
			id := serve(e, "/healthz", tt.peer, map[string]string{accesslog.Header: tt.sent}).Header().Get(accesslog.Header)
			if kept := id == tt.sent; kept != tt.kept {
				t.Errorf("sent %q, answered %q: kept %v, want %v", tt.sent, id, kept, tt.kept)
			}
			if !tt.kept && len(id) != 26 {
				t.Errorf("X-Request-Id = %q, want a made one", id)
			}
			if log.JSONLines(t) != nil {
				t.Errorf("a probe logged at info: %v", log.JSONLines(t))
			}
		})
	}
}

func TestAccessLine(t *testing.T) {
	t.Run("every field: the route's pattern, not the path", func(t *testing.T) {
		e, log := server(t, slog.LevelInfo)
		rec := serve(e, "/shows/7?utm_source=mail", "198.51.100.4:5000", map[string]string{"X-Test-User": "u-1"})
		var line map[string]any
		for _, l := range log.JSONLines(t) {
			if l["msg"] == "request" {
				line = l
			}
		}
		want := map[string]any{
			"level": "INFO", "method": "GET", "route": "/shows/:show_id", "status": float64(200), "bytes": float64(20),
			"user_id": "u-1", "client": "198.51.100.4", "request_id": rec.Header().Get(accesslog.Header),
		}
		for k, v := range want {
			if line[k] != v {
				t.Errorf("%s = %v, want %v (line %v)", k, line[k], v, line)
			}
		}
		if d, ok := line["duration"].(float64); !ok || d < 0 {
			t.Errorf("duration = %v, want nanoseconds", line["duration"])
		}
		if strings.Contains(log.String(), "/shows/7") || strings.Contains(log.String(), "utm_source") {
			t.Errorf("the log has the raw path: %s", log.String())
		}
	})

	t.Run("a guest's line names no user", func(t *testing.T) {
		e, log := server(t, slog.LevelInfo)
		serve(e, "/healthz", "198.51.100.4:5000", nil)
		serve(e, "/fails", "198.51.100.4:5000", nil)
		if line := log.only(t); line["user_id"] != nil {
			t.Errorf("line %v names a user", line)
		}
	})

	t.Run("levels: info under 500, error for a 5xx, debug for the probes", func(t *testing.T) {
		e, log := server(t, slog.LevelDebug)
		serve(e, "/shows/7", "198.51.100.4:5000", nil)
		serve(e, "/fails", "198.51.100.4:5000", nil)
		serve(e, "/nowhere", "198.51.100.4:5000", nil)
		serve(e, "/healthz", "198.51.100.4:5000", nil)
		var got []string
		for _, l := range log.JSONLines(t) {
			if l["msg"] == "request" {
				got = append(got, l["level"].(string)+" "+l["route"].(string))
			}
		}
		want := []string{"INFO /shows/:show_id", "ERROR /fails", "INFO ", "DEBUG /healthz"}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("lines %q, want %q", got, want)
		}
	})
}

func TestHandler(t *testing.T) {
	log := &lines{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("up 1\n")) })
	h := accesslog.Handler(slog.New(slog.NewJSONHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})), mux)

	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.RemoteAddr = "10.0.0.5:4242"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	line := log.only(t)
	want := map[string]any{
		"level": "DEBUG", "msg": "request", "method": "GET", "route": "GET /metrics", "status": float64(200),
		"bytes": float64(5), "client": "10.0.0.5", "request_id": rec.Header().Get(accesslog.Header),
	}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("%s = %v, want %v (line %v)", k, line[k], v, line)
		}
	}
}
