package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-migrate/migrate/v4"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// As in cmd/marquee/serve.go: the notifier's period and batch size.
const (
	announceInterval    = 50 * time.Millisecond
	announceBatch       = 2000
	announceVacuumEvery = 1000
)

// naiveNotifySQL installs the naive announcement for comparison: a
// statement-level trigger that calls pg_notify inside the transaction that
// changed the seats, one NOTIFY per statement and show, naming the changed
// seats in the payload the listener reads ({"show":id,"seats":[...],"at":ms}). A
// hold and a release are one UPDATE of show_seats each, so each sends one
// NOTIFY. It starts disabled.
const naiveNotifySQL = `
CREATE FUNCTION bench_notify_seat_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('` + live.Channel + `',
                      json_build_object('show', show_id, 'seats', json_agg(seat_id ORDER BY seat_id),
                                        'at', (extract(epoch FROM clock_timestamp()) * 1000)::bigint)::text)
       FROM changed GROUP BY show_id;
    RETURN NULL;
END $$;
CREATE TRIGGER bench_show_seats_notify AFTER UPDATE ON show_seats
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION bench_notify_seat_changes();
ALTER TABLE show_seats DISABLE TRIGGER bench_show_seats_notify;`

// announcing is one way of announcing seat changes during a hold cell.
type announcing struct {
	key, name string
	events    bool // the seat_events trigger (migration 000006)
	naive     bool // the bench's pg_notify trigger
	notifier  bool // a notifier batches seat_events into NOTIFYs
	listeners int  // LISTEN connections: one feeds a hub, the rest only read
}

func announcings(listeners int) []announcing {
	return []announcing{
		{key: "none", name: "none (seat_events off)"},
		{key: "design", name: "design: seat_events + notifier 50 ms, 1 listener", events: true, notifier: true, listeners: 1},
		{key: "naive1", name: "naive pg_notify, 1 listener", naive: true, listeners: 1},
		{key: "naiveN", name: fmt.Sprintf("naive pg_notify, %d listeners", listeners), naive: true, listeners: listeners},
	}
}

// selfRecordingVersion is the migration (000013) from which hold_seats and
// end_hold insert their own seat_events rows instead of the trigger.
const selfRecordingVersion = 13

// prepare readies the database for a cell of way a: settled (see
// bench.settle), the schema in the state a measures and seat_events empty.
// The ways without seat_events run at the migration before
// selfRecordingVersion, whose hold_seats and end_hold record nothing
// themselves, with the trigger off: the hold path exactly as it was, minus
// the announcements. The design runs at the latest migration, as serve
// does.
func (lb *liveBench) prepare(ctx context.Context, a announcing) error {
	if err := lb.settle(ctx); err != nil {
		return err
	}
	var err error
	if a.events {
		err = lb.migrator.Up()
	} else {
		err = lb.migrator.Migrate(selfRecordingVersion - 1)
	}
	if err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrate for %s: %w", a.key, err)
	}
	state := func(on bool) string {
		if on {
			return "ENABLE"
		}
		return "DISABLE"
	}
	_, err = lb.pool.Exec(ctx, fmt.Sprintf(
		`ALTER TABLE show_seats %s TRIGGER show_seats_changed, %s TRIGGER bench_show_seats_notify`,
		state(a.events), state(a.naive)))
	if err != nil {
		return fmt.Errorf("set triggers for %s: %w", a.key, err)
	}
	if _, err := lb.pool.Exec(ctx, `TRUNCATE seat_events`); err != nil {
		return fmt.Errorf("clear seat_events: %w", err)
	}
	return nil
}

// machinery is what runs beside a cell: the live seat map's hub, listener
// connections, the notifier and a watch on the seat_events backlog, as an
// app instance runs them (cmd/marquee/serve.go), in this process.
type machinery struct {
	hub       *live.Hub
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	received  atomic.Int64 // notifications read by the extra listeners
	maxEvents atomic.Int64 // largest seat_events backlog seen
	samples   atomic.Int64
}

// startMachinery starts what a asks for and waits until every listener has
// run LISTEN. store's pool serves the notifier and the hub's reads, as in
// serve.
func startMachinery(ctx context.Context, dbURL string, store *postgres.Store, a announcing) (*machinery, error) {
	mctx, cancel := context.WithCancel(ctx)
	m := &machinery{cancel: cancel}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m.hub = live.NewHub(store.SeatStates, log)
	mm := metrics.New(prometheus.NewRegistry()) // as in serve; nobody reads them here
	m.hub.Metrics = mm
	m.wg.Go(func() { m.hub.Run(mctx) })
	if a.listeners > 0 {
		l := &live.Listener{
			DatabaseURL: dbURL, Hub: m.hub, Log: log, Metrics: mm,
			MinBackoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second,
		}
		m.wg.Go(func() { l.Run(mctx) })
	}
	for range max(a.listeners-1, 0) {
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			m.stop()
			return nil, fmt.Errorf("listener: %w", err)
		}
		if _, err := conn.Exec(ctx, "LISTEN "+live.Channel); err != nil {
			conn.Close(ctx)
			m.stop()
			return nil, fmt.Errorf("listen: %w", err)
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
	if a.notifier {
		n := &live.Notifier{
			Flush: func(ctx context.Context, limit int) (int, error) {
				return store.AnnounceSeatChanges(ctx, live.Channel, limit)
			},
			Interval: announceInterval, Batch: announceBatch, Log: log,
			Vacuum: store.VacuumSeatEvents, VacuumEvery: announceVacuumEvery,
		}
		m.wg.Go(func() { n.Run(mctx) })
	}
	if a.events {
		// The backlog, on a connection of its own (not the pool's), every
		// 100 ms: it must stay bounded while the notifier runs.
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			m.stop()
			return nil, fmt.Errorf("backlog watch: %w", err)
		}
		m.wg.Go(func() {
			defer conn.Close(context.WithoutCancel(mctx))
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				var n int64
				if err := conn.QueryRow(mctx, `SELECT count(*) FROM seat_events`).Scan(&n); err != nil {
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
	if err := waitListening(ctx, store, a.listeners); err != nil {
		m.stop()
		return nil, err
	}
	return m, nil
}

func (m *machinery) stop() {
	m.cancel()
	m.wg.Wait()
}

// waitListening waits until n connections of this database have run LISTEN.
func waitListening(ctx context.Context, store *postgres.Store, n int) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		var k int
		if err := store.Pool().QueryRow(ctx, `
			SELECT count(*) FROM pg_stat_activity
			 WHERE datname = current_database() AND query ILIKE 'LISTEN %'`).Scan(&k); err != nil {
			return fmt.Errorf("count listeners: %w", err)
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

// observe subscribes to the observer show's updates on hub and feeds r,
// until the returned stop is called.
func observe(hub *live.Hub, show int64, r *receiver) (stop func()) {
	sub := hub.Subscribe(show, 4096)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-sub.Dropped():
				return
			case u := <-sub.Updates():
				at := r.s.now()
				r.msgs++
				for _, seat := range u.Seats {
					switch seat.Status {
					case booking.SeatHeld:
						r.saw(seat.ID, true, at)
					case booking.SeatAvailable:
						r.saw(seat.ID, false, at)
					}
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		sub.Close()
	}
}
