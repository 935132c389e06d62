// Package holdbench is the hold benchmark (cmd/bench without a mode flag):
// the seat hold taken three ways (the naive five-statement transaction,
// Store.HoldSeats, the HTTP API) by the same clients on the same
// workloads, and its report.
package holdbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/announce"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Config is what the flags decide.
type Config struct {
	Duration        time.Duration // measured time of each cell
	Warmup          time.Duration // of each holder, before the cells
	Clients         []int
	StampedeClients int
	StampedeRounds  int
	PoolSize        int32
	HoldTTL         time.Duration
	MaxOther        float64 // cores other work may use before a cell is re-run
	Reruns          int
	Rounds          int // runs of every cell; holders in reverse order every other round
}

// New returns a bench of holders on world, one client per user.
func New(cfg Config, pool *pgxpool.Pool, store *postgres.Store, world *seed.World, holders []Holder, status func(string, ...any)) *Bench {
	return &Bench{Cfg: cfg, Pool: pool, Store: store, World: world, Holders: holders, Clients: Clients(world.Users), Status: status}
}

// Run seeds the database at dbURL (migrated; pool is on it), runs every
// cell and the stampede, and prints the report to w. The live seat map's
// announcements run beside the cells as in serve: every hold and release
// writes a seat_events row, a notifier drains them every 50 ms, one
// listener feeds a hub.
func Run(ctx context.Context, cfg Config, dbURL string, pool *pgxpool.Pool, w io.Writer, status func(string, ...any)) (err error) {
	store := postgres.NewStore(pool)
	announcing, err := announce.Start(ctx, dbURL, store, pool, announce.Design)
	if err != nil {
		return err
	}
	defer announcing.Stop()

	maxClients := cfg.StampedeClients
	for _, n := range cfg.Clients {
		maxClients = max(maxClients, n)
	}
	status("seeding %d users and %d shows", maxClients, max(seed.MinShows, maxClients)+1)
	world, err := seed.Seed(ctx, store, maxClients, max(seed.MinShows, maxClients))
	if err != nil {
		return err
	}

	status("starting the HTTP server and signing %d users in", len(world.Users))
	base, stopServer, err := appserver.Start(store, cfg.HoldTTL)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopServer()) }()
	web, err := NewHTTP(ctx, base, appserver.SessionCookie, world.Users)
	if err != nil {
		return err
	}
	defer web.Close()
	b := New(cfg, pool, store, world, []Holder{
		&Naive{Pool: pool, Store: store, TTL: cfg.HoldTTL},
		&SQL{Store: store, TTL: cfg.HoldTTL},
		web,
	}, status)

	h := header(ctx, pool, cfg, store.LockTimeout)
	cells, stampedes, err := b.RunAll(ctx)
	if err != nil {
		return err
	}
	fmt.Fprint(w, h)
	fmt.Fprintf(w, "- load average at end: %s\n", cpu.Host().LoadAverage())
	WriteReport(w, Method{CPUs: runtime.NumCPU(), MaxOther: cfg.MaxOther, Reruns: cfg.Reruns, HotWorkload: b.Workloads()[1].Name}, cells, stampedes)
	return report.Invariants(ctx, store, w)
}

// header describes the machine and the settings, for the top of the report.
func header(ctx context.Context, pool *pgxpool.Pool, cfg Config, lockTimeout time.Duration) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Marquee hold benchmark\n\n")
	sb.WriteString(report.Machine())
	sb.WriteString(report.Server(ctx, pool))
	fmt.Fprintf(&sb, "- load average at start: %s\n", cpu.Host().LoadAverage())
	fmt.Fprintf(&sb, "- pool: %d connections, shared by all three implementations; Store.LockTimeout %s\n",
		cfg.PoolSize, lockTimeout)
	fmt.Fprintf(&sb, "- each cell: %s measured after a %s warm-up; clients %v; hold TTL %s; 2 seats per hold\n",
		cfg.Duration, cfg.Warmup, cfg.Clients, cfg.HoldTTL)
	fmt.Fprintf(&sb, "- %d rounds over every cell, the implementations in reverse order every other round\n", cfg.Rounds)
	fmt.Fprintf(&sb, "- live seat map announcements on, as in serve: seat_events trigger, notifier every %s, one listener\n", appserver.AnnounceInterval)
	fmt.Fprintf(&sb, "- started %s\n", time.Now().UTC().Format(time.RFC3339))
	return sb.String()
}
