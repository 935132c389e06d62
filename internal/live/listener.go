package live

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/metrics"
)

// Channel is the Postgres NOTIFY channel seat changes are announced on.
const Channel = "seat_changes"

// Listener holds this instance's one LISTEN connection, dedicated and never
// borrowed from the request pool, and publishes what it hears to the hub.
type Listener struct {
	DatabaseURL string
	Hub         *Hub
	Log         *slog.Logger
	MinBackoff  time.Duration // first wait before reconnecting
	MaxBackoff  time.Duration
	Metrics     *metrics.Metrics // may be nil

	// Connected, when set, is called after every successful LISTEN with the
	// backend pid: a benchmark waits for the first before it measures, and
	// tests kill the connection by its pid.
	Connected func(pid uint32)
}

// Run listens until ctx is done, reconnecting with backoff whenever the
// connection or the database drops. After every (re)connect every
// subscriber is told to resync: notifications sent while the listener was
// away are gone.
func (l *Listener) Run(ctx context.Context) {
	backoff := l.MinBackoff
	connects := 0
	for ctx.Err() == nil {
		err := l.listen(ctx, func() {
			backoff = l.MinBackoff
			if connects++; connects > 1 && l.Metrics != nil {
				l.Metrics.LiveReconnects.Inc()
			}
		})
		if ctx.Err() != nil {
			return
		}
		l.Log.Warn("seat change listener lost; reconnecting", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, l.MaxBackoff)
	}
}

func (l *Listener) listen(ctx context.Context, onConnect func()) error {
	conn, err := pgx.Connect(ctx, l.DatabaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return err
	}
	onConnect()
	if l.Connected != nil {
		l.Connected(conn.PgConn().PID())
	}
	l.Hub.ResyncAll()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var c Change
		if err := json.Unmarshal([]byte(n.Payload), &c); err != nil || c.ShowID == 0 {
			l.Log.Error("unreadable seat change", "payload", n.Payload, "err", err)
			continue
		}
		l.Hub.Publish(c)
	}
}
