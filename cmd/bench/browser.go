package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/marquee-tickets/marquee/cmd/bench/pageperf"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/chromium"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// The browser benchmark (-browser): the show page of a big hall in headless
// Chromium with its CPU slowed down (4x by default, as on a mid-range
// phone), served by an app instance in a child process with the live seat
// map on (the -live fan-out's server, live_fanout.go). For each hall, CPU
// speed and viewer (signed in, guest) it loads the page several times and
// measures the main thread's long tasks from navigation until the page is
// idle; then, on the signed-in viewer's last page, it clicks seats with
// real mouse events while a stream of holds and releases by other users
// (live_stream.go, through the store, so real commits flow through
// seat_events, the notifier and the websocket) changes the hall's other
// seats, and measures click-to-paint. browser_page.go is the page's side;
// cmd/bench/pageperf sums the figures up and writes the report.

// browserConfig is what the -browser flags decide.
type browserConfig struct {
	throttles []float64       // CPU slowdowns, the first is the target's
	halls     map[string]bool // keys of benchHalls
	viewers   map[string]bool // "viewer" (signed in) and/or "guest"
	loads     int             // page loads per cell
	idleCap   time.Duration   // how long a load may take to become idle
	clicks    int             // clicks per click run
	rate      float64         // seat changes per second during the clicks
	chromium  string
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
	seats      []booking.SeatSpec
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
		if perRow[s.Row] != h.cols || s.ID != seatID(int(s.Row[0]-'A'), s.Number-1) || len(s.Row) != 1 {
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
		ids = append(ids, "seat-"+seatID(h.rows-1, c))
	}
	return ids
}

// browserBench is one run of the browser benchmark.
type browserBench struct {
	bc      browserConfig
	b       *bench // its pool, store and settle
	srv     *liveServer
	cookie  string // the signed-in viewer's session cookie, name=value
	slots   []user // the stream's users
	browser context.Context
	cells   []pageperf.Cell
}

// runBrowser creates a database with the halls' shows, starts the app
// server and Chromium, measures every cell and prints the report.
func runBrowser(ctx context.Context, cfg config, bc browserConfig, w io.Writer) (err error) {
	if _, err := os.Stat(bc.chromium); err != nil {
		return fmt.Errorf("the browser benchmark needs Chromium at %s (scripts/chromium.sh installs it; CHROMIUM names another): %w", bc.chromium, err)
	}
	var halls []*benchHall
	for _, h := range benchHalls() {
		if bc.halls[h.key] {
			if err := h.shape(); err != nil {
				return err
			}
			halls = append(halls, h)
		}
	}
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
	bb := &browserBench{bc: bc, b: &bench{cfg: cfg, pool: pool, store: store}}

	venue, err := newVenue(ctx, store)
	if err != nil {
		return err
	}
	most := 0
	for _, h := range halls {
		if h.show, err = venue.newShow(ctx, store, h.name, h.seats); err != nil {
			return fmt.Errorf("seed %s: %w", h.name, err)
		}
		most = max(most, (h.rows-1)*h.cols/2)
	}
	status("seeding %d users for the stream of seat changes", most+1)
	viewer, err := createUsers(ctx, store, "viewer", 1)
	if err != nil {
		return err
	}
	if bb.slots, err = createUsers(ctx, store, "slot", most); err != nil {
		return err
	}

	status("starting the app server (live seat map on)")
	if bb.srv, err = startLiveServer(ctx, dbURL); err != nil {
		return err
	}
	defer bb.srv.stop()
	if err := waitListening(ctx, store, 1); err != nil {
		return err
	}
	c, err := (&httpImpl{base: bb.srv.base}).login(ctx, viewer[0])
	if err != nil {
		return err
	}
	bb.cookie = c.cookie
	c.close()

	status("starting %s", bc.chromium)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, chromium.Options(bc.chromium)...)
	defer cancelAlloc() // waits for the browser to exit and removes its profile
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil {
		return fmt.Errorf("start %s: %w", bc.chromium, err)
	}
	bb.browser = browserCtx
	version, _ := chromedp.Run(browserCtx, chromedp.Evaluate[string](`navigator.userAgent`))

	h := bb.header(ctx, version)
	began := time.Now()
	for _, rate := range bc.throttles {
		for _, hall := range halls {
			for _, kind := range []string{"viewer", "guest"} {
				if !bc.viewers[kind] {
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
	fmt.Fprintf(w, "- load average at end: %s; measured in %s\n", loadAverage(), time.Since(began).Round(time.Second))
	pageperf.WriteReport(w, bb.cells, pageperf.Method{
		Targets: browserTargets, Throttle: targetSlowdown, Quiet: idleQuiet, Rate: bc.rate,
		ClickTimeout: clickTimeout, GiveUp: clickGiveUp, ClickBudget: clickBudget,
	})
	return checkInvariants(ctx, store, w)
}

func (bb *browserBench) header(ctx context.Context, userAgent string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Marquee browser benchmark: the show page of big halls\n\n")
	fmt.Fprintf(&sb, "- machine: %d CPUs (NumCPU), GOMAXPROCS %d, %s/%s, %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	sb.WriteString(serverLine(ctx, bb.b.pool))
	fmt.Fprintf(&sb, "- browser: %s (%s), headless, a %dx%d phone viewport, every load in a fresh browser context\n",
		bb.bc.chromium, userAgent, viewportWidth, viewportHeight)
	fmt.Fprintf(&sb, "- CPU slowdowns %v; loads per cell: %d, each given %s to become idle; %d clicks at %.0f seat changes/s\n",
		bb.bc.throttles, bb.bc.loads, bb.bc.idleCap, bb.bc.clicks, bb.bc.rate)
	fmt.Fprintf(&sb, "- load average at start: %s\n", loadAverage())
	fmt.Fprintf(&sb, "- started %s\n", time.Now().UTC().Format(time.RFC3339))
	return sb.String()
}

// cpuMark is a reading of the CPU time used on the machine and by this
// run's processes.
type cpuMark struct {
	s                cpuSample // the host, this process, the database's backends
	server, chromium time.Duration
	at               time.Time
}

func (bb *browserBench) mark(ctx context.Context) cpuMark {
	m := cpuMark{s: takeCPUSample(ctx, bb.b.pool), server: serverCPU(bb.srv), at: time.Now()}
	if p := chromedp.FromContext(bb.browser).Browser.Process(); p != nil {
		m.chromium = treeCPU(p.Pid)
	}
	return m
}

// otherSince is how many cores work other than this run's kept busy since
// m0, or -1 when the machine does not say.
func (bb *browserBench) otherSince(ctx context.Context, m0 cpuMark) float64 {
	m := bb.mark(ctx)
	d := m.at.Sub(m0.at)
	u := m.s.since(m0.s, d)
	if u.other < 0 || d <= 0 {
		return -1
	}
	return max(0, u.other-(m.server-m0.server).Seconds()/d.Seconds()-(m.chromium-m0.chromium).Seconds()/d.Seconds())
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
	url := fmt.Sprintf("%s/shows/%d", bb.srv.base, h.show)
	var last *pageperf.Load
	var t *tab
	for i := range bb.bc.loads {
		if t != nil {
			t.close()
		}
		var err error
		if t, err = openTab(bb.browser, bb.srv.base, cookie, rate); err != nil {
			return cell, err
		}
		m0 := bb.mark(ctx)
		l, err := t.load(url, bb.bc.idleCap)
		if err != nil {
			t.close()
			return cell, err
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
			status("%s, %gx CPU, %s, load %d: long tasks %s ms in %d (longest %s ms), idle at %.1f s; other work %.2f cores",
				h.name, rate, cell.Viewer, i+1, msOf(l.Total()), l.Count(), msOf(l.Longest()), l.Idle.Seconds(), l.Other)
		} else {
			status("%s, %gx CPU, %s, load %d: did not reach idle in %s (long tasks at least %s ms, blocked %.1f s at the end); other work %.2f cores",
				h.name, rate, cell.Viewer, i+1, l.Cap, msOf(l.Total()), l.Blocked.Seconds(), l.Other)
			break
		}
		if ctx.Err() != nil {
			t.close()
			return cell, ctx.Err()
		}
	}
	defer t.close()
	if kind != "viewer" || bb.bc.clicks == 0 {
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

func msOf(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }

// clickRun clicks seats of the last row on t's page while a stream of
// changes runs on the rest of the hall.
func (bb *browserBench) clickRun(ctx context.Context, h *benchHall, t *tab, run *pageperf.ClickRun) error {
	if err := bb.b.settle(ctx); err != nil {
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
	st, err := newStream(bb.b.store, h.show, h.rows-1, h.cols, bb.slots, bb.bc.rate, d)
	if err != nil {
		return err
	}
	sctx, stopStream := context.WithCancel(ctx)
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		st.run(sctx, d)
	}()
	stop := func() error {
		stopStream()
		<-streamed
		// Changes cut off by the stop may have committed unseen; the next
		// settle releases what releaseAll cannot know of.
		return st.releaseAll(context.WithoutCancel(ctx))
	}
	select {
	case <-time.After(clickSettle):
	case <-ctx.Done():
		stop()
		return ctx.Err()
	}

	sockets0, messages0 := t.net.counts()
	m0 := bb.mark(ctx)
	began := time.Now()
	rng := rand.New(rand.NewPCG(uint64(h.show), uint64(len(bb.cells))))
	late := 0
	var stamps []float64 // each click's event timeStamp (-1: the page never saw it)
	for i := range bb.bc.clicks {
		if ctx.Err() != nil {
			break
		}
		p := points[(i/2)%len(points)] // each seat picked, then unpicked
		if err := t.dispatchClick(p, clickTimeout); err != nil {
			stop()
			return err
		}
		rec, err := t.waitClick(i, clickTimeout)
		if err != nil {
			stop()
			return err
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
		if time.Since(began) > clickBudget && i+1 < bb.bc.clicks {
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
	for _, c := range st.changes[:st.issued.Load()] {
		at := st.base.Add(time.Duration(c.committed))
		if c.ok && !at.Before(began) && at.Before(ended) {
			run.Changes++
		}
	}
	if _, failed, first := st.made(); failed > 0 {
		status("  stream: %d changes failed (those cut off by its stop among them), first: %v", failed, first)
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
	status("%s, %gx CPU: %d clicks, click-to-paint p50/p95/p99/max %s ms, %d not painted, %d not flipped; %.1f messages/s for %.1f changes/s; other work %.2f cores",
		h.name, t.rate, s.Clicks, pageperf.Figures(s.Latency), s.Clicks-s.Painted, s.NotFlipped, s.MessagesPerSecond, s.ChangesPerSecond, run.Other)
	return nil
}
