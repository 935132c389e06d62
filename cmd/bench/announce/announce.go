// Package announce runs the live seat map's announcing side in the
// benchmark's process as an app instance runs it (cmd/marquee/serve.go):
// the hub, its listener and the notifier, and, for comparison, more
// listening connections and a watch on the seat_events backlog.
package announce

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Way is one way of announcing seat changes.
type Way struct {
	Key, Name string
	Events    bool // seat_events rows: from hold_seats and end_hold, and the trigger for the rest
	Naive     bool // the naive pg_notify trigger (pgtest.InstallNaiveNotify)
	Notifier  bool // a notifier batches seat_events into NOTIFYs
	Listeners int  // LISTEN connections: one feeds a hub, the rest only read
}

// Ways are the ways cmd/bench -live compares, in its order: none, the
// design, and the naive pg_notify with one listener and with listeners.
func Ways(listeners int) []Way {
	return []Way{
		{Key: "none", Name: "none (seat_events off)"},
		Design,
		{Key: "naive1", Name: "naive pg_notify, 1 listener", Naive: true, Listeners: 1},
		{Key: "naiveN", Name: fmt.Sprintf("naive pg_notify, %d listeners", listeners), Naive: true, Listeners: listeners},
	}
}

// Design is ours, as serve runs it.
var Design = Way{Key: "design", Name: "design: seat_events + notifier 50 ms, 1 listener", Events: true, Notifier: true, Listeners: 1}

// Machinery is what runs beside a measurement: the hub, listener
// connections, the notifier and a watch on the seat_events backlog, as
// its Way asks, in this process.
type Machinery struct {
	Hub       *live.Hub
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	received  atomic.Int64 // notifications read by the extra listeners
	maxEvents atomic.Int64 // largest seat_events backlog seen
	samples   atomic.Int64
}

// listenWait bounds the wait for the hub's listener to connect.
const listenWait = 30 * time.Second

// Start starts what way asks for on dbURL's database and waits until every
// listener has run LISTEN. store's pool (pool) serves the notifier and the
// hub's reads, as in serve.
func Start(ctx context.Context, dbURL string, store *postgres.Store, pool *pgxpool.Pool, way Way) (*Machinery, error) {
	mctx, cancel := context.WithCancel(ctx)
	m := &Machinery{cancel: cancel}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m.Hub = live.NewHub(store.SeatStates, log)
	mm := metrics.New(prometheus.NewRegistry()) // as in serve; nobody reads them here
	m.Hub.Metrics = mm
	m.wg.Go(func() { m.Hub.Run(mctx) })
	if way.Listeners > 0 {
		// A cell measured before the hub listens would miss its first
		// changes, on a loaded machine all of them: wait for the LISTEN.
		listening := make(chan struct{})
		var once sync.Once
		l := &live.Listener{
			DatabaseURL: dbURL, Hub: m.Hub, Log: log, Metrics: mm,
			MinBackoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second,
			Connected: func(uint32) { once.Do(func() { close(listening) }) },
		}
		m.wg.Go(func() { l.Run(mctx) })
		select {
		case <-listening:
		case <-time.After(listenWait):
			m.Stop()
			return nil, fmt.Errorf("listener: not listening after %v", listenWait)
		}
	}
	for range max(way.Listeners-1, 0) {
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			m.Stop()
			return nil, fmt.Errorf("listener: %w", err)
		}
		if err := pgtest.Listen(ctx, conn, live.Channel); err != nil {
			conn.Close(ctx)
			m.Stop()
			return nil, err
		}
		m.wg.Go(func() {
			defer conn.Close(context.WithoutCancel(mctx))
			for {
				if _, err := conn.WaitForNotification(mctx); err != nil {
					return
				}
				m.received.Add(1)
			}
		})
	}
	if way.Notifier {
		n := &live.Notifier{
			Flush: func(ctx context.Context, limit int) (int, error) {
				return store.AnnounceSeatChanges(ctx, live.Channel, limit)
			},
			Interval: appserver.AnnounceInterval, Batch: appserver.AnnounceBatch, Log: log,
			Vacuum: store.VacuumSeatEvents, VacuumEvery: appserver.AnnounceVacuumEvery,
		}
		m.wg.Go(func() { n.Run(mctx) })
	}
	if way.Events {
		// The backlog, on a connection of its own (not the pool's), every
		// 100 ms: it must stay bounded while the notifier runs.
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			m.Stop()
			return nil, fmt.Errorf("backlog watch: %w", err)
		}
		m.wg.Go(func() {
			defer conn.Close(context.WithoutCancel(mctx))
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				n, err := pgtest.CountSeatEvents(mctx, conn)
				if err != nil {
					return
				}
				m.samples.Add(1)
				if n > m.maxEvents.Load() {
					m.maxEvents.Store(n)
				}
				select {
				case <-mctx.Done():
					return
				case <-t.C:
				}
			}
		})
	}
	if err := WaitListening(ctx, pool, way.Listeners); err != nil {
		m.Stop()
		return nil, err
	}
	return m, nil
}

// Stop stops everything Start started and waits for it.
func (m *Machinery) Stop() {
	m.cancel()
	m.wg.Wait()
}

// Backlog is the largest seat_events count the watch saw, and how many
// times it looked.
func (m *Machinery) Backlog() (largest, samples int64) { return m.maxEvents.Load(), m.samples.Load() }

// Received is how many notifications the extra listeners read.
func (m *Machinery) Received() int64 { return m.received.Load() }

// WaitListening waits until n connections of pool's database have run
// LISTEN, for up to 15 s.
func WaitListening(ctx context.Context, pool *pgxpool.Pool, n int) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		k, err := pgtest.Listeners(ctx, pool)
		if err != nil {
			return err
		}
		if k >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d listeners connected after 15 s", k, n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
