// Package peerbench is the peer benchmark (cmd/bench -peer): Marquee
// against overbookr, an open-source booking server written the naive way
// (Go, Gin, pgx, SELECT ... FOR UPDATE), side by side in one run. Both
// servers run as child processes on this machine, each on a database of
// its own on the same Postgres server, and the same clients drive seat
// changes on each in turn; the report gives each one's seat changes per
// second and CPU per change, and Marquee's ratios to the peer against the
// targets (>= 2x the changes per second at <= 0.5x the server CPU per
// change).
package peerbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Config is what the flags decide.
type Config struct {
	Bin        string // a build of overbookr's server (PeerCommand)
	Migrations string // its migrations folder at PeerCommit
	Version    string // what CheckPeer found the build records of its version
	Clients    []int
	Duration   time.Duration // measured time of each cell
	Warmup     time.Duration // of each system, before the cells
	Rounds     int           // the systems in the other order every other round
	PoolSize   int32         // the benchmark's pool on each database
	MaxOther   float64       // cores other work may use before a cell is run again
	Reruns     int
	// ReleaseAPI gives Marquee's holds back through its API (DELETE
	// /api/v1/holds/{id}) rather than in its database, as overbookr's are.
	ReleaseAPI bool
}

// peerPassword is every peer user's password.
const peerPassword = "bench-password"

type bench struct {
	cfg     Config
	world   *seed.World
	clients []*client
	systems []system // Marquee, overbookr
	reruns  *report.Reruns
	status  func(string, ...any)
}

// Run measures Marquee (migrated at dbURL; pool is on it) against
// overbookr, whose database it creates on serverURL's server and drops at
// the end, and prints the report to w.
func Run(ctx context.Context, cfg Config, serverURL, dbURL string, pool *pgxpool.Pool, w io.Writer, status func(string, ...any)) (err error) {
	store := postgres.NewStore(pool)
	most := 0
	for _, n := range cfg.Clients {
		most = max(most, n)
	}
	b := &bench{cfg: cfg, reruns: &report.Reruns{MaxOther: cfg.MaxOther, Limit: cfg.Reruns}, status: status}

	peerDB, err := pgtest.CreateDatabase(ctx, serverURL, "overbookr_bench")
	if err != nil {
		return err
	}
	defer func() {
		if derr := peerDB.Drop(); derr != nil {
			err = errors.Join(err, derr)
		} else {
			status("dropped database %s", peerDB.Name)
		}
	}()
	status("applying overbookr's migrations to %s", peerDB.Name)
	if err := migratePeer(peerDB.URL, cfg.Migrations); err != nil {
		return err
	}
	peerPool, err := postgres.Connect(ctx, peerDB.URL, cfg.PoolSize)
	if err != nil {
		return err
	}
	defer peerPool.Close()

	status("seeding Marquee: %d users and %d shows", most, max(seed.MinShows, most)+1)
	if b.world, err = seed.Seed(ctx, store, most, max(seed.MinShows, most)); err != nil {
		return err
	}

	status("starting Marquee's server and overbookr's")
	child, err := appserver.StartChild(ctx, dbURL)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, child.Stop()) }()
	peer, err := startPeer(ctx, cfg.Bin, peerDB.URL)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, peer.Stop()) }()

	status("seeding overbookr and signing %d users in on each server", most)
	events, err := seedPeer(ctx, peer.Base, b.world)
	if err != nil {
		return err
	}
	b.clients, err = signIn(ctx, child.Base, peer.Base, b.world.Users)
	defer func() {
		for _, c := range b.clients {
			c.marquee.Close()
			c.peer.Close()
		}
	}()
	if err != nil {
		return err
	}
	b.systems = []system{
		&marquee{child: child, store: store, pool: pool, releaseAPI: cfg.ReleaseAPI},
		&overbookr{server: peer, pool: peerPool, events: events},
	}

	h := b.header(ctx, pool)
	// Marquee's server profiles itself from here to its end when the
	// environment asks (appserver's MARQUEE_BENCH_SERVER_CPUPROFILE).
	if _, err := child.Stats(ctx, 0, true); err != nil {
		return err
	}
	cells, err := b.runAll(ctx)
	if err != nil {
		return err
	}
	fmt.Fprint(w, h)
	fmt.Fprintf(w, "- load average at end: %s\n", cpu.Host().LoadAverage())
	WriteReport(w, Method{CPUs: runtime.NumCPU(), MaxOther: cfg.MaxOther, Reruns: cfg.Reruns, ReleaseAPI: cfg.ReleaseAPI}, cells)
	return report.Invariants(ctx, store, w)
}

// seedPeer creates, through overbookr's API as its admin, an event for
// each of world's shows with the same seats, and returns them by show.
func seedPeer(ctx context.Context, base string, world *seed.World) (map[int64]string, error) {
	admin, err := apiclient.Dial(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("overbookr: %w", err)
	}
	defer admin.Close()
	if _, err := peerSignUp(admin, "bench-admin@example.com", peerPassword, "admin"); err != nil {
		return nil, err
	}
	var seats []string
	for _, s := range seed.Grid(seed.ShowRows, seed.ShowCols) {
		seats = append(seats, s.ID)
	}
	events := map[int64]string{}
	shows := append([]int64{world.HotShow}, world.ManyShows...)
	for i, show := range shows {
		if events[show], err = peerEvent(admin, fmt.Sprintf("Screen %d", i), world.Venue.StartsAt, seats); err != nil {
			return nil, err
		}
	}
	return events, nil
}

// signIn makes one client per user: signed in to Marquee as the user
// (POST /api/v1/login), and registered and signed in to overbookr as a user
// of the same address, each over a connection of its own. The clients made
// are returned with any error, to be closed.
func signIn(ctx context.Context, marqueeBase, peerBase string, users []seed.User) ([]*client, error) {
	clients := make([]*client, len(users))
	errs := make([]error, len(users))
	// overbookr hashes passwords at bcrypt's cost 10 and gives a request
	// 10 s to be answered (its server's WriteTimeout), after which it closes
	// the connection: 64 sign-ups at once on a busy machine take longer.
	// One sign-up a core at a time.
	slots := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			c := &client{n: i, userID: u.ID, peerBase: peerBase}
			if c.marquee, errs[i] = apiclient.Login(ctx, marqueeBase, appserver.SessionCookie, u.Email, seed.Password); errs[i] != nil {
				return
			}
			if c.peer, errs[i] = apiclient.Dial(ctx, peerBase); errs[i] != nil {
				c.marquee.Close()
				return
			}
			if c.peerToken, errs[i] = peerSignUp(c.peer, u.Email, peerPassword, "user"); errs[i] != nil {
				c.marquee.Close()
				c.peer.Close()
				return
			}
			c.peerUsed = time.Now()
			clients[i] = c
		})
	}
	wg.Wait()
	var made []*client
	for _, c := range clients {
		if c != nil {
			made = append(made, c)
		}
	}
	return made, errors.Join(errs...)
}

// header describes the machine, the servers and the settings, for the top
// of the report.
func (b *bench) header(ctx context.Context, pool *pgxpool.Pool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Marquee against a naive peer (overbookr)\n\n")
	sb.WriteString(report.Machine())
	sb.WriteString(report.Server(ctx, pool))
	fmt.Fprintf(&sb, "- load average at start: %s\n", cpu.Host().LoadAverage())
	fmt.Fprintf(&sb, "- Marquee: this build's server in a child process, its pool %d connections, rate limits off, the live seat map wired as serve wires it\n",
		appserver.ChildPoolSize())
	// pgxpool's default size, which overbookr keeps: the larger of 4 and
	// the number of CPUs.
	fmt.Fprintf(&sb, "- overbookr: %s at commit %.12s (the build's version: %s), its pool %d connections (its default), GIN_MODE=release\n",
		PeerCommand, PeerCommit, b.cfg.Version, max(4, runtime.NumCPU()))
	release := "both in their databases, from this process (Marquee: Store.CancelHold; overbookr: as its expiry worker does)"
	if b.cfg.ReleaseAPI {
		release = "Marquee's through DELETE /api/v1/holds/{id}; overbookr's in its database, as its expiry worker does"
	}
	fmt.Fprintf(&sb, "- holds given back: %s\n", release)
	fmt.Fprintf(&sb, "- each cell: %s measured after a %s warm-up of each system; clients %v; 2 seats per hold\n",
		b.cfg.Duration, b.cfg.Warmup, b.cfg.Clients)
	fmt.Fprintf(&sb, "- %d rounds over every cell, the systems in the other order every other round\n", b.cfg.Rounds)
	fmt.Fprintf(&sb, "- started %s\n", time.Now().UTC().Format(time.RFC3339))
	return sb.String()
}
