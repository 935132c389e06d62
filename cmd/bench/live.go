package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-migrate/migrate/v4"

	"github.com/marquee-tickets/marquee/cmd/bench/stats"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// The live seat map benchmark (-live), in one run:
//
//	(a) hold throughput (Store.HoldSeats, the many-shows and hot-show
//	    workloads) with no announcements, with our design (seat_events
//	    trigger + notifier + one listener) and with the naive pg_notify in
//	    every hold transaction (1 and -live-listeners listening
//	    connections), plus the commit-to-hub latency of a paced observer
//	    stream on a show of its own during every cell;
//	(b) commit-to-browser latency on a quiet instance (one websocket);
//	(c) fan-out: many websockets on one show of one instance, a paced stream
//	    of holds and releases, commit-to-receive latency over every
//	    subscriber and the server's memory per subscriber.
//
// docs/benchmarks.md explains the method and the figures.

// liveConfig is what the -live flags decide.
type liveConfig struct {
	clients     []int           // (a): concurrent hold clients
	listeners   int             // (a): LISTEN connections of the second naive variant
	subscribers []int           // (b) and (c): websocket subscribers (1 is (b))
	rate        float64         // (b) and (c): seat changes per second
	stream      time.Duration   // (b) and (c): how long the stream runs
	rounds      int             // (a): rounds over the ways of announcing, every other one in reverse order
	ways        map[string]bool // (a): the ways of announcing compared (keys of announcings)
	workloads   map[string]bool // (a): "many" and/or "hot"
}

const (
	// observerRate is the observer stream's pace during the hold cells.
	observerRate = 20
	// liveRows x showCols is the observer and fan-out shows: 50 slots of 2.
	liveRows = 10
	// fanoutGrace is how long the clients keep reading after the stream.
	fanoutGrace = 2 * time.Second
	// dialParallel bounds websocket handshakes in flight.
	dialParallel = 32
)

type liveBench struct {
	*bench
	lc        liveConfig
	dbURL     string
	migrator  *migrate.Migrate // moves the schema between the ways of announcing
	observer  int64
	slotUsers []user
}

// runLive creates a database, runs (a), (b) and (c) and prints the report.
func runLive(ctx context.Context, cfg config, lc liveConfig, w io.Writer) (err error) {
	need := uint64(slices.Max(lc.subscribers)) + 1024
	limit, err := raiseFileLimit(need)
	if err != nil {
		return err
	}
	dbURL, pool, done, err := benchDatabase(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if derr := done(); derr != nil && err == nil {
			err = derr
		}
	}()
	store := postgres.NewStore(pool)
	if _, err := pool.Exec(ctx, naiveNotifySQL); err != nil {
		return fmt.Errorf("install the naive notify trigger: %w", err)
	}

	maxClients := slices.Max(lc.clients)
	status("seeding %d users and %d shows", maxClients, max(minShows, maxClients)+1)
	world, err := seed(ctx, store, maxClients, max(minShows, maxClients))
	if err != nil {
		return err
	}
	m, closeMigrator, err := postgres.Migrator(dbURL)
	if err != nil {
		return err
	}
	defer closeMigrator()
	lb := &liveBench{
		bench: &bench{cfg: cfg, pool: pool, store: store, world: world, impls: []impl{&sqlImpl{store: store, ttl: cfg.holdTTL}}},
		lc:    lc, dbURL: dbURL, migrator: m,
	}
	for i, u := range world.users {
		lb.clients = append(lb.clients, &client{user: u, n: i})
	}
	if lb.slotUsers, err = createUsers(ctx, store, "slot", liveRows*showCols/2); err != nil {
		return err
	}
	if lb.observer, err = world.venue.newShow(ctx, store, "Observer screen", grid(liveRows, showCols)); err != nil {
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
	fmt.Fprintf(w, "- load average at end: %s\n", loadAverage())
	writeLiveReport(w, lb, cells, fanouts)
	return checkInvariants(ctx, store, w)
}

func createUsers(ctx context.Context, s *postgres.Store, prefix string, n int) ([]user, error) {
	hash, err := auth.Hasher{Cost: 4}.Hash(password)
	if err != nil {
		return nil, err
	}
	var out []user
	for i := range n {
		u, err := s.CreateUser(ctx, fmt.Sprintf("bench-%s-%d@example.com", prefix, i), fmt.Sprintf("Bench %s %d", prefix, i), hash, auth.RoleMoviegoer)
		if err != nil {
			return nil, err
		}
		out = append(out, user{id: u.ID, email: u.Email})
	}
	return out, nil
}

func (lb *liveBench) header(ctx context.Context, fileLimit uint64) string {
	pool := lb.pool
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Marquee live seat map benchmark\n\n")
	fmt.Fprintf(&sb, "- machine: %d CPUs (NumCPU), GOMAXPROCS %d, %s/%s, %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	sb.WriteString(serverLine(ctx, pool))
	fmt.Fprintf(&sb, "- load average at start: %s\n", loadAverage())
	fmt.Fprintf(&sb, "- pool: %d connections; Store.LockTimeout %s; notifier every %s, batches of %d\n",
		lb.cfg.poolSize, lb.store.LockTimeout, announceInterval, announceBatch)
	fmt.Fprintf(&sb, "- hold cells: SQL (Store.HoldSeats), %s measured after a warm-up; clients %v; observer stream %d changes/s\n",
		lb.cfg.duration, lb.lc.clients, observerRate)
	fmt.Fprintf(&sb, "- ways of announcing %v, workloads %v, %d rounds\n",
		slices.Sorted(maps.Keys(lb.lc.ways)), slices.Sorted(maps.Keys(lb.lc.workloads)), lb.lc.rounds)
	fmt.Fprintf(&sb, "- fan-out: subscribers %v; stream %.0f changes/s for %s; open-files limit %d\n",
		lb.lc.subscribers, lb.lc.rate, lb.lc.stream, fileLimit)
	fmt.Fprintf(&sb, "- started %s\n", time.Now().UTC().Format(time.RFC3339))
	return sb.String()
}

// announceCell is one hold cell under one way of announcing.
type announceCell struct {
	*cell
	a          announcing
	round      int
	obs        latencies
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
	var ways []announcing
	for _, a := range announcings(lb.lc.listeners) {
		if lb.lc.ways[a.key] {
			ways = append(ways, a)
		}
	}
	var wls []workload
	for _, w := range lb.workloads() {
		if lb.lc.workloads[w.key] {
			wls = append(wls, w)
		}
	}
	// Warm up each way once (plans of the trigger functions, the pool);
	// the 50 listeners need no warming.
	for _, a := range ways {
		if a.listeners > 1 {
			continue
		}
		status("warming up SQL holds, announcements %s (%d clients, %s)", a.key, slices.Max(lb.lc.clients), lb.cfg.warmup)
		if _, err := lb.announceCell(ctx, a, wls[len(wls)-1], slices.Max(lb.lc.clients), lb.cfg.warmup, 1<<40); err != nil {
			return nil, err
		}
	}
	var cells []*announceCell
	for wi, w := range wls {
		for _, n := range lb.lc.clients {
			var order []announcing
			for r := range lb.lc.rounds {
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
				tries, err := lb.untilUndisturbed("cell", func(int) (cpuUse, error) {
					if a.listeners > 1 {
						if ok, why := lb.connectionsFree(ctx, a.listeners+16); !ok {
							c = &announceCell{cell: &cell{workload: w.name, clients: n, impl: "SQL"}, a: a, skipped: why}
							status("%-18s %3d clients %-7s skipped: %s", w.name, n, a.key, why)
							return cpuUse{}, nil
						}
					}
					var err error
					if c, err = lb.announceCell(ctx, a, w, n, lb.cfg.duration, uint64(wi)<<32|uint64(n)); err != nil {
						return cpuUse{}, err
					}
					status("%-18s %3d clients %-7s %8.0f attempts/s %8.0f holds/s  p50 %s  p99 %s  errors %d  observer %s ms  backlog max %d  cpu %s",
						w.name, n, a.key, c.perSecond(c.attempts()), c.perSecond(c.held),
						stats.Ms(stats.Percentile(c.lat, 50)), stats.Ms(stats.Percentile(c.lat, 99)), c.errs+c.relErrs, c.obs.summary(), c.maxEvents, c.cpu)
					return c.cpu, nil
				})
				if err != nil {
					return nil, err
				}
				c.tries, c.round = tries, round
				if c.firstErr != nil {
					status("  first error: %v", c.firstErr)
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
		var free int
		err := lb.pool.QueryRow(ctx, `
			SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
			     - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')`).Scan(&free)
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

// announceCell runs one hold cell with announcements a, the observer stream
// beside it, and leaves seat_events empty.
func (lb *liveBench) announceCell(ctx context.Context, a announcing, w workload, n int, d time.Duration, seed uint64) (*announceCell, error) {
	if err := lb.prepare(ctx, a); err != nil {
		return nil, err
	}
	obs, err := newStream(lb.store, lb.observer, liveRows, showCols, lb.slotUsers, observerRate, d)
	if err != nil {
		return nil, err
	}
	m, err := startMachinery(ctx, lb.dbURL, lb.store, a)
	if err != nil {
		return nil, err
	}
	recv := obs.newReceiver()
	stopObs := observe(m.hub, lb.observer, recv)
	var wg sync.WaitGroup
	wg.Go(func() { obs.run(ctx, d) })
	hc := lb.runCell(ctx, lb.impls[0], w, n, d, seed)
	wg.Wait()
	res := &announceCell{cell: hc, a: a}
	res.impl = "SQL"
	if a.events {
		res.leftEvents = lb.countEvents(ctx)
	}
	if err := obs.releaseAll(ctx); err != nil {
		return nil, err
	}
	if a.events {
		// The notifier keeps running until it has announced everything.
		t0 := time.Now()
		for lb.countEvents(ctx) > 0 && time.Since(t0) < 5*time.Second {
			time.Sleep(10 * time.Millisecond)
		}
		res.drain = time.Since(t0)
	}
	time.Sleep(300 * time.Millisecond) // the last deliveries to the observer
	stopObs()
	m.stop()
	res.maxEvents, res.samples, res.extraMsgs = m.maxEvents.Load(), m.samples.Load(), m.received.Load()
	res.obs = obs.collect([]*receiver{recv}, nil)
	res.obsMsgs = recv.msgs
	if _, failed, first := obs.made(); failed > 0 {
		status("  observer stream: %d changes failed, first: %v", failed, first)
	}
	res.cleared = lb.countEvents(ctx)
	if _, err := lb.pool.Exec(ctx, `TRUNCATE seat_events`); err != nil {
		return nil, fmt.Errorf("clear seat_events: %w", err)
	}
	return res, nil
}

func (lb *liveBench) countEvents(ctx context.Context) int64 {
	var n int64
	if err := lb.pool.QueryRow(ctx, `SELECT count(*) FROM seat_events`).Scan(&n); err != nil {
		return -1
	}
	return n
}

// fanout is one fan-out (or, with one subscriber, the quiet latency) run.
type fanout struct {
	n              int
	a              announcing
	connect        time.Duration // to dial every client and receive its seat map
	base, after    serverStats
	client0        uint64 // this process's heap + stacks before dialing
	client1        uint64 // and after
	lat            latencies
	msgs, bytes    int64
	dropped        int   // clients the server closed (slow) or that failed
	firstDrop      error // why the first one ended
	streamed       time.Duration
	cpu            cpuUse // bench = the clients and the stream; other excludes the server
	server         float64
	made, failures int
	tries          int
}

// runFanouts runs (b) and (c): one fresh server process per subscriber count.
func (lb *liveBench) runFanouts(ctx context.Context) ([]*fanout, error) {
	ways := announcings(lb.lc.listeners)
	type run struct {
		n int
		a announcing
	}
	var runs []run
	for _, n := range lb.lc.subscribers {
		runs = append(runs, run{n, ways[1]})
		if n == 1 {
			// The same with the naive pg_notify: what the batching adds.
			runs = append(runs, run{n, ways[2]})
		}
	}
	var out []*fanout
	for _, r := range runs {
		n := r.n
		var f *fanout
		for try := 0; ; try++ {
			var err error
			if f, err = lb.runFanout(ctx, r.a, n, try); err != nil {
				return nil, err
			}
			f.tries = try + 1
			status("fan-out %5d subscribers (%s): connect %s, latency p50/p99/max %s ms, slowest subscriber p50/p99 %s/%s ms, missed %d, dropped %d, server %.1f KiB heap+stack/subscriber, cpu %s, server %.2f",
				n, r.a.key, f.connect.Round(time.Millisecond), f.lat.summary(), stats.Ms(stats.Percentile(f.lat.slowest, 50)), stats.Ms(stats.Percentile(f.lat.slowest, 99)),
				f.lat.missed, f.dropped, f.serverPerSub(), f.cpu, f.server)
			if !lb.disturbed(f.cpu) || try == lb.cfg.reruns {
				break
			}
			status("  disturbed: other work used %.2f cores; running it again", f.cpu.other)
		}
		out = append(out, f)
	}
	return out, nil
}

func (f *fanout) serverPerSub() float64 {
	d := int64(f.after.HeapInuse+f.after.StackInuse) - int64(f.base.HeapInuse+f.base.StackInuse)
	return float64(d) / float64(f.n) / 1024
}

func (lb *liveBench) runFanout(ctx context.Context, a announcing, n, try int) (*fanout, error) {
	if err := lb.prepare(ctx, a); err != nil {
		return nil, err
	}
	show, err := lb.world.venue.newShow(ctx, lb.store, fmt.Sprintf("Fan-out %d %s %d", n, a.key, try), grid(liveRows, showCols))
	if err != nil {
		return nil, err
	}
	st, err := newStream(lb.store, show, liveRows, showCols, lb.slotUsers, lb.lc.rate, lb.lc.stream)
	if err != nil {
		return nil, err
	}
	receivers := make([]*receiver, n)
	for i := range receivers {
		receivers[i] = st.newReceiver()
	}

	status("fan-out: starting a server process for %d subscribers, announcements %s", n, a.key)
	srv, err := startLiveServer(ctx, lb.dbURL)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	if err := waitListening(ctx, lb.store, 1); err != nil {
		return nil, err
	}
	f := &fanout{n: n, a: a}
	if f.base, err = srv.stats(ctx, show, false); err != nil {
		return nil, err
	}
	f.client0 = heapAndStacks()

	hc := &http.Client{Transport: &http.Transport{
		DialContext:       (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		DisableKeepAlives: true,
	}}
	clients := make([]*wsClient, n)
	var readers sync.WaitGroup
	closeAll := func() {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 256)
		for _, c := range clients {
			if c == nil {
				continue
			}
			c.closing.Store(true)
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				c.conn.CloseNow()
			})
		}
		wg.Wait()
		readers.Wait()
	}
	t0 := time.Now()
	var dialErr error
	var mu sync.Mutex
	sem := make(chan struct{}, dialParallel)
	var dials sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		dials.Go(func() {
			defer func() { <-sem }()
			c, err := dialClient(ctx, srv.base, hc, show, receivers[i], &readers)
			if err != nil {
				mu.Lock()
				if dialErr == nil {
					dialErr = fmt.Errorf("websocket client %d: %w", i, err)
				}
				mu.Unlock()
				return
			}
			clients[i] = c
			<-c.first
		})
	}
	dials.Wait()
	if dialErr != nil {
		closeAll()
		return nil, dialErr
	}
	f.connect = time.Since(t0)
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := srv.stats(ctx, show, false)
		if err != nil {
			closeAll()
			return nil, err
		}
		if s.Subscribers == n {
			break
		}
		if time.Now().After(deadline) {
			closeAll()
			return nil, fmt.Errorf("fan-out: %d of %d subscribers after 30 s", s.Subscribers, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if f.after, err = srv.stats(ctx, show, true); err != nil {
		closeAll()
		return nil, err
	}
	f.client1 = heapAndStacks()

	status("fan-out: %d subscribers connected in %s; streaming %.0f changes/s for %s", n, f.connect.Round(time.Millisecond), lb.lc.rate, lb.lc.stream)
	cpu0, srv0 := takeCPUSample(ctx, lb.pool), serverCPU(srv)
	began := time.Now()
	st.run(ctx, lb.lc.stream)
	f.streamed = time.Since(began)
	f.cpu = takeCPUSample(ctx, lb.pool).since(cpu0, f.streamed)
	f.server = (serverCPU(srv) - srv0).Seconds() / f.streamed.Seconds()
	if f.cpu.other >= 0 {
		f.cpu.other = max(0, f.cpu.other-f.server)
	}
	time.Sleep(fanoutGrace)
	closeAll()
	if err := st.releaseAll(ctx); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.made, f.failures, _ = st.made()
	if _, failed, first := st.made(); failed > 0 {
		status("  stream: %d changes failed, first: %v", failed, first)
	}
	f.lat = st.collect(receivers, func(i int) bool { return clients[i].closed.Load() })
	for _, c := range clients {
		f.msgs += int64(c.r.msgs)
		f.bytes += c.bytes
		if c.closed.Load() {
			f.dropped++
			if f.firstDrop == nil {
				f.firstDrop = c.err
			}
		}
	}
	return f, nil
}

func serverCPU(s *liveServer) time.Duration {
	t, _ := pidCPU(s.pid())
	return t
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
