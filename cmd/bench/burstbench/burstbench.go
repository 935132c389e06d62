// Package burstbench is the burst benchmark (cmd/bench -burst): a crowd of
// people, already signed in, arriving evenly within a minute at one
// 1,000-seat show of a real app instance, each loading the show page,
// watching the live seat map, reading the seat map, holding two seats side
// by side and paying for them; and its report: how soon the show sold out,
// what every request answered and how fast, what became of every person,
// whether any seat was sold twice, and the CPU the app and Postgres used.
package burstbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/announce"
	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Config is what the -burst flags decide.
type Config struct {
	People []int         // people of each cell
	Window time.Duration // they arrive evenly within it
	// MaxOther marks a cell during which other work kept more cores busy
	// (0: never). A cell is not run again: it is long, and its setup too.
	MaxOther float64
	// WithDatabase runs cell on a database of its own, migrated, with a
	// pool on it, and drops it after: every cell starts afresh.
	WithDatabase func(cell func(dbURL string, pool *pgxpool.Pool) error) error
	// Hall is the show's layout, named for the report; nil: demo.MegaHall.
	// Its blocks of seats side by side must have even lengths for the
	// show to sell out (see pickPair).
	Hall     []booking.SeatSpec
	HallName string
}

// megaHall names demo.MegaHall in the report.
const megaHall = "demo.MegaHall, 1,000 seats (25 rows of 40 in blocks of 10, 20 and 10)"

// signInParallel is how many sign-ins run at once before a cell.
const signInParallel = 8

// Run runs a cell for each number of people and prints the report to w.
// It fails after the report when a cell sold a seat twice or broke an
// invariant.
func Run(ctx context.Context, cfg Config, w io.Writer, status func(string, ...any)) error {
	if cfg.Hall == nil {
		cfg.Hall, cfg.HallName = demo.MegaHall(), megaHall
	}
	// Each person in their visit holds two sockets here (the page's
	// connection and the websocket) and two in the app, which inherits the
	// limit.
	need := uint64(2*slices.Max(cfg.People) + 1024)
	limit, err := appserver.RaiseFileLimit(need)
	if limit == 0 {
		return err
	}
	if err != nil {
		status("%v: if more than %d people are in their visit at once, the others find no file descriptor for their connections", err, max(int(limit)-1024, 0)/2)
	}
	var cells []*cell
	var serverLine string
	began := time.Now()
	load0 := cpu.Host().LoadAverage()
	for i, n := range cfg.People {
		err := cfg.WithDatabase(func(dbURL string, pool *pgxpool.Pool) error {
			if serverLine == "" {
				serverLine = report.Server(ctx, pool)
			}
			c, err := runCell(ctx, dbURL, pool, cfg.Hall, n, cfg.Window, uint64(i+1), status)
			if err != nil {
				return err
			}
			cells = append(cells, c)
			return nil
		})
		if err != nil {
			return err
		}
	}
	writeReport(w, reportHead{
		Hall: cfg.HallName, Window: cfg.Window, People: cfg.People, MaxOther: cfg.MaxOther, FileLimit: limit,
		Server: serverLine, LoadStart: load0, LoadEnd: cpu.Host().LoadAverage(), Started: began,
	}, cells)
	var errs []error
	for _, c := range cells {
		if len(c.double) > 0 || len(c.violations) > 0 {
			errs = append(errs, fmt.Errorf("%d people: %d seats allocated twice, %d invariant violations", c.people, len(c.double), len(c.violations)))
		}
	}
	return errors.Join(errs...)
}

// cell is one burst's figures.
type cell struct {
	people int
	window time.Duration
	seats  int // of the show
	crowd  *crowd

	// After the burst, by SQL.
	counts     map[string]int // seats by status
	double     []string       // seats claimed twice
	violations []postgres.Violation

	// CPU from the first arrival to the last departure, in cores.
	use cpu.Use // bench (the people) / Postgres / other (less the app)
	app float64
}

// runCell seeds the show and the people on the (migrated) database at
// dbURL, starts the app as a child process, signs everyone in, lets the
// crowd in and checks the seats after.
func runCell(ctx context.Context, dbURL string, pool *pgxpool.Pool, hall []booking.SeatSpec, n int, window time.Duration, cellSeed uint64, status func(string, ...any)) (*cell, error) {
	store := postgres.NewStore(pool)
	v, err := seed.NewVenue(ctx, store)
	if err != nil {
		return nil, err
	}
	show, err := v.NewShow(ctx, store, "Mega", hall)
	if err != nil {
		return nil, err
	}
	status("burst %d: seeding %d people", n, n)
	users, err := seed.Users(ctx, store, "", n)
	if err != nil {
		return nil, err
	}
	status("burst %d: starting the app", n)
	child, err := appserver.StartChild(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := child.Stop(); err != nil {
			status("burst %d: %v", n, err)
		}
	}()
	if err := announce.WaitListening(ctx, pool, 1); err != nil {
		return nil, err
	}
	status("burst %d: signing everyone in", n)
	cookies, err := signIn(ctx, child.Base, users)
	if err != nil {
		return nil, err
	}
	// The setup's writes vacuumed and checkpointed now, not during the burst.
	if _, err := pgtest.Settle(ctx, pool); err != nil {
		return nil, err
	}

	status("burst %d: %d people arriving within %s", n, n, window)
	c := &cell{people: n, window: window, seats: len(hall)}
	c.crowd = newCrowd(child.Base, show, len(hall), child.WebhookSecret, cookies, window, cellSeed)
	s0, app0 := cpu.Host().SampleDatabase(ctx, pool), processCPU(child)
	c.crowd.run(ctx)
	span := c.crowd.span()
	c.use = cpu.Host().SampleDatabase(ctx, pool).Since(s0, span)
	c.app = (processCPU(child) - app0).Seconds() / span.Seconds()
	if c.use.Other >= 0 {
		c.use.Other = max(0, c.use.Other-c.app)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	status("burst %d: the last person left %.1f s after the first arrived; app %.2f cores, pg %.2f, bench %.2f, other %.2f",
		n, span.Seconds(), c.app, c.use.Postgres, c.use.Bench, c.use.Other)

	if c.counts, err = pgtest.SeatCounts(ctx, pool, show); err != nil {
		return nil, err
	}
	if c.double, err = pgtest.DoubleAllocations(ctx, pool, show); err != nil {
		return nil, err
	}
	if c.violations, err = store.InvariantViolations(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// signIn signs each user in through POST /api/v1/login, a few at a time
// over keep-alive connections, and returns their session cookies
// (name=value): bcrypt's cost is paid before the clock starts.
func signIn(ctx context.Context, base string, users []seed.User) ([]string, error) {
	cookies := make([]string, len(users))
	next := make(chan int)
	errs := make([]error, signInParallel)
	var wg sync.WaitGroup
	for w := range signInParallel {
		wg.Go(func() {
			var conn *apiclient.Conn
			defer func() {
				if conn != nil {
					conn.Close()
				}
			}()
			for i := range next {
				if errs[w] != nil {
					continue // drain
				}
				if conn == nil {
					if conn, errs[w] = apiclient.Dial(ctx, base); errs[w] != nil {
						continue
					}
				}
				a, err := conn.Do(http.MethodPost, "/api/v1/login", "", map[string]string{"email": users[i].Email, "password": seed.Password})
				if errors.Is(err, apiclient.ErrClosed) {
					conn.Close()
					conn, err = nil, nil
				}
				if err == nil && a.StatusCode != http.StatusOK {
					err = fmt.Errorf("%d %s", a.StatusCode, a.Body)
				}
				for _, ck := range a.Cookies() {
					if ck.Name == appserver.SessionCookie && ck.Value != "" {
						cookies[i] = ck.Name + "=" + ck.Value
					}
				}
				if err == nil && cookies[i] == "" {
					err = errors.New("no session cookie in the answer")
				}
				if err != nil {
					errs[w] = fmt.Errorf("sign in %s: %w", users[i].Email, err)
				}
			}
		})
	}
	for i := range users {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return cookies, errors.Join(errs...)
}

// processCPU is the user and system time the child has used.
func processCPU(c *appserver.Child) time.Duration {
	t, _ := cpu.Host().PID(c.PID())
	return t
}
