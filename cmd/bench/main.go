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
//	go run ./cmd/bench -peer -peer-bin <overbookr's server> -peer-migrations <its migrations> [-peer-clients 8,64] [-quick]
//	go run ./cmd/bench -burst [-burst-people 10000] [-burst-window 60s] [-burst-room off,on] [-burst-pick hand,best] [-quick]
//
// -live measures the live seat map instead (livebench): hold throughput with
// and without announcements, commit-to-browser latency and websocket fan-out.
// -browser measures the show page of big halls in Chromium (browserbench):
// main-thread long tasks from navigation to idle, and click-to-paint while
// seat changes stream in. -peer measures Marquee against a naive peer,
// overbookr, side by side (peerbench): seat changes per second and server
// CPU per change. -burst lets a crowd of signed-in people arrive
// within a minute at one 1,000-seat show of a real app instance, each
// (after the show's waiting room, when on) loading the page, watching the
// live seat map, holding two seats by hand or best available and paying
// (burstbench). This package parses the flags and wires them; the
// benchmarks and their parts are the packages below it.
//
// docs/benchmarks.md explains the workloads and the figures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/browserbench"
	"github.com/marquee-tickets/marquee/cmd/bench/burstbench"
	"github.com/marquee-tickets/marquee/cmd/bench/holdbench"
	"github.com/marquee-tickets/marquee/cmd/bench/livebench"
	"github.com/marquee-tickets/marquee/cmd/bench/peerbench"
	"github.com/marquee-tickets/marquee/internal/chromium"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const defaultServerURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// burstPool is the -burst program's own pool (the app in its child process
// has its own): seeding, CPU samples, the checks after.
const burstPool = 4

func main() {
	serverURL := os.Getenv("DATABASE_URL")
	if serverURL == "" {
		serverURL = defaultServerURL
	}
	cfg := holdbench.Config{PoolSize: int32(4 * runtime.NumCPU())}
	var clients string
	var quick bool
	flag.DurationVar(&cfg.Duration, "duration", 3*time.Second, "measured time of each cell")
	flag.StringVar(&clients, "clients", "1,8,64", "comma-separated numbers of concurrent clients")
	flag.IntVar(&cfg.StampedeClients, "stampede-clients", 64, "clients released together in each stampede round")
	flag.IntVar(&cfg.StampedeRounds, "stampede-rounds", 20, "stampede rounds, each on 6 fresh seats")
	flag.Float64Var(&cfg.MaxOther, "max-other", 0.25, "re-run a cell when other processes used more than this many cores during it (0: never)")
	flag.IntVar(&cfg.Reruns, "reruns", 2, "most re-runs of one disturbed cell")
	flag.IntVar(&cfg.Rounds, "rounds", 3, "rounds over every cell (the implementations in reverse order every other round); a ratio is the median of its rounds'")
	pool := flag.Int("pool", int(cfg.PoolSize), "connections in the pool, shared by all implementations (4 x NumCPU)")
	flag.BoolVar(&quick, "quick", false, "smoke run: short cells, fewer stampede rounds")
	liveMode := flag.Bool("live", false, "benchmark the live seat map instead of the hold (see docs/benchmarks.md)")
	liveClients := flag.String("live-clients", "8,64", "-live: concurrent hold clients")
	liveSubs := flag.String("live-subscribers", "1,1000,5000", "-live: websocket subscribers of the fan-out runs (1: the quiet latency)")
	lc := livebench.Config{}
	flag.IntVar(&lc.Listeners, "live-listeners", 50, "-live: listening connections of the second naive pg_notify variant")
	flag.Float64Var(&lc.Rate, "live-rate", 10, "-live: seat changes per second during the fan-out")
	flag.DurationVar(&lc.Stream, "live-stream", 10*time.Second, "-live: how long the fan-out's stream of changes runs")
	flag.IntVar(&lc.Rounds, "live-rounds", 4, "-live: rounds over the ways of announcing (every other one in reverse order)")
	liveWays := flag.String("live-ways", "none,design,naive1,naiveN", "-live: the ways of announcing (a) compares; none is the baseline")
	liveWorkloads := flag.String("live-workloads", "many,hot", "-live: the workloads of (a): many (shows) and hot (show)")
	liveServe := flag.Bool(appserver.ChildFlag, false, "internal: be the -live fan-out's app server")
	browserMode := flag.Bool("browser", false, "benchmark the show page of big halls in Chromium instead of the hold (see docs/benchmarks.md)")
	browserCPU := flag.String("browser-cpu", "4,1", "-browser: CPU slowdowns (Emulation.setCPUThrottlingRate); the targets are set for 4")
	browserHalls := flag.String("browser-halls", "large,mega", "-browser: the halls: large (360 seats), mega (1,000)")
	browserViewers := flag.String("browser-viewers", "viewer,guest", "-browser: who loads the page: viewer (signed in; also clicks), guest")
	bc := browserbench.Config{Chromium: chromium.Path()}
	flag.IntVar(&bc.Loads, "browser-loads", 3, "-browser: page loads per hall, CPU slowdown and viewer")
	flag.DurationVar(&bc.IdleCap, "browser-cap", 30*time.Second, "-browser: how long a page load may take to become idle")
	flag.IntVar(&bc.Clicks, "browser-clicks", 100, "-browser: seat clicks per hall and CPU slowdown (0: none)")
	flag.Float64Var(&bc.Rate, "browser-rate", 50, "-browser: seat changes per second while clicking")
	flag.StringVar(&bc.TraceDir, "browser-trace", "", "-browser: write a Chromium trace of each click run into this folder and report where the clicks' time went")
	peerMode := flag.Bool("peer", false, "benchmark Marquee against a naive peer, overbookr, instead of the hold (see docs/benchmarks.md)")
	var pc peerbench.Config
	flag.StringVar(&pc.Bin, "peer-bin", "", "-peer: a build of overbookr's server ("+peerbench.PeerCommand+") at commit "+peerbench.PeerCommit[:12])
	flag.StringVar(&pc.Migrations, "peer-migrations", "", "-peer: the migrations folder of overbookr's source at that commit")
	peerClients := flag.String("peer-clients", "8,64", "-peer: concurrent clients")
	peerRelease := flag.String("peer-release", "db", "-peer: how Marquee's holds are given back: db (Store.CancelHold, as overbookr's are in its database) or api (DELETE /api/v1/holds/{id})")
	burstMode := flag.Bool("burst", false, "benchmark a crowd arriving at one 1,000-seat show instead of the hold (see docs/benchmarks.md)")
	burstPeople := flag.String("burst-people", "10000", "-burst: people of each cell, signed in before it and arriving within -burst-window")
	burstWindow := flag.Duration("burst-window", time.Minute, "-burst: the people of a cell arrive evenly within this time")
	burstRoom := flag.String("burst-room", "off,on", "-burst: the show's waiting room in the cells: off, on or both")
	burstPick := flag.String("burst-pick", "hand,best", "-burst: how people pick their two seats: hand (side by side from the seat map), best (best available)")
	burstThink := flag.String("burst-think", "1s-3s", "-burst: how long a person looks at the show page before holding, a range (1s-3s) or one time (0: not at all)")
	var burstRoomSettings burstbench.RoomSettings
	flag.IntVar(&burstRoomSettings.AdmitPerMinute, "burst-admit-per-minute", 600, "-burst: the waiting room's admissions a minute")
	flag.IntVar(&burstRoomSettings.MaxActive, "burst-max-active", 300, "-burst: the waiting room's most shoppers active at once")
	flag.DurationVar(&burstRoomSettings.OpensAfter, "burst-opens-after", 5*time.Second, "-burst: the waiting room opens this long after the first arrival, a pre-queue before (0: no opening time)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of this process (clients, and the server of the HTTP cells) to this file")
	flag.Parse()

	if *liveServe {
		if err := appserver.Serve(); err != nil {
			fmt.Fprintln(os.Stderr, "bench -live-serve:", err)
			os.Exit(1)
		}
		return
	}

	if *pool < 1 || *pool > 1000 || cfg.StampedeClients < 1 || cfg.StampedeClients > 1024 || cfg.StampedeRounds < 0 || cfg.Rounds < 1 || cfg.Rounds > 20 {
		fmt.Fprintln(os.Stderr, "bench: -pool must be 1-1000, -stampede-clients 1-1024, -stampede-rounds >= 0, -rounds 1-20")
		os.Exit(2)
	}
	cfg.PoolSize = int32(*pool)
	var err error
	if cfg.Clients, err = parseClients(clients); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if *liveMode {
		if lc.Clients, err = parseCounts("-live-clients", *liveClients, 1024); err == nil {
			lc.Subscribers, err = parseCounts("-live-subscribers", *liveSubs, 20000)
		}
		if err == nil {
			lc.Ways, err = parseChoice("-live-ways", *liveWays, []string{"none", "design", "naive1", "naiveN"}, "none")
		}
		if err == nil {
			lc.Workloads, err = parseChoice("-live-workloads", *liveWorkloads, []string{"many", "hot"}, "")
		}
		if err == nil && (lc.Listeners < 1 || lc.Listeners > 90 || lc.Rounds < 1 || lc.Rounds > 30 || lc.Rate <= 0 || lc.Rate > 1000 || lc.Stream <= 0) {
			err = errors.New("-live-listeners must be 1-90, -live-rounds 1-30, -live-rate 0-1000, -live-stream > 0")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
	}
	if *browserMode {
		if bc.Throttles, err = parseRates("-browser-cpu", *browserCPU); err == nil {
			bc.Halls, err = parseChoice("-browser-halls", *browserHalls, []string{"large", "mega"}, "")
		}
		if err == nil {
			bc.Viewers, err = parseChoice("-browser-viewers", *browserViewers, []string{"viewer", "guest"}, "")
		}
		if err == nil && (bc.Loads < 1 || bc.Loads > 50 || bc.Clicks < 0 || bc.Clicks > 10000 || bc.Rate <= 0 || bc.Rate > 1000 || bc.IdleCap < 5*time.Second) {
			err = errors.New("-browser-loads must be 1-50, -browser-clicks 0-10000, -browser-rate 0-1000, -browser-cap at least 5s")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
	}
	if *peerMode {
		if pc.Clients, err = parseCounts("-peer-clients", *peerClients, 1024); err == nil && *peerRelease != "db" && *peerRelease != "api" {
			err = fmt.Errorf("-peer-release: %q is not db or api", *peerRelease)
		}
		if err == nil {
			pc.Version, err = peerbench.CheckPeer(pc.Bin, pc.Migrations) // before creating a database for nothing
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
		pc.ReleaseAPI = *peerRelease == "api"
	}
	var burst burstbench.Config
	if *burstMode {
		burst.People, err = parseCounts("-burst-people", *burstPeople, 50000)
		if err == nil && (*burstWindow < time.Second || *burstWindow > time.Hour) {
			err = errors.New("-burst-window must be from 1s to 1h")
		}
		if err == nil {
			burst.Rooms, err = parseRooms(*burstRoom)
		}
		if err == nil {
			burst.Picks, err = parsePicks(*burstPick)
		}
		if err == nil {
			burst.Think, err = parseThink(*burstThink)
		}
		r := burstRoomSettings
		if err == nil && (r.AdmitPerMinute < 1 || r.AdmitPerMinute > 100000 || r.MaxActive < 1 || r.MaxActive > 100000 || r.OpensAfter < 0 || r.OpensAfter > time.Hour) {
			err = errors.New("-burst-admit-per-minute and -burst-max-active must be from 1 to 100000, -burst-opens-after from 0 to 1h")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
		burst.Window, burst.MaxOther, burst.Room = *burstWindow, cfg.MaxOther, r
	}
	if quick {
		burst.People, burst.Window = []int{300}, min(burst.Window, 5*time.Second)
		bc.Loads, bc.Clicks, bc.Throttles = 1, min(bc.Clicks, 20), bc.Throttles[:min(len(bc.Throttles), 1)]
		cfg.Duration = min(cfg.Duration, 300*time.Millisecond)
		cfg.StampedeRounds = min(cfg.StampedeRounds, 3)
		cfg.Rounds = 1
		lc.Stream = min(lc.Stream, 2*time.Second)
		lc.Rounds = 1
	}
	cfg.Warmup = min(cfg.Duration/3, time.Second)
	cfg.HoldTTL = 5 * time.Minute
	pc.Duration, pc.Warmup, pc.Rounds, pc.PoolSize, pc.MaxOther, pc.Reruns = cfg.Duration, cfg.Warmup, cfg.Rounds, cfg.PoolSize, cfg.MaxOther, cfg.Reruns

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
	err = nil
	if *browserMode {
		err = browserbench.Check(bc) // before creating a database for nothing
	}
	if *burstMode {
		// A database of its own for every cell.
		burst.WithDatabase = func(cell func(dbURL string, pool *pgxpool.Pool) error) error {
			return withDatabase(ctx, serverURL, burstPool, cell)
		}
		err = burstbench.Run(ctx, burst, os.Stdout, status)
	} else if err == nil {
		err = withDatabase(ctx, serverURL, cfg.PoolSize, func(dbURL string, pool *pgxpool.Pool) error {
			switch {
			case *browserMode:
				return browserbench.Run(ctx, bc, dbURL, pool, os.Stdout, status)
			case *peerMode:
				return peerbench.Run(ctx, pc, serverURL, dbURL, pool, os.Stdout, status)
			case *liveMode:
				return livebench.Run(ctx, cfg, lc, dbURL, pool, os.Stdout, status)
			default:
				return holdbench.Run(ctx, cfg, dbURL, pool, os.Stdout, status)
			}
		})
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

// parseRooms reads -burst-room: off, on, or both in the order given.
func parseRooms(s string) ([]bool, error) {
	var out []bool
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "off":
			out = append(out, false)
		case "on":
			out = append(out, true)
		default:
			return nil, fmt.Errorf("-burst-room: %q is not off or on", f)
		}
	}
	return out, nil
}

// parsePicks reads -burst-pick: hand, best, or both in the order given.
func parsePicks(s string) ([]burstbench.Pick, error) {
	var out []burstbench.Pick
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "hand":
			out = append(out, burstbench.ByHand)
		case "best":
			out = append(out, burstbench.BestAvailable)
		default:
			return nil, fmt.Errorf("-burst-pick: %q is not hand or best", f)
		}
	}
	return out, nil
}

// parseThink reads -burst-think: a range of durations, "1s-3s", or one,
// "2s" (0: no thinking), each at most a minute.
func parseThink(s string) ([2]time.Duration, error) {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(s), "-")
	if !isRange {
		hi = lo
	}
	a, err1 := parseThinkTime(lo)
	b, err2 := parseThinkTime(hi)
	if err1 != nil || err2 != nil || b < a {
		return [2]time.Duration{}, fmt.Errorf("-burst-think: %q is not a time or a range of times (1s-3s) from 0 to 1m", s)
	}
	return [2]time.Duration{a, b}, nil
}

func parseThinkTime(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 || d > time.Minute {
		return 0, errors.New("out of range")
	}
	return d, nil
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

// withDatabase creates a database of its own on serverURL's server,
// migrates it, opens a pool of poolSize connections on it and runs bench.
// The database is dropped whatever happens, also on Ctrl-C.
func withDatabase(ctx context.Context, serverURL string, poolSize int32, bench func(dbURL string, pool *pgxpool.Pool) error) (err error) {
	db, err := pgtest.CreateDatabase(ctx, serverURL, "marquee_bench")
	if err != nil {
		return err
	}
	defer func() {
		derr := db.Drop()
		if derr == nil {
			status("dropped database %s", db.Name)
		} else if err == nil {
			err = derr
		}
	}()
	status("migrating %s", postgres.RedactURL(db.URL))
	if err := postgres.Migrate(ctx, db.URL); err != nil {
		return err
	}
	pool, err := postgres.Connect(ctx, db.URL, poolSize)
	if err != nil {
		return err
	}
	defer pool.Close()
	return bench(db.URL, pool)
}

// status reports progress on stderr, so stdout stays the report.
func status(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
