package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/accesslog"
	"github.com/marquee-tickets/marquee/web/server"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// jsonLog keeps a server's log as JSON lines.
type jsonLog struct{ webtest.LogBuffer }

// lines are the lines logged so far that name request id.
func (l *jsonLog) lines(t *testing.T, id string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range l.JSONLines(t) {
		if m["request_id"] == id {
			out = append(out, m)
		}
	}
	return out
}

// accessLine waits for the access line of request id: it is written once
// the answer is, which the client may have read already.
func (l *jsonLog) accessLine(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, line := range l.lines(t, id) {
			if line["msg"] == "request" {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access line for request %s in 10 s", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// traced is a server on store whose log is kept, with a route that panics
// at /boom. Requests from the test come from 127.0.0.1: with trusted, from
// a proxy of ours.
func traced(t *testing.T, store *postgres.Store, trusted ...netip.Prefix) (*webtest.Env, *jsonLog) {
	t.Helper()
	log := &jsonLog{}
	h := server.New(web.Config{
		PublicURL: webtest.PublicURL, WebhookSecret: webtest.WebhookSecret, PasswordCost: 4,
		Admission: webtest.PatientAdmission(), RequestTimeout: webtest.PatientRequests, TrustedProxies: trusted,
	}, store, metrics.New(prometheus.NewRegistry()), slog.New(slog.NewJSONHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	h.(*echo.Echo).GET("/boom", func(echo.Context) error { panic("a bug of ours") })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &webtest.Env{T: t, Srv: srv, HTTPClient: &http.Client{Timeout: 30 * time.Second}}, log
}

// madeID reports whether id is one the server made.
func madeID(id string) bool {
	return len(id) == 26 && strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") == ""
}

func TestRequestIDs(t *testing.T) {
	t.Parallel()
	store := pgtest.NewStore(t, 8)
	direct, directLog := traced(t, store)
	proxied, proxiedLog := traced(t, store, netip.MustParsePrefix("127.0.0.1/32"))

	t.Run("a request gets a made id, in the header and the access line", func(t *testing.T) {
		r := direct.Guest().Get("/api/v1/shows")
		webtest.Want(t, r, http.StatusOK)
		id := r.Header.Get(accesslog.Header)
		if !madeID(id) {
			t.Fatalf("X-Request-Id = %q, want a made id", id)
		}
		line := directLog.accessLine(t, id)
		want := map[string]any{
			"level": "INFO", "method": "GET", "route": "/api/v1/shows", "status": float64(200),
			"client": "127.0.0.1", "user_id": nil,
		}
		for k, v := range want {
			if line[k] != v {
				t.Errorf("%s = %v, want %v (line %v)", k, line[k], v, line)
			}
		}
		if n, _ := line["bytes"].(float64); n <= 0 {
			t.Errorf("bytes = %v, want the body's", line["bytes"])
		}
		if _, ok := line["duration"].(float64); !ok {
			t.Errorf("no duration in %v", line)
		}
	})

	t.Run("the access line names the route's pattern and the signed-in user", func(t *testing.T) {
		c := direct.Guest()
		userID, _ := c.Signup(t)
		r := c.Get("/api/v1/holds/00000000-0000-0000-0000-000000000000?from=mail")
		webtest.WantError(t, r, http.StatusNotFound, "not_found")
		line := directLog.accessLine(t, r.Header.Get(accesslog.Header))
		if line["route"] != "/api/v1/holds/:hold_id" || line["user_id"] != userID || line["status"] != float64(404) || line["level"] != "INFO" {
			t.Errorf("line %v: want route /api/v1/holds/:hold_id, user_id %s, status 404 at INFO", line, userID)
		}
		if _, ok := r.JSON["request_id"]; ok {
			t.Errorf("a 404 carries the request id: %s", r)
		}
	})

	t.Run("an untrusted client's id is replaced", func(t *testing.T) {
		r := direct.Guest().Send(webtest.Req{Method: "GET", Path: "/healthz", Header: map[string]string{
			accesslog.Header: "lb-4f1c2a", "X-Forwarded-For": "203.0.113.9"}})
		if id := r.Header.Get(accesslog.Header); !madeID(id) {
			t.Errorf("X-Request-Id = %q, want a made one in place of the client's", id)
		}
	})

	t.Run("a trusted proxy's id is kept, and names the client it forwards", func(t *testing.T) {
		r := proxied.Guest().Send(webtest.Req{Method: "GET", Path: "/api/v1/shows", Header: map[string]string{
			accesslog.Header: "lb-4f1c2a", "X-Forwarded-For": "203.0.113.9"}})
		webtest.Want(t, r, http.StatusOK)
		if id := r.Header.Get(accesslog.Header); id != "lb-4f1c2a" {
			t.Fatalf("X-Request-Id = %q, want the proxy's lb-4f1c2a", id)
		}
		if line := proxiedLog.accessLine(t, "lb-4f1c2a"); line["client"] != "203.0.113.9" {
			t.Errorf("client = %v, want the forwarded 203.0.113.9", line["client"])
		}
	})

	t.Run("a trusted proxy's malformed id is replaced", func(t *testing.T) {
		for _, bad := range []string{"two words", strings.Repeat("x", 65), "caf\u00e9"} {
			r := proxied.Guest().Send(webtest.Req{Method: "GET", Path: "/healthz", Header: map[string]string{accesslog.Header: bad}})
			if id := r.Header.Get(accesslog.Header); !madeID(id) {
				t.Errorf("sent %q, X-Request-Id = %q: want a made one", bad, id)
			}
		}
	})

	t.Run("a 5xx JSON body carries the id, and so does the panic's line", func(t *testing.T) {
		r := direct.Guest().Get("/boom")
		webtest.WantError(t, r, http.StatusInternalServerError, "internal")
		id := r.Header.Get(accesslog.Header)
		if r.Str("request_id") != id || !madeID(id) {
			t.Fatalf("body %s, X-Request-Id %q: want the id in both", r, id)
		}
		if line := directLog.accessLine(t, id); line["level"] != "ERROR" || line["status"] != float64(500) || line["route"] != "/boom" {
			t.Errorf("access line %v: want a 500 at ERROR", line)
		}
		var failed map[string]any
		for _, line := range directLog.lines(t, id) {
			if line["msg"] == "request failed" {
				failed = line
			}
		}
		if failed == nil || failed["level"] != "ERROR" || !strings.Contains(failed["err"].(string), "a bug of ours") ||
			!strings.Contains(failed["stack"].(string), "panic") {
			t.Errorf("the panic's line = %v, want it with its error and stack", failed)
		}
	})

	t.Run("an HTML 5xx page and toast show the id as a reference", func(t *testing.T) {
		page := direct.Guest().Send(webtest.Req{Method: "GET", Path: "/boom", Header: map[string]string{"Accept": "text/html"}})
		toast := direct.Guest().Send(webtest.Req{Method: "GET", Path: "/boom", Header: map[string]string{"HX-Request": "true"}})
		for _, r := range []*webtest.Response{page, toast} {
			id := r.Header.Get(accesslog.Header)
			if r.Status != http.StatusInternalServerError || !strings.Contains(string(r.Body), "Reference: <span class=\"select-all font-mono\">"+id+"</span>") {
				t.Errorf("status %d, body %s: want the reference %s", r.Status, r.Body, id)
			}
		}
		notFound := direct.Guest().Send(webtest.Req{Method: "GET", Path: "/nowhere", Header: map[string]string{"Accept": "text/html"}})
		if notFound.Status != http.StatusNotFound || strings.Contains(string(notFound.Body), "Reference") {
			t.Errorf("a 404 page: status %d, body %s; want no reference", notFound.Status, notFound.Body)
		}
	})
}

// A real failure, the database gone, is answered with the id on the API
// and on a page, and logged under it.
func TestFailuresCarryTheRequestID(t *testing.T) {
	t.Parallel()
	pgtest.Reserve(t, 2)
	pool, err := postgres.Connect(context.Background(), pgtest.NewDatabase(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	e, log := traced(t, postgres.NewStore(pool))
	pool.Close() // every query fails from here on

	api := e.Guest().Get("/api/v1/shows")
	webtest.WantError(t, api, http.StatusInternalServerError, "internal")
	page := e.Guest().Send(webtest.Req{Method: "GET", Path: "/", Header: map[string]string{"Accept": "text/html"}})
	ready := e.Guest().Get("/readyz")
	webtest.WantError(t, ready, http.StatusServiceUnavailable, "not_ready")

	for _, r := range []*webtest.Response{api, ready} {
		if id := r.Header.Get(accesslog.Header); r.Str("request_id") != id || !madeID(id) {
			t.Errorf("%s, X-Request-Id %q: want the id in the body", r, id)
		}
	}
	id := page.Header.Get(accesslog.Header)
	if page.Status != http.StatusInternalServerError || !strings.Contains(string(page.Body), id) {
		t.Errorf("home page: status %d, want 500 with the reference %s: %s", page.Status, id, page.Body)
	}
	log.accessLine(t, id)
	var cause bool
	for _, line := range log.lines(t, id) {
		cause = cause || line["msg"] == "request failed" && strings.Contains(line["err"].(string), "closed pool")
	}
	if !cause {
		t.Errorf("no line names the cause under the request's id: %v", log.lines(t, id))
	}
	if line := log.accessLine(t, ready.Header.Get(accesslog.Header)); line["level"] != "DEBUG" {
		t.Errorf("a failing probe's access line %v: want DEBUG (its own line says why)", line)
	}
}
