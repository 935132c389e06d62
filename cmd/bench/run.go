package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/stats"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// bench runs the cells and the stampede over every implementation.
type bench struct {
	cfg     config
	pool    *pgxpool.Pool
	store   *postgres.Store
	world   *world
	impls   []impl
	clients []*client
}

// workload decides what client c asks for next. It draws only from rng, so
// a client asks for the same sequence of seats whatever the implementation.
type workload struct {
	key  string // as -live-workloads names it
	name string
	pick func(rng *rand.Rand, c int) (showID int64, seats []string)
}

// pair returns two adjacent seats of row r drawn from rng.
func pair(rng *rand.Rand, row int) []string {
	col := rng.IntN(showCols - 1)
	return []string{seatID(row, col), seatID(row, col+1)}
}

func (b *bench) workloads() []workload {
	shows := b.world.manyShows
	hot := b.world.hotShow
	return []workload{{
		// Each client on its own show (while clients <= shows): contention
		// only for the pool, the WAL and the CPUs.
		key:  "many",
		name: fmt.Sprintf("many shows (%d)", len(shows)),
		pick: func(rng *rand.Rand, c int) (int64, []string) {
			return shows[c%len(shows)], pair(rng, rng.IntN(showRows))
		},
	}, {
		// Everyone on adjacent pairs of the same 2 rows (18 possible pairs).
		key:  "hot",
		name: fmt.Sprintf("hot show (%d rows)", hotRows),
		pick: func(rng *rand.Rand, c int) (int64, []string) {
			return hot, pair(rng, rng.IntN(hotRows))
		},
	}}
}

// cell is the outcome of one implementation on one workload at one
// concurrency.
type cell struct {
	workload  string
	clients   int
	impl      string
	round     int
	held      int // 201
	conflicts int // 409 seats_unavailable
	errs      int // anything else: a bug in the bench or the code under test
	relErrs   int // failed releases
	firstErr  error
	elapsed   time.Duration
	cpu       cpuUse
	tries     int             // runs of this cell, the last one reported
	lat       []time.Duration // of held and conflicting attempts, sorted
}

func (c *cell) attempts() int { return c.held + c.conflicts }

func (c *cell) perSecond(n int) float64 {
	if c.elapsed <= 0 {
		return 0
	}
	return float64(n) / c.elapsed.Seconds()
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
	case errors.Is(err, errConflict):
		t.conflicts++
		t.lat = append(t.lat, d)
	default:
		t.errs++
		if t.firstErr == nil {
			t.firstErr = err
		}
	}
}

// runCell drives n clients through im on w for d: each client asks, and
// after a win releases its hold (untimed) so the seats recirculate.
func (b *bench) runCell(ctx context.Context, im impl, w workload, n int, d time.Duration, seed uint64) *cell {
	tallies := make([]tally, n)
	start := make(chan struct{})
	var deadline time.Time
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, t := b.clients[i], &tallies[i]
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			<-start
			for ctx.Err() == nil && time.Now().Before(deadline) {
				showID, seats := w.pick(rng, i)
				t0 := time.Now()
				id, err := im.hold(ctx, c, showID, seats)
				t.record(err, time.Since(t0))
				if err == nil {
					if err := im.release(ctx, c, id); err != nil {
						t.relErrs++
						if t.firstErr == nil {
							t.firstErr = fmt.Errorf("release: %w", err)
						}
					}
				}
			}
		}()
	}
	cpu0 := takeCPUSample(ctx, b.pool)
	began := time.Now()
	deadline = began.Add(d)
	close(start)
	wg.Wait()
	res := &cell{workload: w.name, clients: n, impl: im.name(), elapsed: time.Since(began)}
	res.cpu = takeCPUSample(ctx, b.pool).since(cpu0, res.elapsed)
	for _, t := range tallies {
		res.held += t.held
		res.conflicts += t.conflicts
		res.errs += t.errs
		res.relErrs += t.relErrs
		if res.firstErr == nil {
			res.firstErr = t.firstErr
		}
		res.lat = append(res.lat, t.lat...)
	}
	slices.Sort(res.lat)
	return res
}

// settle puts the database in the same state before every cell: no hold
// left HELD (a failed release would leave one), dead rows vacuumed,
// statistics fresh and a checkpoint just taken, so no cell inherits another's
// bloat or pays for its checkpoint.
func (b *bench) settle(ctx context.Context) error {
	tag, err := b.pool.Exec(ctx, `
		WITH ended AS (
			UPDATE holds SET state = 'CANCELLED', ended_at = clock_timestamp()
			 WHERE state = 'HELD' RETURNING id
		)
		UPDATE show_seats SET status = 'AVAILABLE', hold_id = NULL, hold_expires_at = NULL
		 WHERE hold_id IN (SELECT id FROM ended) AND status = 'HELD'`)
	if err != nil {
		return fmt.Errorf("settle: release leftovers: %w", err)
	}
	if tag.RowsAffected() > 0 {
		status("settle: released %d seats a client left held", tag.RowsAffected())
	}
	if _, err := b.pool.Exec(ctx, `VACUUM (ANALYZE) show_seats, holds, hold_keys, sessions`); err != nil {
		return fmt.Errorf("settle: vacuum: %w", err)
	}
	// Needs superuser or pg_checkpoint; without it cells just see checkpoints
	// when the server takes them.
	_, _ = b.pool.Exec(ctx, `CHECKPOINT`)
	return nil
}

// runAll warms every implementation up, runs every cell and the stampede,
// and returns the report.
func (b *bench) runAll(ctx context.Context) (string, error) {
	for i, u := range b.world.users {
		b.clients = append(b.clients, &client{user: u, n: i})
	}
	wls := b.workloads()
	warm := slices.Max(b.cfg.clients)
	for _, im := range b.impls {
		status("warming up %s (%d clients, %s)", im.name(), warm, b.cfg.warmup)
		b.runCell(ctx, im, wls[0], warm, b.cfg.warmup, 0)
	}
	var cells []*cell
	for round := range b.cfg.rounds {
		// Whoever runs first meets the machine in a different state (caches,
		// WAL, the other tenants): every other round runs the other way round.
		impls := slices.Clone(b.impls)
		if round%2 == 1 {
			slices.Reverse(impls)
		}
		for wi, w := range wls {
			for _, n := range b.cfg.clients {
				for _, im := range impls {
					var c *cell
					tries, err := b.untilUndisturbed("cell", func(int) (cpuUse, error) {
						if err := b.settle(ctx); err != nil {
							return cpuUse{}, err
						}
						if err := ctx.Err(); err != nil {
							return cpuUse{}, err
						}
						c = b.runCell(ctx, im, w, n, b.cfg.duration, uint64(wi)<<32|uint64(n))
						status("round %d  %-18s %3d clients %-6s %8.0f attempts/s %8.0f holds/s  p50 %s  p99 %s  errors %d  cpu %s",
							round+1, w.name, n, im.name(), c.perSecond(c.attempts()), c.perSecond(c.held),
							stats.Ms(stats.Percentile(c.lat, 50)), stats.Ms(stats.Percentile(c.lat, 99)), c.errs+c.relErrs, c.cpu)
						return c.cpu, nil
					})
					if err != nil {
						return "", err
					}
					c.tries, c.round = tries, round
					if c.firstErr != nil {
						status("  first error: %v", c.firstErr)
					}
					cells = append(cells, c)
				}
			}
		}
	}
	var stampedes []*stampede
	for _, im := range b.impls {
		var s *stampede
		tries, err := b.untilUndisturbed("stampede", func(try int) (cpuUse, error) {
			if err := b.settle(ctx); err != nil {
				return cpuUse{}, err
			}
			var err error
			if s, err = b.runStampede(ctx, im, try); err != nil {
				return cpuUse{}, err
			}
			status("stampede %-6s p50 %s  p99 %s  max %s  won %d of %d  errors %d  cpu %s",
				im.name(), stats.Ms(stats.Percentile(s.lat, 50)), stats.Ms(stats.Percentile(s.lat, 99)), stats.Ms(stats.Percentile(s.lat, 100)),
				s.held, s.requests(), s.errs, s.cpu)
			return s.cpu, nil
		})
		if err != nil {
			return "", err
		}
		s.tries = tries
		if s.firstErr != nil {
			status("  first error: %v", s.firstErr)
		}
		stampedes = append(stampedes, s)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var sb strings.Builder
	writeReport(&sb, b, cells, stampedes)
	return sb.String(), nil
}

// untilUndisturbed runs measure (try 0, 1, ...) until other work on the
// machine did not disturb it or -reruns re-runs were made, and returns how
// many runs it made. measure returns the CPU use it saw; a measurement it
// skipped returns none, which never asks for a re-run.
func (b *bench) untilUndisturbed(what string, measure func(try int) (cpuUse, error)) (int, error) {
	for try := 0; ; try++ {
		u, err := measure(try)
		if err != nil {
			return try + 1, err
		}
		if !b.disturbed(u) || try == b.cfg.reruns {
			return try + 1, nil
		}
		status("  disturbed: other work used %.2f cores; running the %s again", u.other, what)
	}
}

// disturbed reports whether other work on the machine took more CPU during
// a measurement than -max-other allows.
func (b *bench) disturbed(u cpuUse) bool {
	return b.cfg.maxOther > 0 && u.other > b.cfg.maxOther
}

// stampede is one implementation's stampede: every round, all clients are
// released together on the same few fresh seats.
type stampede struct {
	impl            string
	clients, rounds int
	held, conflicts int
	errs            int
	firstErr        error
	maxWinners      int
	cpu             cpuUse
	tries           int
	lat             []time.Duration // sorted
}

func (s *stampede) requests() int { return s.held + s.conflicts + s.errs }

// runStampede runs the stampede rounds on a fresh show for im. Each client
// asks for a pair among the round's 6 seats (so up to 3 can win); the
// winners release their holds, untimed, before the next round.
func (b *bench) runStampede(ctx context.Context, im impl, try int) (*stampede, error) {
	n, rounds := b.cfg.stampedeClients, b.cfg.stampedeRounds
	showID, err := b.world.venue.newShow(ctx, b.store, fmt.Sprintf("Stampede %s %d", im.name(), try), grid(rounds, stampedeSeats))
	if err != nil {
		return nil, err
	}
	res := &stampede{impl: im.name(), clients: n, rounds: rounds}
	cpu0, began := takeCPUSample(ctx, b.pool), time.Now()
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
				a := rng.IntN(stampedeSeats)
				z := rng.IntN(stampedeSeats - 1)
				if z >= a {
					z++
				}
				seats := []string{seatID(r, a), seatID(r, z)}
				ready.Done()
				<-start
				t0 := time.Now()
				id, err := im.hold(ctx, b.clients[i], showID, seats)
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
				res.held++
				res.lat = append(res.lat, a.d)
				if err := im.release(ctx, b.clients[i], a.id); err != nil {
					return nil, fmt.Errorf("stampede %s: release: %w", im.name(), err)
				}
			case errors.Is(a.err, errConflict):
				res.conflicts++
				res.lat = append(res.lat, a.d)
			default:
				res.errs++
				if res.firstErr == nil {
					res.firstErr = a.err
				}
			}
		}
		res.maxWinners = max(res.maxWinners, winners)
	}
	res.cpu = takeCPUSample(ctx, b.pool).since(cpu0, time.Since(began))
	slices.Sort(res.lat)
	return res, nil
}
