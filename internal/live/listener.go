package live

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// Channel is the Postgres NOTIFY channel seat changes are announced on.
const Channel = "seat_changes"

// ApplicationName names the listener's connection in pg_stat_activity
// (unless its URL names it otherwise).
const ApplicationName = "marquee live listener"

// Listener holds this instance's one LISTEN connection, dedicated and never
// borrowed from the request pool, and publishes what it hears to the hub.
type Listener struct {
	DatabaseURL string
	Hub         *Hub
	Log         *slog.Logger
	MinBackoff  time.Duration // first wait before reconnecting
	MaxBackoff  time.Duration
	Metrics     *metrics.Metrics // may be nil

	// A LISTEN connection only reads, so on a network that falls silent
	// (a partition that resets nothing) it would wait for TCP keepalive,
	// minutes, while every viewer's map went stale. So a connection quiet
	// for QuietCheck is pinged, and one that does not answer within
	// Timeout, or a connect and LISTEN that take longer, is given up and
	// made again. Zero: DefaultQuietCheck, DefaultTimeout.
	QuietCheck time.Duration
	Timeout    time.Duration

	// Fronts, when set, is given the waiting rooms' fronts, heard on
	// waitroom.Channel on the same connection.
	Fronts *Fronts

	// Connected, when set, is called after every successful LISTEN with the
	// backend pid: a benchmark waits for the first before it measures, and
	// tests kill the connection by its pid.
	Connected func(pid uint32)
}

// The listener's defaults: a stale map is noticed within about 13 s.
const (
	DefaultQuietCheck = 10 * time.Second
	DefaultTimeout    = 3 * time.Second
)

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
	quietCheck, timeout := cmp.Or(l.QuietCheck, DefaultQuietCheck), cmp.Or(l.Timeout, DefaultTimeout)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cfg, err := pgx.ParseConfig(l.DatabaseURL)
	if err != nil {
		return err
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = ApplicationName
	}
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		// Close says goodbye to the server: bounded, as the network that
		// lost the connection may be silent.
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(cctx, "LISTEN "+Channel); err != nil {
		return err
	}
	if l.Fronts != nil {
		if _, err := conn.Exec(cctx, "LISTEN "+waitroom.Channel); err != nil {
			return err
		}
	}
	// The feed's position now: every change numbered after it is heard on
	// this connection; those before are covered by the resync below.
	last, err := feedPosition(cctx, conn)
	if err != nil {
		return err
	}
	cancel()
	// seen is the position a quiet check read: a change numbered up to it
	// was committed by then, so it must have been heard by the next check.
	seen := last
	onConnect()
	if l.Connected != nil {
		l.Connected(conn.PgConn().PID())
	}
	// Heard from now on: the hub may keep maps, until this connection ends.
	l.Hub.FeedUp()
	defer l.Hub.FeedDown()
	l.Hub.ResyncAll()
	// The quiet check is due quietCheck after the last seat change or
	// check: the rooms' fronts, heard every second, do not put it off.
	due := time.Now().Add(quietCheck)
	for {
		wctx, cancel := context.WithDeadline(ctx, due)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			due = time.Now().Add(quietCheck)
			// Quiet for quietCheck: the wait's deadline leaves the
			// connection usable, so ask whether it is still there, and
			// where the feed is.
			pctx, cancel := context.WithTimeout(ctx, timeout)
			pos, err := feedPosition(pctx, conn)
			cancel()
			if err != nil {
				return fmt.Errorf("no answer within %s after %s of quiet: %w", timeout, quietCheck, err)
			}
			if seen > last {
				l.missed("a quiet check", last, seen)
				last = seen
			}
			seen = pos
			continue
		}
		if err != nil {
			return err
		}
		if n.Channel == waitroom.Channel {
			var f waitroom.Front
			if err := json.Unmarshal([]byte(n.Payload), &f); err != nil || f.ShowID == 0 {
				l.Log.Error("unreadable waiting room front", "payload", n.Payload, "err", err)
				continue
			}
			l.Fronts.Publish(f)
			continue
		}
		due = time.Now().Add(quietCheck)
		var c Change
		if err := json.Unmarshal([]byte(n.Payload), &c); err != nil || c.ShowID == 0 {
			l.Log.Error("unreadable seat change", "payload", n.Payload, "err", err)
			continue
		}
		l.Hub.Publish(c)
		if c.Seq > 0 {
			if c.Seq > last+1 {
				l.missed("the next change's number", last, c.Seq)
			}
			last = max(last, c.Seq)
		}
	}
}

// missed tells every viewer to resync: the feed went from position last
// to pos without this listener hearing the changes between.
func (l *Listener) missed(how string, last, pos int64) {
	l.Log.Warn("seat changes missed; every seat map resyncs", "found_by", how, "heard", last, "feed", pos)
	if l.Metrics != nil {
		l.Metrics.LiveGaps.Inc()
	}
	l.Hub.ResyncAll()
}

// feedPosition reads the number of the last change announced (see
// postgres.Store.SeatFeedPosition) on the listening connection.
func feedPosition(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var pos int64
	if err := conn.QueryRow(ctx, `SELECT seq FROM seat_feed`).Scan(&pos); err != nil {
		return 0, fmt.Errorf("read the seat feed's position: %w", err)
	}
	return pos, nil
}
