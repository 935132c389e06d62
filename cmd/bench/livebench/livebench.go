// Package livebench is the live seat map benchmark (cmd/bench -live): what
// announcing seat changes costs the hold, how long a change takes to reach
// a browser, and how one instance copes with many websockets on one show;
// and its report.
//
// In one run:
//
//	(a) hold throughput (Store.HoldSeats, the many-shows and hot-show
//	    workloads) with no announcements, with our design (seat_events
//	    rows + notifier + one listener) and with the naive pg_notify in
//	    every hold transaction (1 and Config.Listeners listening
//	    connections), plus the commit-to-hub latency of a paced observer
//	    stream on a show of its own during every cell;
//	(b) commit-to-browser latency on a quiet instance (one websocket);
//	(c) fan-out: many websockets on one show of one instance, a paced stream
//	    of holds and releases, commit-to-receive latency over every
//	    subscriber and the server's memory per subscriber.
package livebench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/announce"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/holdbench"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
	"github.com/marquee-tickets/marquee/cmd/bench/stream"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Config is what the -live flags decide.
type Config struct {
	Clients     []int           // (a): concurrent hold clients
	Listeners   int             // (a): LISTEN connections of the second naive variant
	Subscribers []int           // (b) and (c): websocket subscribers (1 is (b))
	Rate        float64         // (b) and (c): seat changes per second
	Stream      time.Duration   // (b) and (c): how long the stream runs
	Rounds      int             // (a): rounds over the ways of announcing, every other one in reverse order
	Ways        map[string]bool // (a): the ways of announcing compared (keys of announce.Ways)
	Workloads   map[string]bool // (a): "many" and/or "hot"
}

const (
	// observerRate is the observer stream's pace during the hold cells.
	observerRate = 20
	// liveRows x seed.ShowCols is the observer and fan-out shows: 50 slots of 2.
	liveRows = 10
	// fanoutGrace is how long the clients keep reading after the stream.
	fanoutGrace = 2 * time.Second
	// dialParallel bounds websocket handshakes in flight.
	dialParallel = 32
)

type liveBench struct {
	*holdbench.Bench
	lc        Config
	dbURL     string
	observer  int64
	slotUsers []seed.User
	// restore puts the latest hold path back while the no-announcements
	// fixture is applied (nil otherwise).
	restore func(context.Context) error
}

// Run seeds the database at dbURL (migrated; pool is on it), runs (a), (b)
// and (c) and prints the report to w.
func Run(ctx context.Context, cfg holdbench.Config, lc Config, dbURL string, pool *pgxpool.Pool, w io.Writer, status func(string, ...any)) (err error) {
	need := uint64(slices.Max(lc.Subscribers)) + 1024
	limit, err := appserver.RaiseFileLimit(need)
	if err != nil {
		return err
	}
	store := postgres.NewStore(pool)
	if err := pgtest.InstallNaiveNotify(ctx, pool, live.Channel); err != nil {
		return err
	}

	maxClients := slices.Max(lc.Clients)
	status("seeding %d users and %d shows", maxClients, max(seed.MinShows, maxClients)+1)
	world, err := seed.Seed(ctx, store, maxClients, max(seed.MinShows, maxClients))
	if err != nil {
		return err
	}
	lb := &liveBench{
		Bench: holdbench.New(cfg, pool, store, world, []holdbench.Holder{&holdbench.SQL{Store: store, TTL: cfg.HoldTTL}}, status),
		lc:    lc, dbURL: dbURL,
	}
	defer func() {
		// Leave the database as migrated (it is dropped next, but a
		// fixture is not to outlive its use).
		if lb.restore != nil {
			if rerr := lb.restore(context.WithoutCancel(ctx)); rerr != nil && err == nil {
				err = rerr
			}
		}
	}()
	if lb.slotUsers, err = seed.Users(ctx, store, "slot", liveRows*seed.ShowCols/2); err != nil {
		return err
	}
	if lb.observer, err = world.Venue.NewShow(ctx, store, "Observer screen", seed.Grid(liveRows, seed.ShowCols)); err != nil {
		return err
	}

	h := lb.header(ctx, limit)
	cells, err := lb.runAnnounce(ctx)
	if err != nil {
		return err
	}
	fanouts, err := lb.runFanouts(ctx)
	if err != nil {
		return err
	}
	fmt.Fprint(w, h)
	fmt.Fprintf(w, "- load average at end: %s\n", cpu.Host().LoadAverage())
	writeReport(w, reportMethod{
		MaxOther: cfg.MaxOther, Reruns: cfg.Reruns, Listeners: lc.Listeners, Rate: lc.Rate, Stream: lc.Stream,
	}, cells, fanouts)
	return report.Invariants(ctx, store, w)
}

func (lb *liveBench) header(ctx context.Context, fileLimit uint64) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Marquee live seat map benchmark\n\n")
	sb.WriteString(report.Machine())
	sb.WriteString(report.Server(ctx, lb.Pool))
	fmt.Fprintf(&sb, "- load average at start: %s\n", cpu.Host().LoadAverage())
	fmt.Fprintf(&sb, "- pool: %d connections; Store.LockTimeout %s; notifier every %s, batches of %d\n",
		lb.Cfg.PoolSize, lb.Store.LockTimeout, appserver.AnnounceInterval, appserver.AnnounceBatch)
	fmt.Fprintf(&sb, "- hold cells: SQL (Store.HoldSeats), %s measured after a warm-up; clients %v; observer stream %d changes/s\n",
		lb.Cfg.Duration, lb.lc.Clients, observerRate)
	fmt.Fprintf(&sb, "- ways of announcing %v, workloads %v, %d rounds\n",
		slices.Sorted(maps.Keys(lb.lc.Ways)), slices.Sorted(maps.Keys(lb.lc.Workloads)), lb.lc.Rounds)
	fmt.Fprintf(&sb, "- fan-out: subscribers %v; stream %.0f changes/s for %s; open-files limit %d\n",
		lb.lc.Subscribers, lb.lc.Rate, lb.lc.Stream, fileLimit)
	fmt.Fprintf(&sb, "- started %s\n", time.Now().UTC().Format(time.RFC3339))
	return sb.String()
}

// announceCell is one hold cell under one way of announcing.
type announceCell struct {
	*holdbench.Cell
	a          announce.Way
	round      int // 1-based
	obs        stream.Latencies
	obsMsgs    int
	maxEvents  int64         // largest seat_events backlog sampled (design)
	samples    int64         // backlog samples taken
	leftEvents int64         // rows in seat_events when the cell was over, before the drain
	drain      time.Duration // time for the notifier to empty seat_events after the cell
	cleared    int64         // rows truncated after the drain (0 = drained)
	extraMsgs  int64         // notifications read by the extra listeners
	skipped    string
}

// runAnnounce runs (a): every workload x clients x way of announcing.
func (lb *liveBench) runAnnounce(ctx context.Context) ([]*announceCell, error) {
	var ways []announce.Way
	for _, a := range announce.Ways(lb.lc.Listeners) {
		if lb.lc.Ways[a.Key] {
			ways = append(ways, a)
		}
	}
	var wls []holdbench.Workload
	for _, w := range lb.Workloads() {
		if lb.lc.Workloads[w.Key] {
			wls = append(wls, w)
		}
	}
	// Warm up each way once (plans of the trigger functions, the pool);
	// the 50 listeners need no warming.
	for _, a := range ways {
		if a.Listeners > 1 {
			continue
		}
		lb.Status("warming up SQL holds, announcements %s (%d clients, %s)", a.Key, slices.Max(lb.lc.Clients), lb.Cfg.Warmup)
		if _, err := lb.announceCell(ctx, a, wls[len(wls)-1], slices.Max(lb.lc.Clients), lb.Cfg.Warmup, 1<<40); err != nil {
			return nil, err
		}
	}
	var cells []*announceCell
	for wi, w := range wls {
		for _, n := range lb.lc.Clients {
			var order []announce.Way
			for r := range lb.lc.Rounds {
				if r%2 == 0 {
					order = append(order, ways...)
				} else {
					for i := len(ways) - 1; i >= 0; i-- {
						order = append(order, ways[i])
					}
				}
			}
			for i, a := range order {
				round := i/len(ways) + 1
				var c *announceCell
				tries, err := lb.UntilUndisturbed("cell", func(int) (cpu.Use, error) {
					if a.Listeners > 1 {
						if ok, why := lb.connectionsFree(ctx, a.Listeners+16); !ok {
							c = &announceCell{Cell: &holdbench.Cell{Workload: w.Name, Clients: n, Holder: "SQL"}, a: a, skipped: why}
							lb.Status("%-18s %3d clients %-7s skipped: %s", w.Name, n, a.Key, why)
							return cpu.Use{}, nil
						}
					}
					var err error
					if c, err = lb.announceCell(ctx, a, w, n, lb.Cfg.Duration, uint64(wi)<<32|uint64(n)); err != nil {
						return cpu.Use{}, err
					}
					lb.Status("%-18s %3d clients %-7s %8.0f attempts/s %8.0f holds/s  p50 %s  p99 %s  errors %d  observer %s ms  backlog max %d  cpu %s",
						w.Name, n, a.Key, c.PerSecond(c.Attempts()), c.PerSecond(c.Held),
						stats.Ms(stats.Percentile(c.Lat, 50)), stats.Ms(stats.Percentile(c.Lat, 99)), c.Errs+c.RelErrs, c.obs.Summary(), c.maxEvents, c.CPU)
					return c.CPU, nil
				})
				if err != nil {
					return nil, err
				}
				c.Tries, c.round = tries, round
				if c.FirstErr != nil {
					lb.Status("  first error: %v", c.FirstErr)
				}
				cells = append(cells, c)
			}
		}
	}
	return cells, nil
}

// connectionsFree waits up to a minute until the server has room for need
// more connections: the machine's Postgres is shared with other people's
// test suites, which must not run out of connections because of us.
func (lb *liveBench) connectionsFree(ctx context.Context, need int) (bool, string) {
	deadline := time.Now().Add(time.Minute)
	for {
		free, err := pgtest.FreeConnections(ctx, lb.Pool)
		if err != nil {
			return false, err.Error()
		}
		if free >= need+10 {
			return true, ""
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false, fmt.Sprintf("only %d connections free on the server, %d needed", free, need+10)
		}
		time.Sleep(2 * time.Second)
	}
}

// prepare readies the database for a cell of way a: settled (see
// holdbench.Bench.Settle), the hold path in the state a measures and
// seat_events empty. The ways without seat_events run with the
// no-announcements fixture (pgtest.NoAnnouncements): hold_seats and
// end_hold as they were before they recorded their own rows, with the
// trigger off, so the hold path exactly as it is minus the announcements.
// The design runs on the latest schema, as serve does.
func (lb *liveBench) prepare(ctx context.Context, a announce.Way) error {
	if err := lb.Settle(ctx); err != nil {
		return err
	}
	switch {
	case a.Events && lb.restore != nil:
		if err := lb.restore(ctx); err != nil {
			return fmt.Errorf("prepare %s: %w", a.Key, err)
		}
		lb.restore = nil
	case !a.Events && lb.restore == nil:
		restore, err := pgtest.NoAnnouncements(ctx, lb.Pool)
		if err != nil {
			return fmt.Errorf("prepare %s: %w", a.Key, err)
		}
		lb.restore = restore
	}
	if err := pgtest.SetAnnouncementTriggers(ctx, lb.Pool, a.Events, a.Naive); err != nil {
		return fmt.Errorf("prepare %s: %w", a.Key, err)
	}
	return pgtest.ClearSeatEvents(ctx, lb.Pool)
}

// countEvents is the rows in seat_events, or -1 when it cannot tell.
func (lb *liveBench) countEvents(ctx context.Context) int64 {
	n, err := pgtest.CountSeatEvents(ctx, lb.Pool)
	if err != nil {
		return -1
	}
	return n
}

// announceCell runs one hold cell with announcements a, the observer stream
// beside it, and leaves seat_events empty.
func (lb *liveBench) announceCell(ctx context.Context, a announce.Way, w holdbench.Workload, n int, d time.Duration, rngSeed uint64) (*announceCell, error) {
	if err := lb.prepare(ctx, a); err != nil {
		return nil, err
	}
	obs, err := stream.New(lb.Store, lb.observer, liveRows, seed.ShowCols, lb.slotUsers, observerRate, d)
	if err != nil {
		return nil, err
	}
	m, err := announce.Start(ctx, lb.dbURL, lb.Store, lb.Pool, a)
	if err != nil {
		return nil, err
	}
	recv := obs.NewReceiver()
	stopObs, quietObs := observe(m.Hub, lb.observer, recv)
	var wg sync.WaitGroup
	wg.Go(func() { obs.Run(ctx, d) })
	hc := lb.RunCell(ctx, lb.Holders[0], w, n, d, rngSeed)
	wg.Wait()
	res := &announceCell{Cell: hc, a: a}
	res.Holder = "SQL"
	if a.Events {
		res.leftEvents = lb.countEvents(ctx)
	}
	// The stream's last changes reach the observer before its holds are
	// released: the hub sends a seat's state as it reads it, so a hold
	// announced after ReleaseAll would arrive as "available", a change
	// seen by no one although nothing was lost.
	quietObs(time.Second, 5*time.Second)
	if err := obs.ReleaseAll(ctx); err != nil {
		return nil, err
	}
	if a.Events {
		// The notifier keeps running until it has announced everything.
		t0 := time.Now()
		for lb.countEvents(ctx) > 0 && time.Since(t0) < 5*time.Second {
			time.Sleep(10 * time.Millisecond)
		}
		res.drain = time.Since(t0)
	}
	stopObs()
	m.Stop()
	res.maxEvents, res.samples = m.Backlog()
	res.extraMsgs = m.Received()
	res.obs = obs.Collect([]*stream.Receiver{recv}, nil)
	res.obsMsgs = recv.Msgs
	if _, failed, first := obs.Made(); failed > 0 {
		lb.Status("  observer stream: %d changes failed, first: %v", failed, first)
	}
	res.cleared = lb.countEvents(ctx)
	if err := pgtest.ClearSeatEvents(ctx, lb.Pool); err != nil {
		return nil, err
	}
	return res, nil
}

// observe subscribes to the observer show's updates on hub and feeds r,
// until the returned stop is called.
func observe(hub *live.Hub, show int64, r *stream.Receiver) (stop func(), quiet func(quiet, limit time.Duration)) {
	sub := hub.Subscribe(show, 4096)
	done := make(chan struct{})
	var last atomic.Int64 // when the latest update came, UnixNano
	last.Store(time.Now().UnixNano())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-sub.Dropped():
				return
			case u := <-sub.Updates():
				at := r.Now()
				last.Store(time.Now().UnixNano())
				r.Msgs++
				for _, seat := range u.Seats {
					switch seat.Status {
					case booking.SeatHeld:
						r.Saw(seat.ID, true, at)
					case booking.SeatAvailable:
						r.Saw(seat.ID, false, at)
					}
				}
			}
		}
	})
	stop = func() {
		close(done)
		wg.Wait()
		sub.Close()
	}
	// quiet waits until no update has come for the quiet stretch, at most
	// limit: what is still on its way on a loaded machine arrives, and a
	// change counted as never received really was not.
	quiet = func(q, limit time.Duration) {
		deadline := time.Now().Add(limit)
		for time.Now().Before(deadline) && time.Since(time.Unix(0, last.Load())) < q {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return stop, quiet
}

// heapAndStacks is this process's heap in use plus goroutine stacks, after
// a collection.
func heapAndStacks() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}
