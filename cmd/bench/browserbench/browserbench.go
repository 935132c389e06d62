// Package browserbench is the browser benchmark (cmd/bench -browser): the
// show page of big halls in headless Chromium with the CPU slowed down, its
// main thread's long tasks from navigation to idle, and click-to-paint
// while other people's seat changes stream in.
//
// The page is served by an app instance in a child process with the live
// seat map on (appserver.StartChild). For each hall, CPU speed and viewer
// (signed in, guest) the benchmark loads the page several times and
// measures the long tasks until the page is idle; then, on the signed-in
// viewer's last page, it clicks seats with real mouse events while a
// stream of holds and releases by other users (package stream, through
// the store, so real commits flow through seat_events, the notifier and
// the websocket) changes the hall's other seats. tab.go is the page's
// side; cmd/bench/pageperf sums the figures up and writes the report.
package browserbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/announce"
	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/pageperf"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/cmd/bench/stream"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/chromium"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Config is what the -browser flags decide.
type Config struct {
	Throttles []float64       // CPU slowdowns, the first is the target's
	Halls     map[string]bool // keys of the halls: large, mega
	Viewers   map[string]bool // "viewer" (signed in) and/or "guest"
	Loads     int             // page loads per cell
	IdleCap   time.Duration   // how long a load may take to become idle
	Clicks    int             // clicks per click run
	Rate      float64         // seat changes per second during the clicks
	Chromium  string
	// TraceDir, when set, gets a Chromium trace of each click run and the
	// report a table of where the clicks' time went (see trace.go).
	TraceDir string
}

// The targets, at targetSlowdown (a mid-range phone's CPU).
var browserTargets = pageperf.Targets{LongTasks: 200 * time.Millisecond, ClickP99: 100 * time.Millisecond}

const targetSlowdown = 4

const (
	// clickTimeout is how long one click may wait for its frame; a run
	// stops after clickGiveUp clicks in a row that waited it out.
	clickTimeout = 5 * time.Second
	clickGiveUp  = 3
	// The gap between a click's frame and the next click: random, so the
	// clicks do not lock to the stream's or the notifier's phase.
	clickGapMin, clickGapMax = 100 * time.Millisecond, 400 * time.Millisecond
	// clickSettle is how long the stream runs before the first click.
	clickSettle = 2 * time.Second
	// clickBudget bounds a click run: 100 clicks on a page that keeps up
	// take about 35 s; a page that paints each click after seconds would
	// otherwise take many minutes.
	clickBudget = 90 * time.Second
)

// benchHall is one hall the page is measured on.
type benchHall struct {
	key, name  string
	seats      []catalog.SeatSpec
	rows, cols int // every row has cols seats numbered 1..cols
	show       int64
}

func benchHalls() []*benchHall {
	return []*benchHall{
		{key: "large", name: "Large hall (demo.LargeHall)", seats: demo.LargeHall()},
		{key: "mega", name: "Mega hall (demo.MegaHall)", seats: demo.MegaHall()},
	}
}

// shape checks that h's seats are rows of equal length labelled as grid
// labels them (A1.., B1..), which the stream relies on, and sets rows and
// cols.
func (h *benchHall) shape() error {
	perRow := map[string]int{}
	for _, s := range h.seats {
		perRow[s.Row]++
	}
	h.rows = len(perRow)
	h.cols = len(h.seats) / max(h.rows, 1)
	for _, s := range h.seats {
		if perRow[s.Row] != h.cols || s.ID != seed.SeatID(int(s.Row[0]-'A'), s.Number-1) || len(s.Row) != 1 {
			return fmt.Errorf("%s: seat %s does not fit a grid of %d rows of %d", h.name, s.ID, h.rows, h.cols)
		}
	}
	return nil
}

// clickSeats are the element ids of the seats clicked: five in the middle
// of the last row, which the stream leaves alone.
func (h *benchHall) clickSeats() []string {
	var ids []string
	for c := h.cols/2 - 2; c <= h.cols/2+2; c++ {
		ids = append(ids, "seat-"+seed.SeatID(h.rows-1, c))
	}
	return ids
}

// browserBench is one run of the browser benchmark.
type browserBench struct {
	bc      Config
	pool    *pgxpool.Pool
	store   *postgres.Store
	status  func(string, ...any)
	srv     *appserver.Child
	cookie  string      // the signed-in viewer's session cookie, name=value
	slots   []seed.User // the stream's users
	browser context.Context
	cells   []pageperf.Cell
}

// Check fails when the benchmark cannot run as bc asks: no Chromium, or a
// hall that does not fit the stream's grid. Run checks too; calling it
// first spares creating a database for nothing.
func Check(bc Config) error {
	_, err := halls(bc)
	return err
}

func halls(bc Config) ([]*benchHall, error) {
	if _, err := os.Stat(bc.Chromium); err != nil {
		return nil, fmt.Errorf("the browser benchmark needs Chromium at %s (scripts/chromium.sh installs it; CHROMIUM names another): %w", bc.Chromium, err)
	}
	var out []*benchHall
	for _, h := range benchHalls() {
		if bc.Halls[h.key] {
			if err := h.shape(); err != nil {
				return nil, err
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// Run seeds the database at dbURL (migrated; pool is on it) with the
// halls' shows, starts the app server and Chromium, measures every cell
// and prints the report to w.
func Run(ctx context.Context, bc Config, dbURL string, pool *pgxpool.Pool, w io.Writer, status func(string, ...any)) (err error) {
	halls, err := halls(bc)
	if err != nil {
		return err
	}
	store := postgres.NewStore(pool)
	bb := &browserBench{bc: bc, pool: pool, store: store, status: status}

	venue, err := seed.NewVenue(ctx, store)
	if err != nil {
		return err
	}
	most := 0
	for _, h := range halls {
		if h.show, err = venue.NewShow(ctx, store, h.name, h.seats); err != nil {
			return fmt.Errorf("seed %s: %w", h.name, err)
		}
		most = max(most, (h.rows-1)*h.cols/2)
	}
	bb.status("seeding %d users for the stream of seat changes", most+1)
	viewer, err := seed.Users(ctx, store, "viewer", 1)
	if err != nil {
		return err
	}
	if bb.slots, err = seed.Users(ctx, store, "slot", most); err != nil {
		return err
	}

	bb.status("starting the app server (live seat map on)")
	if bb.srv, err = appserver.StartChild(ctx, dbURL); err != nil {
		return err
	}
	defer func() {
		if err := bb.srv.Stop(); err != nil {
			bb.status("%v", err)
		}
	}()
	if err := announce.WaitListening(ctx, pool, 1); err != nil {
		return err
	}
	c, err := apiclient.Login(ctx, bb.srv.Base, appserver.SessionCookie, viewer[0].Email, seed.Password)
	if err != nil {
		return err
	}
	bb.cookie = c.Cookie()
	c.Close()

	bb.status("starting %s", bc.Chromium)
	// The window is the emulated phone's size. Headless Chromium's window
	// is 800 x 600 otherwise, shorter than the 844 px viewport: the
	// display then dropped most frames of the 1,000-seat hall and Event
	// Timing, which ends when a frame is presented, read a click p99 of
	// 1.4 s, against 72 ms with the window fitted (docs/benchmarks.md,
	// run H).
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromium.Options(bc.Chromium), chromedp.WindowSize(viewportWidth, viewportHeight))...)
	defer cancelAlloc() // waits for the browser to exit and removes its profile
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil {
		return fmt.Errorf("start %s: %w", bc.Chromium, err)
	}
	bb.browser = browserCtx
	version, _ := chromedp.Run(browserCtx, chromedp.Evaluate[string](`navigator.userAgent`))

	h := bb.header(ctx, version)
	began := time.Now()
	for _, rate := range bc.Throttles {
		for _, hall := range halls {
			for _, kind := range []string{"viewer", "guest"} {
				if !bc.Viewers[kind] {
					continue
				}
				cell, err := bb.runCell(ctx, hall, rate, kind)
				if err != nil {
					return err
				}
				bb.cells = append(bb.cells, cell)
			}
		}
	}
	fmt.Fprint(w, h)
	fmt.Fprintf(w, "- load average at end: %s; measured in %s\n", cpu.Host().LoadAverage(), time.Since(began).Round(time.Second))
	pageperf.WriteReport(w, bb.cells, pageperf.Method{
		Targets: browserTargets, Throttle: targetSlowdown, Quiet: idleQuiet, Rate: bc.Rate,
		ClickTimeout: clickTimeout, GiveUp: clickGiveUp, ClickBudget: clickBudget,
	})
	return report.Invariants(ctx, store, w)
}

func (bb *browserBench) header(ctx context.Context, userAgent string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Marquee browser benchmark: the show page of big halls\n\n")
	sb.WriteString(report.Machine())
	sb.WriteString(report.Server(ctx, bb.pool))
	fmt.Fprintf(&sb, "- browser: %s (%s), headless, a %dx%d phone viewport, every load in a fresh browser context\n",
		bb.bc.Chromium, userAgent, viewportWidth, viewportHeight)
	fmt.Fprintf(&sb, "- CPU slowdowns %v; loads per cell: %d, each given %s to become idle; %d clicks at %.0f seat changes/s\n",
		bb.bc.Throttles, bb.bc.Loads, bb.bc.IdleCap, bb.bc.Clicks, bb.bc.Rate)
	fmt.Fprintf(&sb, "- load average at start: %s\n", cpu.Host().LoadAverage())
	fmt.Fprintf(&sb, "- started %s\n", time.Now().UTC().Format(time.RFC3339))
	return sb.String()
}

// cpuMark is a reading of the CPU time used on the machine and by this
// run's processes.
type cpuMark struct {
	s                cpu.Sample // the host, this process, the database's backends
	server, chromium time.Duration
	at               time.Time
}

func (bb *browserBench) mark(ctx context.Context) cpuMark {
	m := cpuMark{s: cpu.Host().SampleDatabase(ctx, bb.pool), server: childCPU(bb.srv), at: time.Now()}
	if p := chromedp.FromContext(bb.browser).Browser.Process(); p != nil {
		m.chromium = cpu.Host().Tree(p.Pid)
	}
	return m
}

// otherSince is how many cores work other than this run's kept busy since
// m0, or -1 when the machine does not say.
func (bb *browserBench) otherSince(ctx context.Context, m0 cpuMark) float64 {
	m := bb.mark(ctx)
	d := m.at.Sub(m0.at)
	u := m.s.Since(m0.s, d)
	if u.Other < 0 || d <= 0 {
		return -1
	}
	return max(0, u.Other-(m.server-m0.server).Seconds()/d.Seconds()-(m.chromium-m0.chromium).Seconds()/d.Seconds())
}

// runCell loads hall's page bc.loads times at CPU slowdown rate as kind
// ("viewer": signed in, "guest"), then, for the viewer, runs the clicks on
// the last page. A load that does not become idle within the cap ends the
// loads: another would wait out the cap again.
func (bb *browserBench) runCell(ctx context.Context, h *benchHall, rate float64, kind string) (pageperf.Cell, error) {
	cell := pageperf.Cell{Hall: h.name, Seats: len(h.seats), Throttle: rate, Viewer: "signed in"}
	cookie := bb.cookie
	if kind == "guest" {
		cell.Viewer, cookie = "guest", ""
	}
	url := fmt.Sprintf("%s/shows/%d", bb.srv.Base, h.show)
	var last *pageperf.Load
	var t *tab
	for i := range bb.bc.Loads {
		if t != nil {
			t.close()
		}
		var err error
		if t, err = openTab(bb.browser, bb.srv.Base, cookie, rate); err != nil {
			return cell, err
		}
		if bb.bc.TraceDir != "" {
			if err := t.startTrace(); err != nil {
				t.close()
				return cell, err
			}
		}
		m0 := bb.mark(ctx)
		l, err := t.load(url, bb.bc.IdleCap)
		if err != nil {
			t.close()
			return cell, err
		}
		if bb.bc.TraceDir != "" {
			path := filepath.Join(bb.bc.TraceDir, fmt.Sprintf("load-%s-%gx-%s-%d.json", h.key, rate, kind, i+1))
			events, err := t.stopTrace(path)
			if err != nil {
				t.close()
				return cell, err
			}
			bb.status("  trace of the load: %s (%d events)", path, len(events))
		}
		l.Other = bb.otherSince(ctx, m0)
		cell.Loads = append(cell.Loads, l)
		last = &cell.Loads[len(cell.Loads)-1]
		if l.Reached && kind == "viewer" {
			// The page must be the signed-in viewer's, or the row measures
			// a guest under the viewer's name.
			if err := t.signedIn(); err != nil {
				t.close()
				return cell, err
			}
		}
		if l.Reached {
			bb.status("%s, %gx CPU, %s, load %d: long tasks %s ms in %d (longest %s ms), idle at %.1f s; other work %.2f cores",
				h.name, rate, cell.Viewer, i+1, msOf(l.Total()), l.Count(), msOf(l.Longest()), l.Idle.Seconds(), l.Other)
		} else {
			bb.status("%s, %gx CPU, %s, load %d: did not reach idle in %s (long tasks at least %s ms, blocked %.1f s at the end); other work %.2f cores",
				h.name, rate, cell.Viewer, i+1, l.Cap, msOf(l.Total()), l.Blocked.Seconds(), l.Other)
			break
		}
		if ctx.Err() != nil {
			t.close()
			return cell, ctx.Err()
		}
	}
	defer t.close()
	if kind != "viewer" || bb.bc.Clicks == 0 {
		return cell, nil
	}
	run := &pageperf.ClickRun{Timeout: clickTimeout}
	if !last.Reached {
		run.Skipped = fmt.Sprintf("the page did not reach idle in %s", last.Cap)
	} else if err := bb.clickRun(ctx, h, t, run); err != nil {
		return cell, err
	}
	cell.Clicks = run
	return cell, nil
}

// childCPU is the user and system time the app server has used.
func childCPU(s *appserver.Child) time.Duration {
	t, _ := cpu.Host().PID(s.PID())
	return t
}

func msOf(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }

// clickRun clicks seats of the last row on t's page while a stream of
// changes runs on the rest of the hall.
func (bb *browserBench) clickRun(ctx context.Context, h *benchHall, t *tab, run *pageperf.ClickRun) error {
	if _, err := pgtest.Settle(ctx, bb.pool); err != nil {
		return err
	}
	if err := t.zoomIn(); err != nil {
		return err
	}
	points, err := t.seatPoints(h.clickSeats())
	if err != nil {
		return err
	}
	if run.EventTiming, err = t.eventTiming(); err != nil {
		return fmt.Errorf("ask for the Event Timing API: %w", err)
	}
	// The stream runs until the clicks are done (it is stopped then).
	d := clickSettle + clickBudget + 2*(clickTimeout+clickGapMax)
	st, err := stream.New(bb.store, h.show, h.rows-1, h.cols, bb.slots, bb.bc.Rate, d)
	if err != nil {
		return err
	}
	sctx, stopStream := context.WithCancel(ctx)
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		st.Run(sctx, d)
	}()
	stop := func() error {
		stopStream()
		<-streamed
		// Changes cut off by the stop may have committed unseen; the next
		// settle releases what releaseAll cannot know of.
		return st.ReleaseAll(context.WithoutCancel(ctx))
	}
	select {
	case <-time.After(clickSettle):
	case <-ctx.Done():
		return errors.Join(ctx.Err(), stop())
	}

	if bb.bc.TraceDir != "" {
		if err := t.startTrace(); err != nil {
			return errors.Join(err, stop())
		}
	}
	sockets0, messages0 := t.net.counts()
	m0 := bb.mark(ctx)
	began := time.Now()
	rng := rand.New(rand.NewPCG(uint64(h.show), uint64(len(bb.cells))))
	late := 0
	var stamps []float64 // each click's event timeStamp (-1: the page never saw it)
	for i := range bb.bc.Clicks {
		if ctx.Err() != nil {
			break
		}
		p := points[(i/2)%len(points)] // each seat picked, then unpicked
		if err := t.dispatchClick(p, clickTimeout); err != nil {
			return errors.Join(err, stop())
		}
		rec, err := t.waitClick(i, clickTimeout)
		if err != nil {
			return errors.Join(err, stop())
		}
		c := pageperf.Click{Latency: clickTimeout}
		stamp := -1.0
		if rec != nil {
			stamp = rec.T
		}
		stamps = append(stamps, stamp)
		if rec != nil && rec.Painted != nil {
			c.Painted = true
			c.Latency = msDuration(*rec.Painted - rec.T)
			c.Flipped = rec.Before != nil && rec.After != nil && *rec.Before != *rec.After &&
				rec.Shown != nil && *rec.Shown == *rec.After
			late = 0
		} else {
			late++
		}
		run.Clicks = append(run.Clicks, c)
		if late >= clickGiveUp {
			run.Stopped = fmt.Sprintf("%d clicks in a row had no frame within %s", late, clickTimeout)
			break
		}
		if time.Since(began) > clickBudget && i+1 < bb.bc.Clicks {
			run.Stopped = fmt.Sprintf("the run's %s were up", clickBudget)
			break
		}
		time.Sleep(clickGapMin + time.Duration(rng.Int64N(int64(clickGapMax-clickGapMin))))
	}
	ended := time.Now()
	run.Other = bb.otherSince(ctx, m0)
	sockets1, messages1 := t.net.counts()
	run.Window = ended.Sub(began)
	run.Messages = messages1 - messages0
	run.Sockets = 1 + sockets1 - sockets0
	if err := stop(); err != nil {
		return err
	}
	run.Changes = st.CommittedBetween(began, ended)
	if bb.bc.TraceDir != "" {
		path := filepath.Join(bb.bc.TraceDir, fmt.Sprintf("clicks-%s-%gx.json", h.key, t.rate))
		events, err := t.stopTrace(path)
		if err != nil {
			return err
		}
		bb.status("  trace of the clicks: %s (%d events)", path, len(events))
		run.Stages, run.MainBusy = clickStages(events), mainThreadBusy(events)
	}
	if _, failed, first := st.Made(); failed > 0 {
		bb.status("  stream: %d changes failed (those cut off by its stop among them), first: %v", failed, first)
	}

	// The Event Timing API's reading of the same clicks, matched by the
	// event's timestamp (an entry's startTime is its event's timeStamp).
	t.drainEvents(5 * time.Second)
	for i, at := range stamps {
		for _, e := range t.events {
			if d := e[0] - at; at >= 0 && d > -0.5 && d < 0.5 {
				run.Clicks[i].EventTiming = msDuration(e[1])
			}
		}
	}
	s := pageperf.SummarizeClicks(*run)
	bb.status("%s, %gx CPU: %d clicks, click-to-paint p50/p95/p99/max %s ms, %d not painted, %d not flipped; %.1f messages/s for %.1f changes/s; other work %.2f cores",
		h.name, t.rate, s.Clicks, pageperf.Figures(s.Latency), s.Clicks-s.Painted, s.NotFlipped, s.MessagesPerSecond, s.ChangesPerSecond, run.Other)
	return nil
}
