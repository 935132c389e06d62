package pages_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	netmail "net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/chromium"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/mail"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/notify"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/reconcile"
	"github.com/marquee-tickets/marquee/internal/refunds"
	"github.com/marquee-tickets/marquee/internal/sweeper"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

// The browser tests' machinery: one headless Chromium for the package's
// test run, a real server per scenario (web.New on a fresh database,
// served by httptest, with the sandbox's webhook worker, the sweeper, the
// refund worker and the reconciler running as in `marquee serve`, and the live seat map's hub,
// listener and notifier when a scenario asks for them), and a tab type that wraps
// chromedp's actions with timeouts and the test's failure reporting.

const (
	// stepTimeout bounds every browser step: a page that never shows what
	// a step waits for fails the test with what it was waiting for.
	stepTimeout = 20 * time.Second
	// pollEvery is how often a wait looks at the page again.
	pollEvery = 50 * time.Millisecond
	// workTimeout bounds a wait on what the server does by itself (a
	// worker's next turn, a page's next poll): generous, since a test
	// asks only that it happens, never how soon.
	workTimeout = time.Minute
)

// browserProc is the package's headless Chromium: started by the first
// browser test that asks for it, stopped by TestMain after the last (each
// scenario opens its own isolated browser context in it, so one browser
// serves them all, and a dozen start-ups of several seconds each on a
// loaded machine are spared).
var browserProc struct {
	once sync.Once
	ctx  context.Context
	stop func()
	err  error
}

// startChromium returns the context of the package's headless Chromium,
// starting it the first time. Without chromium the test is skipped, unless
// CI is set: there a missing browser is a broken set-up and fails.
func startChromium(t *testing.T) context.Context {
	t.Helper()
	path := chromium.Path()
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("browser tests need Chromium at %s: run scripts/chromium.sh (make test does) or set CHROMIUM", path)
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; CI is set, so a missing browser fails the run", msg)
		}
		t.Skip(msg)
	}
	browserProc.once.Do(func() {
		opts := chromium.Options(path,
			// Two users' tabs run side by side: neither may be slowed down
			// as a background tab (the countdown runs on timers).
			chromedp.Flag("disable-background-timer-throttling", true),
			chromedp.Flag("disable-renderer-backgrounding", true),
			chromedp.Flag("lang", "en-IN"),
		)
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
		began := time.Now()
		// The first Do starts the browser, bound to the context it is
		// given: so this one, not one with a timeout of its own.
		if err := chromedp.Do(browserCtx); err != nil {
			cancelBrowser()
			cancelAlloc()
			browserProc.err = fmt.Errorf("start %s: %w", path, err)
			return
		}
		t.Logf("chromium started in %v", time.Since(began).Round(time.Millisecond))
		browserProc.ctx = browserCtx
		browserProc.stop = func() {
			cancelBrowser()
			cancelAlloc() // waits for the browser to exit and removes its profile
		}
	})
	if browserProc.err != nil {
		t.Fatal(browserProc.err)
	}
	return browserProc.ctx
}

// stopChromium stops the package's Chromium, if a test started it.
func stopChromium() {
	if browserProc.stop != nil {
		browserProc.stop()
	}
}

// screenshots is the folder the PNGs go to: $SCREENSHOT_DIR, kept after the
// run for a person to look at. Without it no screenshot is taken: a capture
// of a whole page is rastered and compressed by the browser, which was a
// good part of a run's CPU on two cores.
var screenshots struct {
	once sync.Once
	dir  string
	err  error
}

// screenshotDir is the folder for screenshots, or "" when they are off.
func screenshotDir(t *testing.T) string {
	t.Helper()
	screenshots.once.Do(func() {
		if d := os.Getenv("SCREENSHOT_DIR"); d != "" {
			screenshots.dir, screenshots.err = d, os.MkdirAll(d, 0o755)
		}
	})
	if screenshots.err != nil {
		t.Fatalf("screenshot folder: %v", screenshots.err)
	}
	return screenshots.dir
}

// logScreenshots says where this run's screenshots go.
func logScreenshots(t *testing.T) {
	t.Helper()
	if d := screenshotDir(t); d != "" {
		t.Logf("screenshots: %s", d)
		return
	}
	t.Log("screenshots: off (SCREENSHOT_DIR=folder keeps them)")
}

// site is the whole app for one scenario: the server on a fresh database,
// with PUBLIC_URL its own address, so the sandbox's webhooks and redirects
// come back to it.
type site struct {
	t     *testing.T
	Store *postgres.Store
	url   string
	logs  *webtest.LogBuffer
	hub   *live.Hub // nil unless the live seat map is on
	// fronts carries the waiting rooms' fronts to their pages, with the
	// live seat map.
	fronts *live.Fronts
	// reconcile makes every payment check due now, when siteConfig's
	// reconcileByHand leaves reconciliation to the test.
	reconcile func()
	// clock is the store's and the sandbox's time when siteConfig's clock
	// asks for one; nil: the database's.
	clock *pgtest.Clock
}

type siteConfig struct {
	holdTTL time.Duration // 0: 5 minutes
	// paymentGrace is how long a hold with a checkout keeps its seats after
	// its deadline; 0: 2 minutes.
	paymentGrace time.Duration
	demo         bool // load the demo catalogue
	live         bool // serve the live seat map (hub, listener, notifier)
	limits       bool // rate limits on, as in production
	// reconcileDelay is how long after a checkout opens the provider is
	// first asked about it; 0: 1 s. returnPatience is how long the return
	// page says "confirming" before it explains; 0: 1 minute.
	reconcileDelay, returnPatience time.Duration
	// reconcileByHand: the provider is asked only when the test calls
	// site.reconcile, so a test can look at the page before it happens
	// however slow the machine is.
	reconcileByHand bool
	// clock: the server, its workers and the sandbox tell the time by
	// site.clock, which stands still until the test moves it. A hold then
	// runs out, a grace ends and a page loses patience when the test says,
	// not when a loaded machine happens to get there; a page's own
	// countdown still counts in the browser's time.
	clock bool
}

func newSite(t *testing.T, cfg siteConfig) *site {
	t.Helper()
	s := &site{t: t, logs: &webtest.LogBuffer{}}
	if cfg.demo {
		began := time.Now()
		s.Store = demoStore(t)
		t.Logf("demo data ready in %v", time.Since(began).Round(time.Millisecond))
	} else {
		s.Store = pgtest.NewStore(t, 8)
	}
	if cfg.clock {
		s.clock = pgtest.NewClock(time.Now())
		s.Store.Clock = s.clock.Now
	}
	log := slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))

	// The listener first: PUBLIC_URL must be known before the handler is
	// made, and the handler set before the server serves.
	srv := httptest.NewUnstartedServer(nil)
	s.url = "http://" + srv.Listener.Addr().String()
	sb := webtest.NewSandbox(s.Store, s.url, log.With("component", "sandbox"))
	sb.Clock = s.Store.Clock
	reg := prometheus.NewRegistry()
	if cfg.live {
		s.hub = live.NewHub(s.Store.SeatStates, log.With("component", "live"))
		s.fronts = live.NewFronts()
	}
	srv.Config.Handler = server.New(web.Config{
		PublicURL: s.url, HoldTTL: cfg.holdTTL, MaxSeatsPerHold: webtest.MaxSeats,
		WebhookSecret: webtest.WebhookSecret, PasswordCost: 4, Sandbox: sb, Live: s.hub, Fronts: s.fronts, RateLimits: cfg.limits,
		ReturnPatience: cfg.returnPatience, PaymentGrace: cfg.paymentGrace, Admission: webtest.PatientAdmission(), RequestTimeout: webtest.PatientRequests,
		DevMailbox: true,
	}, s.Store, metrics.New(reg), log.With("component", "web"))
	srv.Start()
	t.Cleanup(srv.Close)
	if s.hub != nil {
		webtest.RunLive(t, s.hub, s.fronts, s.Store, log.With("component", "live"))
	}

	// The background work of `marquee serve`, a little brisker.
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		(&sweeper.Sweeper{Store: s.Store, Interval: 250 * time.Millisecond, Batch: 100, Log: log}).Run(ctx)
	})
	jobWorkers := river.NewWorkers()
	river.AddWorker(jobWorkers, &refunds.Worker{Store: s.Store, Provider: sb, Log: log})
	river.AddWorker(jobWorkers, &sandbox.WebhookWorker{Sandbox: sb})
	// A checkout's payment check is first due delay after it opens. By
	// hand, a year after, by a clock the test never moves that far, unless
	// site.reconcile makes it due now.
	delay := cmp.Or(cfg.reconcileDelay, time.Second)
	if cfg.reconcileByHand {
		delay = 365 * 24 * time.Hour
		s.reconcile = s.checkPaymentsNow
	}
	s.Store.PaymentCheckDelay = delay
	river.AddWorker(jobWorkers, &reconcile.Worker{Store: s.Store, Provider: sb, Receiver: &boxoffice.Receiver{Store: s.Store},
		Delay: delay, MaxWait: delay, Settle: 10 * time.Second, Log: log})
	// Mail goes to the dev mailbox, as in demo mode.
	river.AddWorker(jobWorkers, &notify.Worker{Store: s.Store, Sender: mail.Mailbox{Keep: s.Store.KeepMail}, Log: log,
		Site: mail.Site{PublicURL: s.url, From: netmail.Address{Address: "tickets@example.com"}}})
	stopJobs, err := jobs.Start(ctx, s.Store.Pool(), jobs.Config{
		Workers: jobWorkers, Queues: map[string]int{jobs.QueuePayments: 2, jobs.QueueMail: 2}, Log: log, Clock: s.Store.Clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), workTimeout)
		if err := stopJobs(stopCtx); err != nil {
			t.Errorf("stop the background jobs: %v", err)
		}
		cancel()
		stop()
		wg.Wait()
		if t.Failed() && s.logs.Len() > 0 {
			t.Logf("server warnings and errors:\n%s", s.logs.String())
		}
	})
	return s
}

// checkPaymentsNow makes every payment check waiting for its time due now,
// by the site's clock; the site's job runner makes them.
func (s *site) checkPaymentsNow() {
	s.t.Helper()
	cfg := &river.Config{}
	if s.Store.Clock != nil {
		cfg.Test.Time = jobs.Clock(s.Store.Clock)
	}
	c, err := river.NewClient(riverpgxv5.New(s.Store.Pool()), cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	waiting := scalar[[]int64](s, `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM river_job WHERE kind = $1 AND state = 'scheduled'`,
		jobs.PaymentCheck{}.Kind())
	for _, id := range waiting {
		if _, err := c.JobRetry(context.Background(), id); err != nil {
			s.t.Fatalf("make payment check %d due: %v", id, err)
		}
	}
}

// demoStore is a store on a copy of the demo catalogue, loaded once per
// test run (its shows are the week after the first load, minutes ago at
// most).
func demoStore(t testing.TB) *postgres.Store {
	t.Helper()
	return pgtest.NewSeededStore(t, 8, "demo", func(ctx context.Context, s *postgres.Store) error {
		return demo.Load(ctx, s, time.Now())
	})
}

// newShow puts a show on sale at a fresh venue three days ahead (the
// default refund policy gives a full refund then): rows x cols seats,
// STANDARD in front, PREMIUM at the back (pgtest.Grid).
func (s *site) newShow(rows, cols int) int64 {
	s.t.Helper()
	return pgtest.NewShow(s.t, s.Store, pgtest.NewVenue(s.t, s.Store), rows, cols, time.Now().Add(72*time.Hour))
}

// holdElsewhere has another user hold seats of show, as someone else's
// browser would, under idempotency key key.
func (s *site) holdElsewhere(show int64, key string, seats ...string) {
	s.t.Helper()
	if _, err := s.Store.HoldSeats(context.Background(), booking.HoldRequest{
		UserID: pgtest.User(s.t, s.Store), ShowID: show, Seats: seats, TTL: 5 * time.Minute, Key: key,
	}, webtest.MaxSeats); err != nil {
		s.t.Fatal(err)
	}
}

// heldSeats is the seats of email's live hold, in order, comma-separated.
func (s *site) heldSeats(email string) string {
	s.t.Helper()
	return scalar[string](s, `SELECT array_to_string(h.seat_ids, ',') FROM holds h JOIN users u ON u.id = h.user_id WHERE u.email = $1 AND h.state = 'HELD'`, email)
}

// scalar runs a one-value query on the site's database.
func scalar[T any](s *site, sql string, args ...any) T {
	s.t.Helper()
	return pgtest.Scalar[T](s.t, s.Store.Pool(), sql, args...)
}

// eventually polls a SQL condition until it holds (background workers).
func (s *site) eventually(what, sql string, args ...any) {
	s.t.Helper()
	deadline := time.Now().Add(workTimeout)
	for !scalar[bool](s, sql, args...) {
		if time.Now().After(deadline) {
			s.t.Fatalf("after %v, still not %s", workTimeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// viewport is a screen size to emulate.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

var (
	phone   = viewport{name: "phone", width: 390, height: 844, mobile: true}
	desktop = viewport{name: "desktop", width: 1280, height: 800}
)

// tab is one user's browser window: its own browser context (cookies), a
// viewport, its console watched for script errors and CSP refusals.
type tab struct {
	t      *testing.T
	ctx    context.Context
	site   *site
	vp     viewport
	vpOpts []chromedp.EmulateViewportOption
	name   string // prefix of its screenshots

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
	shotN   int
}

func (s *site) openTab(t *testing.T, browser context.Context, name string, vp viewport) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateLandscape}
	if vp.mobile {
		opts = []chromedp.EmulateViewportOption{chromedp.EmulatePortrait, chromedp.EmulateMobile}
	}
	tb := &tab{t: t, ctx: ctx, site: s, vp: vp, vpOpts: opts, name: name}
	// The first Do opens the tab, bound to the context it is given: the
	// tab's own, not a step's with a timeout.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.width, vp.height, opts...)); err != nil {
		cancel()
		t.Fatalf("%s: open a tab: %v", name, err)
	}
	messages := chromedp.Console(ctx)
	read := make(chan struct{})
	go func() {
		defer close(read)
		for m, err := range messages {
			if err != nil {
				return
			}
			tb.mu.Lock()
			tb.console = append(tb.console, m)
			tb.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		if t.Failed() {
			tb.shot("FAILED")
			ctx, cancelStep := context.WithTimeout(tb.ctx, 5*time.Second)
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 1500) : ""`))
			cancelStep()
			t.Logf("%s was at %s, showing:\n%s", name, loc, body)
		}
		cancel()
		<-read
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, m := range tb.console {
			// A script error or a CSP refusal is a bug of the page; other
			// messages (a 409 of a refused hold) are only reported.
			if m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
				t.Errorf("%s console: %s (%s:%d)", name, m, m.URL, m.Line+1)
			} else if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning {
				t.Logf("%s console: %s (%s)", name, m, m.URL)
			}
		}
	})
	return tb
}

// do runs steps, failing the test with what it was doing.
func (tb *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.t.Fatalf("%s: %s: %v", tb.name, what, err)
	}
}

// run runs one action that returns a value.
func run[T any](tb *tab, what string, action chromedp.Action[T]) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		tb.t.Fatalf("%s: %s: %v", tb.name, what, err)
	}
	return v
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](tb *tab, js string) T {
	tb.t.Helper()
	return run(tb, "evaluate "+js, chromedp.Evaluate[T](js))
}

func (tb *tab) open(path string) {
	tb.t.Helper()
	tb.do("open "+path, chromedp.Navigate(tb.site.url+path))
}

// click clicks the first shown element sel matches, after scrolling it
// to the middle of the screen (as a person would: never under the sticky
// selection bar).
//
// A page that swaps its content (htmx, a history restore) may replace the
// element between finding it and clicking it: the click is then tried again
// on the new one. Nothing was clicked when that fails: the mouse events go
// out only once the node's place is known.
func (tb *tab) click(sel string) {
	tb.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		ctx, cancel := context.WithDeadline(tb.ctx, deadline)
		err := chromedp.Do(ctx,
			chromedp.WaitVisible(chromedp.CSS(sel), chromedp.RetryInterval(pollEvery)),
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
				`document.querySelector(%s).scrollIntoView({block: "center", inline: "center"})`, jsString(sel))),
			chromedp.Click(chromedp.CSS(sel)))
		cancel()
		if err == nil {
			return
		}
		if !staleNode(err) || time.Now().After(deadline) {
			tb.t.Fatalf("%s: click %s: %v", tb.name, sel, err)
		}
		time.Sleep(pollEvery)
	}
}

// staleNode reports whether err is Chromium's answer about a DOM node that
// was replaced after it was found.
func staleNode(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Could not find node with given id") || strings.Contains(msg, "No node with given id found")
}

// openShow opens the show page and waits for its seat map to be ready.
func (tb *tab) openShow(show int64) {
	tb.t.Helper()
	tb.open(fmt.Sprintf("/shows/%d", show))
	tb.waitVisible(`#seatmap[data-ready="true"]`)
}

// pick taps seat id as a person would: on a hall's overview (a phone), the
// first tap zooms in there and the second picks.
func (tb *tab) pick(id string) {
	tb.t.Helper()
	if tb.Attr("#seatmap", "data-zoom") == "overview" {
		tb.click("#seat-" + id)
		tb.waitFor("the map to zoom in", `document.querySelector("#seatmap").dataset.zoom === "in"`)
	}
	tb.click("#seat-" + id)
}

func (tb *tab) waitVisible(sel string) {
	tb.t.Helper()
	tb.do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel), chromedp.RetryInterval(pollEvery)))
}

// Text is the rendered text of the first element sel matches, spaces
// squeezed, once the page has loaded. It is read by script, not by DOM node
// id: a page still loading replaces its nodes, and an id taken a moment
// before is then "No node with given id found".
func (tb *tab) Text(sel string) string {
	tb.t.Helper()
	tb.waitFor(sel, fmt.Sprintf(`document.readyState === "complete" && document.querySelector(%s) !== null`, jsString(sel)))
	return squeeze(eval[string](tb, fmt.Sprintf(`document.querySelector(%s).innerText`, jsString(sel))))
}

// Attr is an attribute of the first element sel matches; "" if absent.
func (tb *tab) Attr(sel, name string) string {
	tb.t.Helper()
	return eval[string](tb, fmt.Sprintf(`(document.querySelector(%s) || {getAttribute(){return null}}).getAttribute(%s) || ""`, jsString(sel), jsString(name)))
}

// waitFor waits until the JavaScript expression is truthy. It keeps asking
// across a navigation (when the page being asked goes away, it asks the
// next one).
func (tb *tab) waitFor(what, js string) {
	tb.t.Helper()
	tb.waitForWithin(what, js, stepTimeout)
}

func (tb *tab) waitForWithin(what, js string, timeout time.Duration) {
	tb.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		ctx, cancel := context.WithTimeout(tb.ctx, left)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js,
			chromedp.WithPollingInterval(pollEvery), chromedp.WithPollingTimeout(left)))
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) || tb.ctx.Err() != nil {
			tb.t.Fatalf("%s: waited %v for %s (%s): %v", tb.name, timeout, what, js, err)
		}
		time.Sleep(pollEvery) // the page went away mid-poll: ask the next one
	}
}

// typeInto types text into the field with id a key at a time, as a person
// would: a step of its own for each field, as a loaded machine types a
// long email slowly.
func (tb *tab) typeInto(id, text string) {
	tb.t.Helper()
	tb.do(fmt.Sprintf("type %q in #%s", text, id), chromedp.SendKeys(chromedp.ID(id), text))
}

// press sends keys to the focused element.
func (tb *tab) press(keys string) {
	tb.t.Helper()
	tb.do(fmt.Sprintf("press %q", keys), chromedp.KeyEvent(keys))
}

// focused is the id of the focused element.
func (tb *tab) focused() string {
	tb.t.Helper()
	return eval[string](tb, `document.activeElement ? document.activeElement.id : ""`)
}

// shot saves a PNG of the whole page as <dir>/<tab>-<n>-<name>.png, when
// screenshots are on.
func (tb *tab) shot(name string) {
	tb.t.Helper()
	if screenshotDir(tb.t) == "" {
		return
	}
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	// The whole page, as a window as tall as the page shows it: a capture
	// beyond the viewport would paint the sticky selection bar mid-page.
	png, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (_ []byte, err error) {
		height, err := chromedp.Evaluate[int64](`Math.ceil(Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0))`)(ctx, t)
		if err != nil {
			return nil, err
		}
		if height > tb.vp.height {
			if _, err := chromedp.EmulateViewport(tb.vp.width, min(height, 8000), tb.vpOpts...)(ctx, t); err != nil {
				return nil, err
			}
			defer func() {
				if _, rerr := chromedp.EmulateViewport(tb.vp.width, tb.vp.height, tb.vpOpts...)(ctx, t); rerr != nil {
					err = errors.Join(err, fmt.Errorf("restore the viewport: %w", rerr))
				}
			}()
			// Rows the taller window brings into sight render a frame or
			// two later (content-visibility): capture after them.
			if _, err := chromedp.Evaluate[chromedp.Void](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))))`,
				func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) })(ctx, t); err != nil {
				return nil, err
			}
		}
		return chromedp.CaptureScreenshot()(ctx, t)
	})
	if err != nil {
		tb.t.Errorf("%s: screenshot %s: %v", tb.name, name, err)
		return
	}
	tb.mu.Lock()
	tb.shotN++
	n := tb.shotN
	tb.mu.Unlock()
	// A page named by its path keeps its file in the folder.
	name = strings.NewReplacer("/", "_", "?", "_", "=", "_").Replace(name)
	file := filepath.Join(screenshotDir(tb.t), fmt.Sprintf("%s-%02d-%s.png", tb.name, n, name))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		tb.t.Errorf("save screenshot: %v", err)
	}
}

// noSidewaysScroll checks that the page fits the viewport's width: on a
// phone only the seat map may scroll sideways, inside its own box.
func (tb *tab) noSidewaysScroll(page string) {
	tb.t.Helper()
	w := eval[[]int](tb, `[document.documentElement.scrollWidth, window.innerWidth]`)
	if w[0] > w[1] {
		tb.t.Errorf("%s: %s is %dpx wide in a %dpx viewport: the page scrolls sideways", tb.name, page, w[0], w[1])
	}
}

// signUp makes a new account through the sign-up page and returns its email.
func (tb *tab) signUp(name string) string {
	tb.t.Helper()
	email := fmt.Sprintf("%s-%d@example.com", strings.ToLower(strings.ReplaceAll(name, " ", ".")), time.Now().UnixNano())
	tb.open("/signup")
	tb.typeInto("name", name)
	tb.typeInto("email", email)
	tb.typeInto("password", "correct horse battery")
	tb.click(`form[action="/signup"] button[type=submit]`)
	tb.waitVisible(`header a[href="/bookings"]`)
	return email
}

// seatNames reads every seat button's accessible name as Chromium computes
// it (the accessibility tree, not the attribute), by seat id. The tree is
// built after the page, and a seat button replaced meanwhile (a swap, a
// live update) is another node: it is read again until every seat button
// found is in it with a name, or stepTimeout has passed (then what it has,
// "" for a seat not in the tree, is for the caller to judge).
func (tb *tab) seatNames() map[string]string {
	tb.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		names, complete := tb.readSeatNames()
		if complete || time.Now().After(deadline) {
			return names
		}
		time.Sleep(pollEvery)
	}
}

// readSeatNames reads the seat buttons and the accessibility tree once;
// complete says every button was in the tree with a name.
func (tb *tab) readSeatNames() (names map[string]string, complete bool) {
	tb.t.Helper()
	nodes := run(tb, "find the seat buttons", chromedp.Nodes(chromedp.CSSAll("#seatmap button.seat")))
	ids := map[cdp.BackendNodeID]string{}
	for _, n := range nodes {
		ids[n.BackendNodeID] = n.AttributeValue("data-seat")
	}
	tree := run(tb, "read the accessibility tree", func(ctx context.Context, t *chromedp.Target) (accessibility.GetFullAXTreeResult, error) {
		return cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	})
	names = map[string]string{}
	for _, n := range tree.Nodes {
		id, ok := ids[n.BackendDOMNodeID]
		if !ok {
			continue
		}
		var name string
		if n.Name != nil && len(n.Name.Value) > 0 {
			if err := json.Unmarshal([]byte(n.Name.Value), &name); err != nil {
				tb.t.Fatalf("seat %s: accessible name %s: %v", id, n.Name.Value, err)
			}
		}
		names[id] = name
	}
	if len(nodes) == 0 {
		tb.t.Fatal("no seat buttons on the page")
	}
	complete = true
	for _, id := range ids {
		if names[id] == "" {
			complete = false
		}
		if _, ok := names[id]; !ok {
			names[id] = "" // not in the accessibility tree at all
		}
	}
	return names, complete
}

// checkSeatNames checks every seat button has an accessible name that
// says its category and its price (from its data attributes).
func (tb *tab) checkSeatNames() {
	tb.t.Helper()
	names := tb.seatNames()
	type seatData struct{ ID, Category, Price, Status string }
	seats := eval[[]seatData](tb, `[...document.querySelectorAll("#seatmap button.seat")].map(b => ({
		ID: b.dataset.seat, Category: b.dataset.category, Price: b.dataset.price, Status: b.dataset.status}))`)
	bad := 0
	for _, s := range seats {
		name := names[s.ID]
		price, _ := strconv.ParseInt(s.Price, 10, 64)
		category := strings.ReplaceAll(strings.ToLower(s.Category), "_", " ")
		if name == "" || !strings.Contains(strings.ToLower(name), category) || !strings.Contains(name, rupees(price)) {
			if bad++; bad <= 5 {
				tb.t.Errorf("%s: seat %s (%s, %s) has accessible name %q: want its category and price", tb.name, s.ID, s.Category, rupees(price), name)
			}
		}
	}
	if bad > 5 {
		tb.t.Errorf("%s: ... and %d more seats without a good accessible name", tb.name, bad-5)
	}
	tb.t.Logf("%s: %d seat buttons, each named with its category and price (e.g. %q)", tb.name, len(seats), names[seats[0].ID])
}

// rupees formats minor units of INR as the pages do: ₹1,250 or ₹99.50.
func rupees(minor int64) string {
	whole, frac := minor/100, minor%100
	s := strconv.FormatInt(whole, 10)
	if len(s) > 3 {
		head, tail := s[:len(s)-3], s[len(s)-3:]
		var parts []string
		for len(head) > 2 {
			parts = append([]string{head[len(head)-2:]}, parts...)
			head = head[:len(head)-2]
		}
		if head != "" {
			parts = append([]string{head}, parts...)
		}
		s = strings.Join(append(parts, tail), ",")
	}
	if frac != 0 {
		s += fmt.Sprintf(".%02d", frac)
	}
	return "₹" + s
}

var spaces = regexp.MustCompile(`\s+`)

func squeeze(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// wantText fails unless got contains every one of want.
func wantText(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Fatalf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}
