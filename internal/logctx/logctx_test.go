package logctx_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/logctx"
)

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(logctx.NewHandler(slog.NewTextHandler(&buf, nil))).With("component", "web")
	ctx := logctx.With(context.Background(), slog.String("request_id", "r1"))

	log.InfoContext(ctx, "served", "status", 200)
	log.Info("no context")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("logged %q, want two lines", buf.String())
	}
	if !strings.Contains(lines[0], "component=web status=200 request_id=r1") {
		t.Errorf("line with the context = %q, want the logger's, the call's and the context's attributes", lines[0])
	}
	if strings.Contains(lines[1], "request_id") {
		t.Errorf("line without the context = %q, want no request_id", lines[1])
	}

	t.Run("wrapping twice adds the attributes once", func(t *testing.T) {
		buf.Reset()
		twice := slog.New(logctx.NewHandler(log.Handler()))
		twice.InfoContext(ctx, "once")
		if n := strings.Count(buf.String(), "request_id="); n != 1 {
			t.Errorf("logged %q: request_id %d times, want once", buf.String(), n)
		}
	})

	t.Run("contexts made from one keep their own attributes", func(t *testing.T) {
		a := logctx.With(ctx, slog.String("user_id", "a"))
		b := logctx.With(ctx, slog.String("user_id", "b"))
		if got := logctx.Attrs(a); len(got) != 2 || got[1].Value.String() != "a" {
			t.Errorf("a's attributes = %v, want request_id and user_id=a", got)
		}
		if got := logctx.Attrs(b); len(got) != 2 || got[1].Value.String() != "b" {
			t.Errorf("b's attributes = %v, want request_id and user_id=b", got)
		}
	})

	t.Run("the level is the wrapped handler's", func(t *testing.T) {
		h := logctx.NewHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
		if h.Enabled(ctx, slog.LevelInfo) || !h.Enabled(ctx, slog.LevelError) {
			t.Error("want info off and error on, as the wrapped handler has them")
		}
	})
}
