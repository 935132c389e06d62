// Package burstbench is the burst benchmark (cmd/bench -burst): a crowd of
// people, already signed in, arriving evenly within a minute at one
// 1,000-seat show of a real app instance, each (after the show's waiting
// room, when it is on) loading the show page, watching the live seat map,
// thinking a moment, holding two seats (picked by hand or best available)
// and paying for them; and its report: how soon the show sold out, what
// every request answered and how fast, what became of every person,
// whether any seat was sold twice, how fairly and how fast the waiting
// room admitted people, and the CPU the app and Postgres used.
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
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Config is what the -burst flags decide.
type Config struct {
	People []int         // people of each cell
	Window time.Duration // they arrive evenly within it
	// Rooms are the cells' waiting rooms: off (false), on (true) or both;
	// none: off.
	Rooms []bool
	// Picks are how the cells' people choose their seats; none: by hand.
	Picks []Pick
	// Room is the waiting room's settings where it is on.
	Room RoomSettings
	// Think is how long a person looks at the show page before holding:
	// a random time from Think[0] to Think[1].
	Think [2]time.Duration
	// MaxOther marks a cell during which other work kept more cores busy
	// (0: never). A cell is not run again: it is long, and its setup too.
	MaxOther float64
	// WithDatabase runs cell on a database of its own, migrated, with a
	// pool on it, and drops it after: every cell starts afresh.
	WithDatabase func(cell func(dbURL string, pool *pgxpool.Pool) error) error
	// Hall is the show's layout, named for the report; nil: demo.MegaHall.
	// Its blocks of seats side by side must have even lengths for the
	// show to sell out (see pickPair).
	Hall     []catalog.SeatSpec
	HallName string
}

// Pick is how a person chooses two seats.
type Pick int

const (
	// ByHand: two seats side by side picked at random from the seat map.
	ByHand Pick = iota
	// BestAvailable: the server picks the best two free seats
	// ({"best_available":{"count":2}}).
	BestAvailable
)

func (p Pick) String() string {
	if p == BestAvailable {
		return "best available"
	}
	return "by hand"
}

// cellSpec is what sets one cell apart.
type cellSpec struct {
	people int
	room   bool
	pick   Pick
}

func (s cellSpec) String() string {
	room := "room off"
	if s.room {
		room = "room on"
	}
	return fmt.Sprintf("%d people, %s, %s", s.people, room, s.pick)
}

// cells are the cells of cfg in the order they run: for each number of
// people, the room off then on, each with the picks in the order given.
func (cfg Config) cells() []cellSpec {
	rooms, picks := cfg.Rooms, cfg.Picks
	if len(rooms) == 0 {
		rooms = []bool{false}
	}
	if len(picks) == 0 {
		picks = []Pick{ByHand}
	}
	var out []cellSpec
	for _, n := range cfg.People {
		for _, room := range rooms {
			for _, pick := range picks {
				out = append(out, cellSpec{people: n, room: room, pick: pick})
			}
		}
	}
	return out
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
	for i, spec := range cfg.cells() {
		err := cfg.WithDatabase(func(dbURL string, pool *pgxpool.Pool) error {
			if serverLine == "" {
				serverLine = report.Server(ctx, pool)
			}
			c, err := runCell(ctx, dbURL, pool, cfg, spec, uint64(i+1), status)
			if err != nil {
				return fmt.Errorf("%s: %w", spec, err)
			}
			cells = append(cells, c)
			return nil
		})
		if err != nil {
			return err
		}
	}
	writeReport(w, reportHead{
		Hall: cfg.HallName, Window: cfg.Window, People: cfg.People, Think: cfg.Think, Room: cfg.Room,
		MaxOther: cfg.MaxOther, FileLimit: limit,
		Server: serverLine, LoadStart: load0, LoadEnd: cpu.Host().LoadAverage(), Started: began,
	}, cells)
	var errs []error
	for _, c := range cells {
		if len(c.double) > 0 || len(c.violations) > 0 {
			errs = append(errs, fmt.Errorf("%s: %d seats allocated twice, %d invariant violations", c.spec, len(c.double), len(c.violations)))
		}
	}
	return errors.Join(errs...)
}

// cell is one burst's figures.
type cell struct {
	spec   cellSpec
	window time.Duration
	think  [2]time.Duration
	seats  int // of the show
	crowd  *crowd

	// With the waiting room on: its settings as stored and the admin's
	// view every second; the opening's time after the first arrival (0:
	// none); the order of admission against the order of arrival, by SQL.
	room       *roomView
	opensAfter time.Duration
	fair       fairness

	// After the burst, by SQL.
	counts     map[string]int // seats by status
	double     []string       // seats claimed twice
	violations []booking.Violation

	// CPU from the first arrival to the last departure, in cores.
	use cpu.Use // bench (the people) / Postgres / other (less the app)
	app float64
}

// runCell seeds the show and the people on the (migrated) database at
// dbURL, starts the app as a child process, signs everyone in, turns the
// waiting room on when the cell has it, lets the crowd in and checks the
// seats (and the queue's order) after.
func runCell(ctx context.Context, dbURL string, pool *pgxpool.Pool, cfg Config, spec cellSpec, cellSeed uint64, status func(string, ...any)) (*cell, error) {
	n := spec.people
	say := func(format string, args ...any) { status("burst %s: "+format, append([]any{spec}, args...)...) }
	store := postgres.NewStore(pool)
	v, err := seed.NewVenue(ctx, store)
	if err != nil {
		return nil, err
	}
	show, err := v.NewShow(ctx, store, "Mega", cfg.Hall)
	if err != nil {
		return nil, err
	}
	say("seeding %d people", n)
	users, err := seed.Users(ctx, store, "", n)
	if err != nil {
		return nil, err
	}
	if spec.room {
		admin, err := seed.Admin(ctx, store)
		if err != nil {
			return nil, err
		}
		users = append(users, admin) // signed in with the others, last
	}
	say("starting the app")
	child, err := appserver.StartChild(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := child.Stop(); err != nil {
			say("%v", err)
		}
	}()
	if err := announce.WaitListening(ctx, pool, 1); err != nil {
		return nil, err
	}
	say("signing everyone in")
	cookies, err := signIn(ctx, child.Base, users)
	if err != nil {
		return nil, err
	}
	// The setup's writes vacuumed and checkpointed now, not during the burst.
	if _, err := pgtest.Settle(ctx, pool); err != nil {
		return nil, err
	}

	c := &cell{spec: spec, window: cfg.Window, think: cfg.Think, seats: len(cfg.Hall)}
	c.crowd = newCrowd(child.Base, show, len(cfg.Hall), child.WebhookSecret, cookies[:n], cfg.Window, cellSeed)
	c.crowd.pick, c.crowd.room, c.crowd.think = spec.pick, spec.room, cfg.Think
	stopWatch := func() {}
	if spec.room {
		if stopWatch, err = c.openRoom(ctx, cfg.Room, cookies[n], say); err != nil {
			return nil, err
		}
	}
	say("%d people arriving within %s", n, cfg.Window)
	// The CPU from the first arrival: with the room, a moment from now.
	if !sleep(ctx, time.Until(c.crowd.start)) {
		stopWatch()
		return nil, ctx.Err()
	}
	s0, app0 := cpu.Host().SampleDatabase(ctx, pool), processCPU(child)
	c.crowd.run(ctx)
	span := c.crowd.span()
	c.use = cpu.Host().SampleDatabase(ctx, pool).Since(s0, span)
	c.app = (processCPU(child) - app0).Seconds() / span.Seconds()
	if c.use.Other >= 0 {
		c.use.Other = max(0, c.use.Other-c.app)
	}
	stopWatch()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	say("the last person left %.1f s after the first arrived; app %.2f cores, pg %.2f, bench %.2f, other %.2f",
		span.Seconds(), c.app, c.use.Postgres, c.use.Bench, c.use.Other)

	if c.counts, err = pgtest.SeatCounts(ctx, pool, show); err != nil {
		return nil, err
	}
	if c.double, err = pgtest.DoubleAllocations(ctx, pool, show); err != nil {
		return nil, err
	}
	if c.violations, err = store.InvariantViolations(ctx); err != nil {
		return nil, err
	}
	if spec.room {
		joined, numbers, err := queueOrder(ctx, pool, show)
		if err != nil {
			return nil, err
		}
		var opensAt time.Time
		if c.room.settings.OpensAt != nil {
			opensAt = *c.room.settings.OpensAt
		}
		c.fair = fairnessOf(joined, numbers, opensAt)
	}
	return c, nil
}

// openRoom turns the show's waiting room on as the admin signed in with
// adminCookie, its opening (if any) set s.OpensAfter after the crowd's
// first arrival, which it sets a moment ahead; and starts reading the
// admin's view of the room every second, until stop is called.
func (c *cell) openRoom(ctx context.Context, s RoomSettings, adminCookie string, say func(string, ...any)) (stop func(), err error) {
	cr := c.crowd
	conn, err := apiclient.Dial(ctx, cr.base)
	if err != nil {
		return nil, fmt.Errorf("the admin's connection: %w", err)
	}
	conn.Deadline = requestDeadline
	conn.SetCookie(adminCookie)
	// The crowd's first arrival a moment from now: the room is on by then.
	cr.start = time.Now().Add(roomLead)
	want := roomSettings{Enabled: true, AdmitPerMinute: s.AdmitPerMinute, MaxActive: s.MaxActive}
	if s.OpensAfter > 0 {
		at := cr.start.Add(s.OpensAfter).UTC().Round(time.Millisecond)
		want.OpensAt = &at
	}
	stored, err := openRoom(conn, cr.show, want)
	if err != nil {
		conn.Close()
		return nil, err
	}
	c.room = &roomView{settings: stored}
	if stored.OpensAt != nil {
		c.opensAfter = stored.OpensAt.Sub(cr.start)
	}
	say("the waiting room is on: %d a minute, at most %d active, opening %s after the first arrival",
		stored.AdmitPerMinute, stored.MaxActive, c.opensAfter.Round(time.Millisecond))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { c.room.watch(ctx, conn, cr.show, cr.start, done) })
	return func() {
		close(done)
		wg.Wait()
		conn.Close()
	}, nil
}

// roomLead is how long before the crowd's first arrival the waiting room
// is turned on.
const roomLead = 500 * time.Millisecond

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
				if cookies[i], errs[w] = signInOne(ctx, base, &conn, users[i]); errs[w] != nil {
					errs[w] = fmt.Errorf("sign in %s: %w", users[i].Email, errs[w])
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

// signInRetries bounds the tries again of a sign-in answered 503 busy: on
// a machine other work keeps busy, the app sheds some of them.
const signInRetries = 10

// signInOne signs u in over *conn (dialled when nil; closed and set to nil
// when the server closes it) and returns the session cookie, trying again
// after a 503's Retry-After.
func signInOne(ctx context.Context, base string, conn **apiclient.Conn, u seed.User) (string, error) {
	for try := 0; ; try++ {
		if *conn == nil {
			c, err := apiclient.Dial(ctx, base)
			if err != nil {
				return "", err
			}
			*conn = c
		}
		a, err := (*conn).Do(http.MethodPost, "/api/v1/login", "", map[string]string{"email": u.Email, "password": seed.Password})
		if errors.Is(err, apiclient.ErrClosed) { // the answer is whole
			(*conn).Close()
			*conn, err = nil, nil
		}
		if err != nil {
			return "", err
		}
		if a.StatusCode == http.StatusServiceUnavailable && try < signInRetries {
			if !sleep(ctx, retryAfter(a, time.Second)) {
				return "", ctx.Err()
			}
			continue
		}
		if a.StatusCode != http.StatusOK {
			return "", fmt.Errorf("%d %s", a.StatusCode, a.Body)
		}
		for _, ck := range a.Cookies() {
			if ck.Name == appserver.SessionCookie && ck.Value != "" {
				return ck.Name + "=" + ck.Value, nil
			}
		}
		return "", errors.New("no session cookie in the answer")
	}
}

// processCPU is the user and system time the child has used.
func processCPU(c *appserver.Child) time.Duration {
	t, _ := cpu.Host().PID(c.PID())
	return t
}
