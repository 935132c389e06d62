package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	gommon "github.com/labstack/gommon/log"
)

// echoLogger is Echo's own log (a response written twice, a route added
// without a handler) as lines of the server's log, from "echo". Its level,
// output and prefix are the server's log's: setting them changes nothing.
type echoLogger struct{ log *slog.Logger }

func (l echoLogger) Output() io.Writer {
	return slog.NewLogLogger(l.log.With("from", "echo").Handler(), slog.LevelWarn).Writer()
}
func (echoLogger) SetOutput(io.Writer) {}
func (echoLogger) Prefix() string      { return "" }
func (echoLogger) SetPrefix(string)    {}
func (echoLogger) Level() gommon.Lvl   { return gommon.DEBUG }
func (echoLogger) SetLevel(gommon.Lvl) {}
func (echoLogger) SetHeader(string)    {}

func (l echoLogger) Print(i ...any)               { l.line(slog.LevelInfo, fmt.Sprint(i...)) }
func (l echoLogger) Printf(f string, args ...any) { l.line(slog.LevelInfo, fmt.Sprintf(f, args...)) }
func (l echoLogger) Printj(j gommon.JSON)         { l.json(slog.LevelInfo, j) }
func (l echoLogger) Debug(i ...any)               { l.line(slog.LevelDebug, fmt.Sprint(i...)) }
func (l echoLogger) Debugf(f string, args ...any) { l.line(slog.LevelDebug, fmt.Sprintf(f, args...)) }
func (l echoLogger) Debugj(j gommon.JSON)         { l.json(slog.LevelDebug, j) }
func (l echoLogger) Info(i ...any)                { l.line(slog.LevelInfo, fmt.Sprint(i...)) }
func (l echoLogger) Infof(f string, args ...any)  { l.line(slog.LevelInfo, fmt.Sprintf(f, args...)) }
func (l echoLogger) Infoj(j gommon.JSON)          { l.json(slog.LevelInfo, j) }
func (l echoLogger) Warn(i ...any)                { l.line(slog.LevelWarn, fmt.Sprint(i...)) }
func (l echoLogger) Warnf(f string, args ...any)  { l.line(slog.LevelWarn, fmt.Sprintf(f, args...)) }
func (l echoLogger) Warnj(j gommon.JSON)          { l.json(slog.LevelWarn, j) }
func (l echoLogger) Error(i ...any)               { l.line(slog.LevelError, fmt.Sprint(i...)) }
func (l echoLogger) Errorf(f string, args ...any) { l.line(slog.LevelError, fmt.Sprintf(f, args...)) }
func (l echoLogger) Errorj(j gommon.JSON)         { l.json(slog.LevelError, j) }

// Fatal and Panic end the process or the goroutine after the line, as
// Echo's own logger does.
func (l echoLogger) Fatal(i ...any)               { l.Error(i...); os.Exit(1) }
func (l echoLogger) Fatalf(f string, args ...any) { l.Errorf(f, args...); os.Exit(1) }
func (l echoLogger) Fatalj(j gommon.JSON)         { l.Errorj(j); os.Exit(1) }
func (l echoLogger) Panic(i ...any)               { l.Error(i...); panic(fmt.Sprint(i...)) }
func (l echoLogger) Panicf(f string, args ...any) {
	l.Errorf(f, args...)
	panic(fmt.Sprintf(f, args...))
}
func (l echoLogger) Panicj(j gommon.JSON) { l.Errorj(j); panic(fmt.Sprint(j)) }

// line and json log without a request's context: Echo gives none.
func (l echoLogger) line(level slog.Level, msg string) {
	l.log.Log(context.Background(), level, msg, "from", "echo")
}

func (l echoLogger) json(level slog.Level, j gommon.JSON) {
	attrs := make([]slog.Attr, 0, len(j)+1)
	attrs = append(attrs, slog.String("from", "echo"))
	for k, v := range j {
		attrs = append(attrs, slog.Any(k, v))
	}
	l.log.LogAttrs(context.Background(), level, "echo", attrs...)
}
