package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/logctx"
)

func TestLogConfig(t *testing.T) {
	for _, tt := range []struct {
		level, format string
		wantLevel     slog.Level
		wantJSON      bool
	}{
		{"", "", slog.LevelInfo, false},
		{"debug", "json", slog.LevelDebug, true},
		{"INFO", "Text", slog.LevelInfo, false},
		{" warn ", "JSON", slog.LevelWarn, true},
		{"error", "text", slog.LevelError, false},
	} {
		cfg, err := loadConfig(env(map[string]string{"DATABASE_URL": testDB, "LOG_LEVEL": tt.level, "LOG_FORMAT": tt.format}))
		if err != nil {
			t.Errorf("LOG_LEVEL=%q LOG_FORMAT=%q: %v", tt.level, tt.format, err)
			continue
		}
		if cfg.LogLevel != tt.wantLevel || cfg.LogJSON != tt.wantJSON {
			t.Errorf("LOG_LEVEL=%q LOG_FORMAT=%q: level %v, json %v; want %v, %v",
				tt.level, tt.format, cfg.LogLevel, cfg.LogJSON, tt.wantLevel, tt.wantJSON)
		}
	}

	for _, tt := range []struct{ name, value, want string }{
		{"LOG_LEVEL", "verbose", `LOG_LEVEL="verbose": must be debug, info, warn or error`},
		{"LOG_LEVEL", "-4", `LOG_LEVEL="-4": must be debug, info, warn or error`},
		{"LOG_LEVEL", "warning", `LOG_LEVEL="warning": must be debug, info, warn or error`},
		{"LOG_FORMAT", "yaml", `LOG_FORMAT="yaml": must be text or json`},
		{"LOG_FORMAT", "logfmt", `LOG_FORMAT="logfmt": must be text or json`},
	} {
		_, err := loadConfig(env(map[string]string{"DATABASE_URL": testDB, tt.name: tt.value}))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s=%q: error %v, want %q", tt.name, tt.value, err, tt.want)
		}
	}
}

// The log has the configured format and level, and every line logged with
// a request's context names the request.
func TestNewLogger(t *testing.T) {
	ctx := logctx.With(context.Background(), slog.String("request_id", "ABC123"))

	var buf bytes.Buffer
	log := newLogger(&buf, config{LogLevel: slog.LevelWarn, LogJSON: true}).With("component", "web")
	log.InfoContext(ctx, "below the level")
	log.WarnContext(ctx, "logged", "status", 503)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: want one JSON line: %v", buf.String(), err)
	}
	if line["msg"] != "logged" || line["level"] != "WARN" || line["component"] != "web" ||
		line["status"] != float64(503) || line["request_id"] != "ABC123" {
		t.Errorf("line = %v, want the warning with its component, status and request_id", line)
	}

	buf.Reset()
	newLogger(&buf, config{}).InfoContext(ctx, "as text")
	if got := buf.String(); !strings.HasPrefix(got, "time=") || !strings.Contains(got, `level=INFO msg="as text" request_id=ABC123`) {
		t.Errorf("text line = %q", got)
	}
}
