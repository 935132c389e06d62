// Command bench measures the seat-hold path three ways on identical
// workloads in one run: the naive five-statement transaction (one round trip
// per statement), the one-round-trip hold_seats function (Store.HoldSeats),
// and the real HTTP API served on loopback. It prints a markdown table.
//
// It creates its own database on DATABASE_URL's server (default
// postgres://postgres@127.0.0.1:5432/postgres), migrates and seeds it, and
// drops it when done or interrupted.
//
//	go run ./cmd/bench [-duration 3s] [-clients 1,8,64] [-pool 8] [-quick]
//	go run ./cmd/bench -live [-live-clients 8,64] [-live-subscribers 1,1000,5000] [-quick]
//	go run ./cmd/bench -browser [-browser-cpu 4,1] [-browser-loads 3] [-browser-clicks 100] [-quick]
//
// -live measures the live seat map instead (live*.go): hold throughput with
// and without announcements, commit-to-browser latency and websocket fan-out.
// -browser measures the show page of big halls in Chromium (browser*.go):
// main-thread long tasks from navigation to idle, and click-to-paint while
// seat changes stream in.
//
// docs/benchmarks.md explains the workloads and the figures.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/chromium"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const defaultServerURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// config is what the flags decide.
type config struct {
	serverURL       string
	duration        time.Duration
	warmup          time.Duration
	clients         []int
	stampedeClients int
	stampedeRounds  int
	poolSize        int32
	holdTTL         time.Duration
	maxOther        float64 // cores other work may use before a cell is re-run
	reruns          int
	rounds          int // runs of every cell; implementations in reverse order every other round
}

func main() {
	cfg := config{serverURL: os.Getenv("DATABASE_URL"), poolSize: int32(4 * runtime.NumCPU())}
	if cfg.serverURL == "" {
		cfg.serverURL = defaultServerURL
	}
	var clients string
	var quick bool
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "measured time of each cell")
	flag.StringVar(&clients, "clients", "1,8,64", "comma-separated numbers of concurrent clients")
	flag.IntVar(&cfg.stampedeClients, "stampede-clients", 64, "clients released together in each stampede round")
	flag.IntVar(&cfg.stampedeRounds, "stampede-rounds", 20, "stampede rounds, each on 6 fresh seats")
	flag.Float64Var(&cfg.maxOther, "max-other", 0.25, "re-run a cell when other processes used more than this many cores during it (0: never)")
	flag.IntVar(&cfg.reruns, "reruns", 2, "most re-runs of one disturbed cell")
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds over every cell (the implementations in reverse order every other round); a ratio is the median of its rounds'")
	pool := flag.Int("pool", int(cfg.poolSize), "connections in the pool, shared by all implementations (4 x NumCPU)")
	flag.BoolVar(&quick, "quick", false, "smoke run: short cells, fewer stampede rounds")
	liveMode := flag.Bool("live", false, "benchmark the live seat map instead of the hold (see docs/benchmarks.md)")
	liveClients := flag.String("live-clients", "8,64", "-live: concurrent hold clients")
	liveSubs := flag.String("live-subscribers", "1,1000,5000", "-live: websocket subscribers of the fan-out runs (1: the quiet latency)")
	lc := liveConfig{}
	flag.IntVar(&lc.listeners, "live-listeners", 50, "-live: listening connections of the second naive pg_notify variant")
	flag.Float64Var(&lc.rate, "live-rate", 10, "-live: seat changes per second during the fan-out")
	flag.DurationVar(&lc.stream, "live-stream", 10*time.Second, "-live: how long the fan-out's stream of changes runs")
	flag.IntVar(&lc.rounds, "live-rounds", 4, "-live: rounds over the ways of announcing (every other one in reverse order)")
	liveWays := flag.String("live-ways", "none,design,naive1,naiveN", "-live: the ways of announcing (a) compares; none is the baseline")
	liveWorkloads := flag.String("live-workloads", "many,hot", "-live: the workloads of (a): many (shows) and hot (show)")
	liveServe := flag.Bool("live-serve", false, "internal: be the -live fan-out's app server")
	browserMode := flag.Bool("browser", false, "benchmark the show page of big halls in Chromium instead of the hold (see docs/benchmarks.md)")
	browserCPU := flag.String("browser-cpu", "4,1", "-browser: CPU slowdowns (Emulation.setCPUThrottlingRate); the targets are set for 4")
	browserHalls := flag.String("browser-halls", "large,mega", "-browser: the halls: large (360 seats), mega (1,000)")
	browserViewers := flag.String("browser-viewers", "viewer,guest", "-browser: who loads the page: viewer (signed in; also clicks), guest")
	bc := browserConfig{chromium: chromium.Path()}
	flag.IntVar(&bc.loads, "browser-loads", 3, "-browser: page loads per hall, CPU slowdown and viewer")
	flag.DurationVar(&bc.idleCap, "browser-cap", 30*time.Second, "-browser: how long a page load may take to become idle")
	flag.IntVar(&bc.clicks, "browser-clicks", 100, "-browser: seat clicks per hall and CPU slowdown (0: none)")
	flag.Float64Var(&bc.rate, "browser-rate", 50, "-browser: seat changes per second while clicking")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of this process (clients, and the server of the HTTP cells) to this file")
	flag.Parse()

	if *liveServe {
		if err := serveLive(); err != nil {
			fmt.Fprintln(os.Stderr, "bench -live-serve:", err)
			os.Exit(1)
		}
		return
	}

	if *pool < 1 || *pool > 1000 || cfg.stampedeClients < 1 || cfg.stampedeClients > 1024 || cfg.stampedeRounds < 0 || cfg.rounds < 1 || cfg.rounds > 20 {
		fmt.Fprintln(os.Stderr, "bench: -pool must be 1-1000, -stampede-clients 1-1024, -stampede-rounds >= 0, -rounds 1-20")
		os.Exit(2)
	}
	cfg.poolSize = int32(*pool)
	var err error
	if cfg.clients, err = parseClients(clients); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if *liveMode {
		if lc.clients, err = parseCounts("-live-clients", *liveClients, 1024); err == nil {
			lc.subscribers, err = parseCounts("-live-subscribers", *liveSubs, 20000)
		}
		if err == nil {
			lc.ways, err = parseChoice("-live-ways", *liveWays, []string{"none", "design", "naive1", "naiveN"}, "none")
		}
		if err == nil {
			lc.workloads, err = parseChoice("-live-workloads", *liveWorkloads, []string{"many", "hot"}, "")
		}
		if err == nil && (lc.listeners < 1 || lc.listeners > 90 || lc.rounds < 1 || lc.rounds > 30 || lc.rate <= 0 || lc.rate > 1000 || lc.stream <= 0) {
			err = errors.New("-live-listeners must be 1-90, -live-rounds 1-30, -live-rate 0-1000, -live-stream > 0")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
	}
	if *browserMode {
		if bc.throttles, err = parseRates("-browser-cpu", *browserCPU); err == nil {
			bc.halls, err = parseChoice("-browser-halls", *browserHalls, []string{"large", "mega"}, "")
		}
		if err == nil {
			bc.viewers, err = parseChoice("-browser-viewers", *browserViewers, []string{"viewer", "guest"}, "")
		}
		if err == nil && (bc.loads < 1 || bc.loads > 50 || bc.clicks < 0 || bc.clicks > 10000 || bc.rate <= 0 || bc.rate > 1000 || bc.idleCap < 5*time.Second) {
			err = errors.New("-browser-loads must be 1-50, -browser-clicks 0-10000, -browser-rate 0-1000, -browser-cap at least 5s")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
	}
	if quick {
		bc.loads, bc.clicks, bc.throttles = 1, min(bc.clicks, 20), bc.throttles[:min(len(bc.throttles), 1)]
		cfg.duration = min(cfg.duration, 300*time.Millisecond)
		cfg.stampedeRounds = min(cfg.stampedeRounds, 3)
		cfg.rounds = 1
		lc.stream = min(lc.stream, 2*time.Second)
		lc.rounds = 1
	}
	cfg.warmup = min(cfg.duration/3, time.Second)
	cfg.holdTTL = 5 * time.Minute

	stopProfile := func() {}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: -cpuprofile:", err)
			os.Exit(2)
		}
		// Stopped before the exits below, which skip deferred calls.
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once
	}()
	switch {
	case *browserMode:
		err = runBrowser(ctx, cfg, bc, os.Stdout)
	case *liveMode:
		err = runLive(ctx, cfg, lc, os.Stdout)
	default:
		err = run(ctx, cfg, os.Stdout)
	}
	interrupted := ctx.Err() != nil
	stop()
	stopProfile()
	if interrupted {
		fmt.Fprintln(os.Stderr, "bench: interrupted")
		os.Exit(130)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseClients(s string) ([]int, error) {
	return parseCounts("-clients", s, 1024)
}

// parseCounts reads a comma-separated list of numbers from 1 to most.
func parseCounts(flagName, s string, most int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > most {
			return nil, fmt.Errorf("%s: %q is not a number from 1 to %d", flagName, f, most)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseRates reads a comma-separated list of CPU slowdowns, each from 1 to 20.
func parseRates(flagName, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || r < 1 || r > 20 {
			return nil, fmt.Errorf("%s: %q is not a slowdown from 1 to 20", flagName, f)
		}
		out = append(out, r)
	}
	return out, nil
}

// parseChoice parses a comma-separated subset of known, which must contain
// required when that is set.
func parseChoice(flagName, s string, known []string, required string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(known, f) {
			return nil, fmt.Errorf("%s: %q is not one of %s", flagName, f, strings.Join(known, ", "))
		}
		out[f] = true
	}
	if required != "" && !out[required] {
		return nil, fmt.Errorf("%s must include %s, the baseline", flagName, required)
	}
	return out, nil
}

// benchDatabase creates a database of its own on cfg.serverURL, migrates
// it and opens a pool of cfg.poolSize connections on it. done closes the
// pool and drops the database.
func benchDatabase(ctx context.Context, cfg config) (dbURL string, pool *pgxpool.Pool, done func() error, err error) {
	dbURL, drop, err := createDatabase(ctx, cfg.serverURL)
	if err != nil {
		return "", nil, nil, err
	}
	status("migrating %s", postgres.RedactURL(dbURL))
	if err := postgres.Migrate(ctx, dbURL); err != nil {
		return "", nil, nil, errors.Join(err, drop())
	}
	if pool, err = postgres.Connect(ctx, dbURL, cfg.poolSize); err != nil {
		return "", nil, nil, errors.Join(err, drop())
	}
	return dbURL, pool, func() error {
		pool.Close()
		return drop()
	}, nil
}

// run creates the benchmark database, runs every cell and the stampede, and
// prints the report to w. The database is dropped whatever happens.
func run(ctx context.Context, cfg config, w io.Writer) (err error) {
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
	// The live seat map's announcements run as an app instance runs them:
	// every hold and release writes a seat_events row (hold_seats and
	// end_hold themselves, migration 000013), a notifier drains them every
	// 50 ms, one listener.
	announce, err := startMachinery(ctx, dbURL, store, announcings(1)[1])
	if err != nil {
		return err
	}
	defer announce.stop()

	maxClients := cfg.stampedeClients
	for _, n := range cfg.clients {
		maxClients = max(maxClients, n)
	}
	status("seeding %d users and %d shows", maxClients, max(minShows, maxClients)+1)
	world, err := seed(ctx, store, maxClients, max(minShows, maxClients))
	if err != nil {
		return err
	}

	status("starting the HTTP server and signing %d users in", len(world.users))
	httpImpl, stopHTTP, err := startHTTP(ctx, store, world.users, cfg.holdTTL)
	if err != nil {
		return err
	}
	defer stopHTTP()
	impls := []impl{
		&naiveImpl{pool: pool, store: store, ttl: cfg.holdTTL},
		&sqlImpl{store: store, ttl: cfg.holdTTL},
		httpImpl,
	}

	h := header(ctx, pool, cfg, store.LockTimeout)
	b := &bench{cfg: cfg, pool: pool, store: store, world: world, impls: impls}
	report, err := b.runAll(ctx)
	if err != nil {
		return err
	}
	fmt.Fprint(w, h)
	fmt.Fprintf(w, "- load average at end: %s\n", loadAverage())
	fmt.Fprint(w, report)
	return checkInvariants(ctx, store, w)
}

// checkInvariants ends a report: it fails the run, naming each violation,
// unless booking_invariant_violations() is empty.
func checkInvariants(ctx context.Context, store *postgres.Store, w io.Writer) error {
	violations, err := store.InvariantViolations(context.WithoutCancel(ctx))
	if err != nil {
		return fmt.Errorf("check invariants: %w", err)
	}
	for _, v := range violations {
		fmt.Fprintln(w, "invariant violated:", v)
	}
	if len(violations) > 0 {
		return fmt.Errorf("%d invariant violations after the run", len(violations))
	}
	fmt.Fprintln(w, "\nInvariants I1-I5 hold after the run (booking_invariant_violations() is empty).")
	return nil
}

// serverLine describes the Postgres server and the settings that move the
// figures most: a flush per commit, and whether autovacuum cleans up behind
// the cells (the benchmark vacuums before each cell either way).
func serverLine(ctx context.Context, pool *pgxpool.Pool) string {
	var version, fsync, commit, autovacuum string
	if err := pool.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('fsync'),
		current_setting('synchronous_commit'), current_setting('autovacuum')`).Scan(&version, &fsync, &commit, &autovacuum); err != nil {
		version = "unknown (" + err.Error() + ")"
	}
	host := "?"
	if cc := pool.Config().ConnConfig; cc != nil {
		host = fmt.Sprintf("%s:%d", cc.Host, cc.Port)
	}
	return fmt.Sprintf("- PostgreSQL %s at %s (fsync %s, synchronous_commit %s, autovacuum %s)\n", version, host, fsync, commit, autovacuum)
}

// header describes the machine and the settings, for the top of the report.
func header(ctx context.Context, pool *pgxpool.Pool, cfg config, lockTimeout time.Duration) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Marquee hold benchmark\n\n")
	fmt.Fprintf(&sb, "- machine: %d CPUs (NumCPU), GOMAXPROCS %d, %s/%s, %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	sb.WriteString(serverLine(ctx, pool))
	fmt.Fprintf(&sb, "- load average at start: %s\n", loadAverage())
	fmt.Fprintf(&sb, "- pool: %d connections, shared by all three implementations; Store.LockTimeout %s\n",
		cfg.poolSize, lockTimeout)
	fmt.Fprintf(&sb, "- each cell: %s measured after a %s warm-up; clients %v; hold TTL %s; 2 seats per hold\n",
		cfg.duration, cfg.warmup, cfg.clients, cfg.holdTTL)
	fmt.Fprintf(&sb, "- %d rounds over every cell, the implementations in reverse order every other round\n", cfg.rounds)
	fmt.Fprintf(&sb, "- live seat map announcements on, as in serve: seat_events trigger, notifier every %s, one listener\n", announceInterval)
	fmt.Fprintf(&sb, "- started %s\n", time.Now().UTC().Format(time.RFC3339))
	return sb.String()
}

// loadAverage is the 1, 5 and 15 minute load average, where Linux tells it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// createDatabase creates an empty database on serverURL's server and returns
// its URL and a function that drops it.
func createDatabase(ctx context.Context, serverURL string) (string, func() error, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, errors.New("DATABASE_URL must be a postgres:// URL")
	}
	admin, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", postgres.RedactURL(serverURL), err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	b := make([]byte, 6)
	rand.Read(b)
	name := "marquee_bench_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	drop := func() error {
		// A fresh context: this must run after Ctrl-C too.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, serverURL)
		if err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		status("dropped database %s", name)
		return nil
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

// status reports progress on stderr, so stdout stays the report.
func status(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
