package holdbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// StampedeSeats is the number of seats each stampede round fights over.
const StampedeSeats = 6

// Bench runs cells and stampedes over its holders.
type Bench struct {
	Cfg     Config
	Pool    *pgxpool.Pool
	Store   *postgres.Store
	World   *seed.World
	Holders []Holder
	Clients []*Client // Clients(World.Users)
	// Status reports progress (on stderr, so stdout stays the report).
	Status func(format string, args ...any)
}

// Workload decides what client c asks for next. It draws only from rng, so
// a client asks for the same sequence of seats whatever the holder.
type Workload struct {
	Key  string // as -live-workloads names it
	Name string
	Pick func(rng *rand.Rand, c int) (showID int64, seats []string)
}

// pair returns two adjacent seats of row r drawn from rng.
func pair(rng *rand.Rand, row int) []string {
	col := rng.IntN(seed.ShowCols - 1)
	return []string{seed.SeatID(row, col), seed.SeatID(row, col+1)}
}

// Workloads are the many-shows and the hot-show workloads, in that order.
func (b *Bench) Workloads() []Workload { return Workloads(b.World) }

// Workloads are the many-shows and the hot-show workloads of world, in that
// order.
func Workloads(world *seed.World) []Workload {
	shows := world.ManyShows
	hot := world.HotShow
	return []Workload{{
		// Each client on its own show (while clients <= shows): contention
		// only for the pool, the WAL and the CPUs.
		Key:  "many",
		Name: fmt.Sprintf("many shows (%d)", len(shows)),
		Pick: func(rng *rand.Rand, c int) (int64, []string) {
			return shows[c%len(shows)], pair(rng, rng.IntN(seed.ShowRows))
		},
	}, {
		// Everyone on adjacent pairs of the same 2 rows (18 possible pairs).
		Key:  "hot",
		Name: fmt.Sprintf("hot show (%d rows)", seed.HotRows),
		Pick: func(rng *rand.Rand, c int) (int64, []string) {
			return hot, pair(rng, rng.IntN(seed.HotRows))
		},
	}}
}

// Cell is the outcome of one holder on one workload at one concurrency.
type Cell struct {
	Workload  string
	Clients   int
	Holder    string
	Round     int // 0-based
	Held      int // 201
	Conflicts int // 409 seats_unavailable
	Errs      int // anything else: a bug in the bench or the code under test
	RelErrs   int // failed releases
	FirstErr  error
	Elapsed   time.Duration
	CPU       cpu.Use
	Tries     int             // runs of this cell, the last one reported
	Lat       []time.Duration // of held and conflicting attempts, sorted
}

// Attempts are the answered holds: won and lost.
func (c *Cell) Attempts() int { return c.Held + c.Conflicts }

// PerSecond is n over the cell's time.
func (c *Cell) PerSecond(n int) float64 {
	if c.Elapsed <= 0 {
		return 0
	}
	return float64(n) / c.Elapsed.Seconds()
}

// tally is what one client goroutine saw.
type tally struct {
	held, conflicts, errs, relErrs int
	firstErr                       error
	lat                            []time.Duration
}

func (t *tally) record(err error, d time.Duration) {
	switch {
	case err == nil:
		t.held++
		t.lat = append(t.lat, d)
	case errors.Is(err, ErrConflict):
		t.conflicts++
		t.lat = append(t.lat, d)
	default:
		t.errs++
		if t.firstErr == nil {
			t.firstErr = err
		}
	}
}

// CPUSample is a CPU sample of this process, the host and the bench
// database's backends.
func (b *Bench) CPUSample(ctx context.Context) cpu.Sample {
	return cpu.Host().SampleDatabase(ctx, b.Pool)
}

// RunCell drives n clients through h on w for d: each client asks, and
// after a win releases its hold (untimed) so the seats recirculate.
func (b *Bench) RunCell(ctx context.Context, h Holder, w Workload, n int, d time.Duration, rngSeed uint64) *Cell {
	tallies := make([]tally, n)
	start := make(chan struct{})
	var deadline time.Time
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, t := b.Clients[i], &tallies[i]
			rng := rand.New(rand.NewPCG(rngSeed, uint64(i)))
			<-start
			for ctx.Err() == nil && time.Now().Before(deadline) {
				showID, seats := w.Pick(rng, i)
				t0 := time.Now()
				id, err := h.Hold(ctx, c, showID, seats)
				t.record(err, time.Since(t0))
				if err == nil {
					if err := h.Release(ctx, c, id); err != nil {
						t.relErrs++
						if t.firstErr == nil {
							t.firstErr = fmt.Errorf("release: %w", err)
						}
					}
				}
			}
		}()
	}
	cpu0 := b.CPUSample(ctx)
	began := time.Now()
	deadline = began.Add(d)
	close(start)
	wg.Wait()
	res := &Cell{Workload: w.Name, Clients: n, Holder: h.Name(), Elapsed: time.Since(began)}
	res.CPU = b.CPUSample(ctx).Since(cpu0, res.Elapsed)
	for _, t := range tallies {
		res.Held += t.held
		res.Conflicts += t.conflicts
		res.Errs += t.errs
		res.RelErrs += t.relErrs
		if res.FirstErr == nil {
			res.FirstErr = t.firstErr
		}
		res.Lat = append(res.Lat, t.lat...)
	}
	slices.Sort(res.Lat)
	return res
}

// Settle puts the database in the same state before every cell
// (pgtest.Settle: no hold left HELD, vacuumed, a checkpoint).
func (b *Bench) Settle(ctx context.Context) error {
	released, err := pgtest.Settle(ctx, b.Pool)
	if released > 0 {
		b.Status("settle: released %d seats a client left held", released)
	}
	return err
}

// RunAll warms every holder up, runs every cell and the stampede, and
// returns the report.
func (b *Bench) RunAll(ctx context.Context) (cells []*Cell, stampedes []*Stampede, err error) {
	wls := b.Workloads()
	warm := slices.Max(b.Cfg.Clients)
	for _, h := range b.Holders {
		b.Status("warming up %s (%d clients, %s)", h.Name(), warm, b.Cfg.Warmup)
		b.RunCell(ctx, h, wls[0], warm, b.Cfg.Warmup, 0)
	}
	for round := range b.Cfg.Rounds {
		// Whoever runs first meets the machine in a different state (caches,
		// WAL, the other tenants): every other round runs the other way round.
		holders := slices.Clone(b.Holders)
		if round%2 == 1 {
			slices.Reverse(holders)
		}
		for wi, w := range wls {
			for _, n := range b.Cfg.Clients {
				for _, h := range holders {
					var c *Cell
					tries, err := b.UntilUndisturbed("cell", func(int) (cpu.Use, error) {
						if err := b.Settle(ctx); err != nil {
							return cpu.Use{}, err
						}
						if err := ctx.Err(); err != nil {
							return cpu.Use{}, err
						}
						c = b.RunCell(ctx, h, w, n, b.Cfg.Duration, uint64(wi)<<32|uint64(n))
						b.Status("round %d  %-18s %3d clients %-6s %8.0f attempts/s %8.0f holds/s  p50 %s  p99 %s  errors %d  cpu %s",
							round+1, w.Name, n, h.Name(), c.PerSecond(c.Attempts()), c.PerSecond(c.Held),
							stats.Ms(stats.Percentile(c.Lat, 50)), stats.Ms(stats.Percentile(c.Lat, 99)), c.Errs+c.RelErrs, c.CPU)
						return c.CPU, nil
					})
					if err != nil {
						return nil, nil, err
					}
					c.Tries, c.Round = tries, round
					if c.FirstErr != nil {
						b.Status("  first error: %v", c.FirstErr)
					}
					cells = append(cells, c)
				}
			}
		}
	}
	for _, h := range b.Holders {
		var s *Stampede
		tries, err := b.UntilUndisturbed("stampede", func(try int) (cpu.Use, error) {
			if err := b.Settle(ctx); err != nil {
				return cpu.Use{}, err
			}
			var err error
			if s, err = b.RunStampede(ctx, h, try); err != nil {
				return cpu.Use{}, err
			}
			b.Status("stampede %-6s p50 %s  p99 %s  max %s  won %d of %d  errors %d  cpu %s",
				h.Name(), stats.Ms(stats.Percentile(s.Lat, 50)), stats.Ms(stats.Percentile(s.Lat, 99)), stats.Ms(stats.Percentile(s.Lat, 100)),
				s.Held, s.Requests(), s.Errs, s.CPU)
			return s.CPU, nil
		})
		if err != nil {
			return nil, nil, err
		}
		s.Tries = tries
		if s.FirstErr != nil {
			b.Status("  first error: %v", s.FirstErr)
		}
		stampedes = append(stampedes, s)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return cells, stampedes, nil
}

// UntilUndisturbed runs measure (try 0, 1, ...) until other work on the
// machine did not disturb it or -reruns re-runs were made, and returns how
// many runs it made. measure returns the CPU use it saw; a measurement it
// skipped returns none, which never asks for a re-run.
func (b *Bench) UntilUndisturbed(what string, measure func(try int) (cpu.Use, error)) (int, error) {
	for try := 0; ; try++ {
		u, err := measure(try)
		if err != nil {
			return try + 1, err
		}
		if !b.Disturbed(u) || try == b.Cfg.Reruns {
			return try + 1, nil
		}
		b.Status("  disturbed: other work used %.2f cores; running the %s again", u.Other, what)
	}
}

// Disturbed reports whether other work on the machine took more CPU during
// a measurement than -max-other allows.
func (b *Bench) Disturbed(u cpu.Use) bool {
	return b.Cfg.MaxOther > 0 && u.Other > b.Cfg.MaxOther
}

// Stampede is one holder's stampede: every round, all clients are released
// together on the same few fresh seats.
type Stampede struct {
	Holder          string
	Clients, Rounds int
	Held, Conflicts int
	Errs            int
	FirstErr        error
	MaxWinners      int
	CPU             cpu.Use
	Tries           int
	Lat             []time.Duration // sorted
}

// Requests are every hold asked for.
func (s *Stampede) Requests() int { return s.Held + s.Conflicts + s.Errs }

// RunStampede runs the stampede rounds on a fresh show for h. Each client
// asks for a pair among the round's StampedeSeats seats (so up to 3 can
// win); the winners release their holds, untimed, before the next round.
func (b *Bench) RunStampede(ctx context.Context, h Holder, try int) (*Stampede, error) {
	n, rounds := b.Cfg.StampedeClients, b.Cfg.StampedeRounds
	showID, err := b.World.Venue.NewShow(ctx, b.Store, fmt.Sprintf("Stampede %s %d", h.Name(), try), seed.Grid(rounds, StampedeSeats))
	if err != nil {
		return nil, err
	}
	res := &Stampede{Holder: h.Name(), Clients: n, Rounds: rounds}
	cpu0, began := b.CPUSample(ctx), time.Now()
	for r := range rounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		type answer struct {
			id  string
			err error
			d   time.Duration
		}
		answers := make([]answer, n)
		start := make(chan struct{})
		var ready, done sync.WaitGroup
		for i := range n {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				rng := rand.New(rand.NewPCG(uint64(r), uint64(i)))
				a := rng.IntN(StampedeSeats)
				z := rng.IntN(StampedeSeats - 1)
				if z >= a {
					z++
				}
				seats := []string{seed.SeatID(r, a), seed.SeatID(r, z)}
				ready.Done()
				<-start
				t0 := time.Now()
				id, err := h.Hold(ctx, b.Clients[i], showID, seats)
				answers[i] = answer{id, err, time.Since(t0)}
			}()
		}
		ready.Wait()
		close(start)
		done.Wait()
		winners := 0
		for i, a := range answers {
			switch {
			case a.err == nil:
				winners++
				res.Held++
				res.Lat = append(res.Lat, a.d)
				if err := h.Release(ctx, b.Clients[i], a.id); err != nil {
					return nil, fmt.Errorf("stampede %s: release: %w", h.Name(), err)
				}
			case errors.Is(a.err, ErrConflict):
				res.Conflicts++
				res.Lat = append(res.Lat, a.d)
			default:
				res.Errs++
				if res.FirstErr == nil {
					res.FirstErr = a.err
				}
			}
		}
		res.MaxWinners = max(res.MaxWinners, winners)
	}
	res.CPU = b.CPUSample(ctx).Since(cpu0, time.Since(began))
	slices.Sort(res.Lat)
	return res, nil
}
