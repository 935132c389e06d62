package peerbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/holdbench"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// Cell is one system's run of one workload at one concurrency in one
// round.
type Cell struct {
	Workload  string
	Clients   int
	System    string
	Round     int // 0-based
	Held      int // holds confirmed
	Conflicts int // holds lost
	Changes   int // seats held and seats released, as confirmed
	Errs      int // holds or releases that failed otherwise
	FirstErr  error
	Elapsed   time.Duration
	CPU       cpu.Use       // this process / the system's database's backends / everything else but the server
	Server    time.Duration // CPU time of the system's server process
	Tries     int           // runs of this cell, the last one reported
	Lat       []time.Duration
}

// Attempts are the holds answered: won and lost.
func (c *Cell) Attempts() int { return c.Held + c.Conflicts }

// PerSecond is n over the cell's time.
func (c *Cell) PerSecond(n int) float64 {
	if c.Elapsed <= 0 {
		return 0
	}
	return float64(n) / c.Elapsed.Seconds()
}

// ServerPerChange is the server process's CPU time per seat change (0
// without changes).
func (c *Cell) ServerPerChange() time.Duration { return c.per(c.Server) }

// PostgresPerChange is the CPU time of the database's backends per seat
// change (0 without changes).
func (c *Cell) PostgresPerChange() time.Duration {
	return c.per(time.Duration(c.CPU.Postgres * float64(c.Elapsed)))
}

func (c *Cell) per(d time.Duration) time.Duration {
	if c.Changes == 0 {
		return 0
	}
	return d / time.Duration(c.Changes)
}

// tally is what one client saw.
type tally struct {
	held, conflicts, changes, errs int
	firstErr                       error
	lat                            []time.Duration
}

func (t *tally) fail(err error) {
	t.errs++
	if t.firstErr == nil {
		t.firstErr = err
	}
}

// runCell drives the first n clients through s on w for d: each asks for a
// hold (timed) and gives back what it won (untimed), so the seats
// recirculate. Client i draws its seats from a generator seeded by rngSeed
// and i, so it asks each system for the same seats.
func (b *bench) runCell(ctx context.Context, s system, w holdbench.Workload, n int, d time.Duration, rngSeed uint64) (*Cell, error) {
	for _, c := range b.clients[:n] {
		if err := s.Ready(ctx, c); err != nil {
			return nil, err
		}
	}
	tallies := make([]tally, n)
	start := make(chan struct{})
	var deadline time.Time
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, t := b.clients[i], &tallies[i]
			rng := rand.New(rand.NewPCG(rngSeed, uint64(i)))
			<-start
			for ctx.Err() == nil && time.Now().Before(deadline) {
				showID, seats := w.Pick(rng, i)
				t0 := time.Now()
				h, err := s.Hold(c, showID, seats)
				lat := time.Since(t0)
				switch {
				case errors.Is(err, errConflict):
					t.conflicts++
					t.lat = append(t.lat, lat)
					continue
				case err != nil:
					t.fail(err)
					continue
				}
				t.held++
				t.changes += h.seats
				t.lat = append(t.lat, lat)
				freed, err := s.Release(ctx, c, h)
				t.changes += freed
				if err != nil {
					t.fail(fmt.Errorf("release: %w", err))
				}
			}
		})
	}
	host := cpu.Host()
	cpu0 := host.SampleDatabase(ctx, s.Pool())
	srv0, _ := host.PID(s.PID())
	began := time.Now()
	deadline = began.Add(d)
	close(start)
	wg.Wait()
	res := &Cell{Workload: w.Name, Clients: n, System: s.Name(), Elapsed: time.Since(began)}
	res.CPU = host.SampleDatabase(ctx, s.Pool()).Since(cpu0, res.Elapsed)
	srv1, _ := host.PID(s.PID())
	res.Server = srv1 - srv0
	if res.CPU.Other >= 0 {
		res.CPU.Other = max(0, res.CPU.Other-res.Server.Seconds()/res.Elapsed.Seconds())
	}
	for _, t := range tallies {
		res.Held += t.held
		res.Conflicts += t.conflicts
		res.Changes += t.changes
		res.Errs += t.errs
		if res.FirstErr == nil {
			res.FirstErr = t.firstErr
		}
		res.Lat = append(res.Lat, t.lat...)
	}
	slices.Sort(res.Lat)
	return res, nil
}

// settle settles both systems' databases: the one idle during a cell must
// not vacuum its last cell's dead rows during it.
func (b *bench) settle(ctx context.Context) error {
	for _, s := range b.systems {
		left, err := s.Settle(ctx)
		if err != nil {
			return err
		}
		if left > 0 {
			b.status("settle: %s had %d seats a client left held", s.Name(), left)
		}
	}
	return nil
}

// measure runs one cell, settled first, again while other work on the
// machine disturbed it, up to Config.Reruns times.
func (b *bench) measure(ctx context.Context, s system, w holdbench.Workload, n int, round int, rngSeed uint64) (*Cell, error) {
	for try := 0; ; try++ {
		if err := b.settle(ctx); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := b.runCell(ctx, s, w, n, b.cfg.Duration, rngSeed)
		if err != nil {
			return nil, err
		}
		c.Round, c.Tries = round, try+1
		b.status("round %d  %-18s %3d clients %-9s %7.0f changes/s  server %s ms/change  pg %s ms/change  p50 %s  p99 %s  errors %d  cpu %s / server %.2f",
			round+1, w.Name, n, s.Name(), c.PerSecond(c.Changes), stats.Ms(c.ServerPerChange()), stats.Ms(c.PostgresPerChange()),
			stats.Ms(stats.Percentile(c.Lat, 50)), stats.Ms(stats.Percentile(c.Lat, 99)), c.Errs, c.CPU, c.Server.Seconds()/c.Elapsed.Seconds())
		if c.FirstErr != nil {
			b.status("  first error: %v", c.FirstErr)
		}
		if !b.reruns.Disturbed(c.CPU) || try == b.cfg.Reruns {
			return c, nil
		}
		b.status("  disturbed: other work used %.2f cores; running the cell again", c.CPU.Other)
	}
}

// runAll warms each system up, then runs every round: every workload at
// every number of clients on each system in turn, the systems in the
// other order every other round.
func (b *bench) runAll(ctx context.Context) ([]*Cell, error) {
	wls := holdbench.Workloads(b.world)
	most := slices.Max(b.cfg.Clients)
	for _, s := range b.systems {
		b.status("warming up %s (%d clients, %s)", s.Name(), most, b.cfg.Warmup)
		if err := b.settle(ctx); err != nil {
			return nil, err
		}
		if _, err := b.runCell(ctx, s, wls[0], most, b.cfg.Warmup, 1<<40); err != nil {
			return nil, err
		}
	}
	var cells []*Cell
	for round := range b.cfg.Rounds {
		order := slices.Clone(b.systems)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for wi, w := range wls {
			for _, n := range b.cfg.Clients {
				for _, s := range order {
					c, err := b.measure(ctx, s, w, n, round, uint64(wi)<<32|uint64(n))
					if err != nil {
						return nil, err
					}
					cells = append(cells, c)
				}
			}
		}
	}
	return cells, ctx.Err()
}
