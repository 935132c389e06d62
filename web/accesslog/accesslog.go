// Package accesslog names every request and logs one line for each.
//
// A request's id is the X-Request-Id its proxy sent, when it came through
// one of ours and the id is well formed, else one made here. It goes back
// in the answer's X-Request-Id, into every line logged with the request's
// context (see logctx), and into the body of an answer that failed on our
// side, for a person to quote.
//
// The line says what was asked (method and route: the route's pattern,
// /shows/:show_id, never the path with its ids and query), what was
// answered (status, bytes sent, the time it took), and for whom (the
// signed-in user, the client's address).
package accesslog

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/logctx"
)

// Header carries a request's id, in the request from a proxy and in the
// answer.
const Header = "X-Request-Id"

// maxIDLen bounds the id a proxy may send: ids of common proxies (a UUID,
// 32 hex digits, a trace header's) are shorter.
const maxIDLen = 64

// Config is what the log needs to know of the server.
type Config struct {
	// Log is where the lines go.
	Log *slog.Logger
	// FromProxy reports whether a request came through a proxy of ours,
	// whose X-Request-Id is kept; nil: no proxy's is.
	FromProxy func(*http.Request) bool
	// User is the user a request was served for, "" for a guest; nil: none.
	User func(echo.Context) string
	// Quiet reports whether a request's line is logged at debug rather
	// than info or error: the probes and the static files, asked for so
	// often that they would drown the rest. nil: none is.
	Quiet func(echo.Context) bool
}

type idKey struct{}

// ID is the id of the request of ctx; "" outside a request.
func ID(ctx context.Context) string {
	id, _ := ctx.Value(idKey{}).(string)
	return id
}

// Middleware names each request and logs its line once it is answered. It
// comes first, so that every line logged about the request, a panic's
// too, names it, and its line says what the client got. An error that
// reaches it is answered by Echo's error handler before the line is written.
func Middleware(cfg Config) echo.MiddlewareFunc {
	log := slog.New(logctx.NewHandler(cfg.Log.Handler()))
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			began := time.Now()
			req := c.Request()
			id := req.Header.Get(Header)
			if cfg.FromProxy == nil || !cfg.FromProxy(req) || !wellFormed(id) {
				id = NewID()
			}
			c.Response().Header().Set(Header, id)
			ctx := withID(req.Context(), id)
			c.SetRequest(req.WithContext(ctx))
			sent := &countingWriter{ResponseWriter: c.Response().Writer}
			c.Response().Writer = sent

			if err := next(c); err != nil {
				c.Error(err)
			}

			level := slog.LevelInfo
			status := c.Response().Status
			switch {
			case cfg.Quiet != nil && cfg.Quiet(c):
				// A probe that fails says why in a line of its own.
				level = slog.LevelDebug
			case status >= http.StatusInternalServerError && !errors.Is(req.Context().Err(), context.Canceled):
				// A client that went away is not a failure of ours, whatever
				// was answered to nobody.
				level = slog.LevelError
			}
			if !log.Enabled(ctx, level) {
				return nil
			}
			attrs := []slog.Attr{
				slog.String("method", req.Method),
				slog.String("route", c.Path()),
				slog.Int("status", status),
				slog.Duration("duration", time.Since(began)),
				slog.Int64("bytes", sent.n),
			}
			if cfg.User != nil {
				if user := cfg.User(c); user != "" {
					attrs = append(attrs, slog.String("user_id", user))
				}
			}
			attrs = append(attrs, slog.String("client", c.RealIP()))
			log.LogAttrs(ctx, level, "request", attrs...)
			return nil
		}
	}
}

// Handler names and logs the requests h serves, at debug (Quiet): for a
// listener of its own, such as the metrics', with no proxy nor user. The
// route is the pattern of an http.ServeMux.
func Handler(log *slog.Logger, h http.Handler) http.Handler {
	log = slog.New(logctx.NewHandler(log.Handler()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		id := NewID()
		w.Header().Set(Header, id)
		ctx := withID(r.Context(), id)
		r = r.WithContext(ctx)
		sent := &countingWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sent, r)
		if !log.Enabled(ctx, slog.LevelDebug) {
			return
		}
		client, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			client = r.RemoteAddr
		}
		log.LogAttrs(ctx, slog.LevelDebug, "request",
			slog.String("method", r.Method), slog.String("route", r.Pattern), slog.Int("status", sent.status),
			slog.Duration("duration", time.Since(began)), slog.Int64("bytes", sent.n), slog.String("client", client))
	})
}

// NewID makes a request id: 26 letters and digits of base32, 128 random
// bits.
func NewID() string { return rand.Text() }

// withID is ctx of the request named id.
func withID(ctx context.Context, id string) context.Context {
	return logctx.With(context.WithValue(ctx, idKey{}, id), slog.String("request_id", id))
}

// wellFormed reports whether a proxy's id may be used as it is: short, and
// of printable ASCII without spaces, so that it reads the same in a log
// line, a header, a JSON body and a page.
func wellFormed(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := range len(id) {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// countingWriter counts the bytes written through it: under the gzip
// middleware, those sent.
type countingWriter struct {
	http.ResponseWriter
	n      int64
	status int // as written, for Handler; Echo keeps its own
}

func (w *countingWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection: flushing, and
// the websockets' hijacking.
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
