package browserbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/marquee-tickets/marquee/cmd/bench/pageperf"
)

// One page of the browser benchmark: a tab in a browser context of its own
// (its own cookies and cache: every load is a first visit), the CPU slowed
// down, and a script that runs before any of the page's own. The script
// records the page's long tasks and Event Timing entries with
// PerformanceObservers, and times every click on a seat: a capture
// listener on window (first of all listeners) notes the event's timeStamp,
// a listener on window in the bubbling phase (after the app's own, which
// sits on document) notes whether aria-pressed flipped and asks for the
// next frame; a message posted from requestAnimationFrame arrives once that
// frame is done, and marks it painted. The network (HTTP requests in
// flight, websocket messages) is watched through the DevTools protocol, off
// the page's main thread.

// pageScript is the instrumentation. It must not change what the page
// does: it only listens.
const pageScript = `(() => {
  if (window.__bench) return;
  const b = window.__bench = { tasks: [], events: [], clicks: [], errors: [], sent: 0, sentEvents: 0 };
  const supported = PerformanceObserver.supportedEntryTypes;
  b.eventTiming = supported.includes('event');
  const keepTasks = (entries) => { for (const e of entries) b.tasks.push([e.startTime, e.duration]); };
  const keepEvents = (entries) => {
    for (const e of entries) if (e.name === 'click') b.events.push([e.startTime, e.duration]);
  };
  if (!supported.includes('longtask')) b.errors.push('this browser reports no long tasks');
  try {
    b.lto = new PerformanceObserver((list) => keepTasks(list.getEntries()));
    b.lto.observe({ type: 'longtask', buffered: true });
  } catch (e) { b.errors.push('observe long tasks: ' + e); }
  if (b.eventTiming) {
    try {
      b.eto = new PerformanceObserver((list) => keepEvents(list.getEntries()));
      b.eto.observe({ type: 'event', durationThreshold: 16, buffered: true });
    } catch (e) { b.errors.push('observe Event Timing: ' + e); }
  }
  let cur = null;
  addEventListener('click', (ev) => {
    const seat = ev.target && ev.target.closest && ev.target.closest('button.seat');
    if (!seat) return;
    cur = { seat: seat.id, t: ev.timeStamp, before: seat.getAttribute('aria-pressed') };
    b.clicks.push(cur);
  }, true);
  addEventListener('click', () => {
    const c = cur;
    cur = null;
    if (!c) return;
    const el = document.getElementById(c.seat);
    c.after = el && el.getAttribute('aria-pressed');
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        c.painted = performance.now();
        const now = document.getElementById(c.seat);
        c.shown = now && now.getAttribute('aria-pressed');
      };
      ch.port2.postMessage(0);
    });
  });
  // takeEvents hands over the Event Timing entries since its last call.
  b.takeEvents = () => {
    if (b.eto) keepEvents(b.eto.takeRecords());
    const out = b.events.slice(b.sentEvents);
    b.sentEvents = b.events.length;
    return out;
  };
  // take hands over the long tasks since its last call, with the page's clock.
  b.take = () => {
    if (b.lto) keepTasks(b.lto.takeRecords());
    const out = { url: location.href, now: performance.now(), origin: performance.timeOrigin,
      tasks: b.tasks.slice(b.sent), errors: b.errors };
    b.sent = b.tasks.length;
    return out;
  };
})();`

// tab is one page of the benchmark and what the protocol says about its
// network.
type tab struct {
	ctx    context.Context
	cancel context.CancelFunc
	net    *netWatch
	rate   float64      // the CPU slowdown
	events [][2]float64 // Event Timing entries of clicks read so far: [startTime, duration] ms
	trace  traceRecorder
}

// netWatch counts the page's HTTP requests in flight and its websocket
// messages, from protocol events, with the time this process got them.
type netWatch struct {
	mu          sync.Mutex
	inFlight    map[network.RequestID]bool
	lastNetwork time.Time
	sockets     int       // websockets created
	messages    int       // websocket messages received
	socketOpen  time.Time // the latest websocket's handshake answered
}

func (n *netWatch) event(ev any) {
	now := time.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		n.inFlight[e.RequestID] = true
		n.lastNetwork = now
	case *network.EventLoadingFinished:
		delete(n.inFlight, e.RequestID)
		n.lastNetwork = now
	case *network.EventLoadingFailed:
		delete(n.inFlight, e.RequestID)
		n.lastNetwork = now
	case *network.EventWebSocketCreated:
		n.sockets++
		n.socketOpen = time.Time{}
	case *network.EventWebSocketHandshakeResponseReceived:
		n.socketOpen = now
		n.lastNetwork = now
	case *network.EventWebSocketFrameReceived:
		n.messages++
		n.lastNetwork = now
	}
}

// counts returns the websockets opened and the messages received so far.
func (n *netWatch) counts() (sockets, messages int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sockets, n.messages
}

// viewport is the phone the CPU slowdown stands for.
const viewportWidth, viewportHeight = 390, 844

// openTab opens a tab in a new browser context with the CPU slowed down by
// rate, the instrumentation installed and, when cookie is set (name=value),
// the viewer signed in on base.
func openTab(browser context.Context, base, cookie string, rate float64) (*tab, error) {
	nw := &netWatch{inFlight: map[network.RequestID]bool{}}
	t := &tab{net: nw, rate: rate}
	t.ctx, t.cancel = chromedp.NewContext(browser, chromedp.WithNewBrowserContext(), chromedp.WithListener(func(ev any) {
		nw.event(ev)
		t.trace.event(ev)
	}))
	ctx, cancel := t.ctx, t.cancel
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(viewportWidth, viewportHeight, chromedp.EmulatePortrait, chromedp.EmulateMobile),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: rate}); err != nil {
				return fmt.Errorf("CPU throttling: %w", err)
			}
			if _, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageScript}); err != nil {
				return fmt.Errorf("install the page script: %w", err)
			}
			if cookie == "" {
				return nil
			}
			name, value, _ := strings.Cut(cookie, "=")
			_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: name, Value: value, URL: base, HTTPOnly: new(true)})
			return err
		}),
	)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open a tab: %w", err)
	}
	return t, nil
}

// close closes the tab and its browser context, frozen or not.
func (t *tab) close() { t.cancel() }

// taken is one read of the page's instrumentation.
type taken struct {
	URL    string       `json:"url"`
	Errors []string     `json:"errors"` // what the script could not set up
	Now    float64      `json:"now"`    // performance.now(), ms
	Origin float64      `json:"origin"` // performance.timeOrigin, ms since the epoch
	Tasks  [][2]float64 `json:"tasks"`  // [startTime, duration] ms, since the last read
}

func msDuration(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func epoch(ms float64) time.Time {
	sec, frac := math.Modf(ms / 1000)
	return time.Unix(int64(sec), int64(frac*1e9))
}

// idleQuiet is how long a page must be quiet to count as idle.
const idleQuiet = 2 * time.Second

// load navigates the tab to url and waits until the page is idle (see
// pageperf.Signals.IdleSince) or limit has passed since the navigation,
// reading its long tasks every 250 ms.
func (t *tab) load(url string, limit time.Duration) (pageperf.Load, error) {
	res := pageperf.Load{Cap: limit}
	began := time.Now()
	deadline := began.Add(limit)
	if _, err := chromedp.Call(t.ctx, page.Navigate, page.NavigateParams{URL: url}); err != nil {
		return res, fmt.Errorf("navigate to %s: %w", url, err)
	}
	var origin float64
	var lastTaskEnd, answered time.Time
	for {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		ctx, cancel := context.WithTimeout(t.ctx, left)
		tk, err := chromedp.Run(ctx, chromedp.Evaluate[*taken](`window.__bench ? window.__bench.take() : null`))
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			// The page did not answer before the cap: busy.
		case err != nil:
			// The document is being replaced (the navigation): ask again.
			time.Sleep(50 * time.Millisecond)
			continue
		case tk == nil || tk.URL != url:
			// Still the document before the navigation.
			time.Sleep(50 * time.Millisecond)
			continue
		case len(tk.Errors) > 0:
			return res, fmt.Errorf("the page cannot measure itself: %s", strings.Join(tk.Errors, "; "))
		default:
			origin = tk.Origin
			answered = epoch(tk.Origin + tk.Now)
			for _, k := range tk.Tasks {
				task := pageperf.Task{Start: msDuration(k[0]), Duration: msDuration(k[1])}
				res.Tasks = append(res.Tasks, task)
				if end := epoch(origin + k[0] + k[1]); end.After(lastTaskEnd) {
					lastTaskEnd = end
				}
			}
			t.net.mu.Lock()
			sig := pageperf.Signals{
				SocketOpen: t.net.socketOpen, InFlight: len(t.net.inFlight), LastNetwork: t.net.lastNetwork,
				LastTaskEnd: lastTaskEnd, PageNow: answered,
			}
			t.net.mu.Unlock()
			if since, ok := sig.IdleSince(idleQuiet); ok {
				res.Reached = true
				res.Idle = since.Sub(epoch(origin))
				// A long task that began after the idle stretch did not
				// count (none can: the stretch has none).
				return res, nil
			}
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	// The cap ran out. The page last answered at answered: since then its
	// main thread has been busy (or it would have answered the read that
	// timed out), with a task not yet reported.
	if !answered.IsZero() {
		res.Blocked = max(0, time.Since(answered)-250*time.Millisecond)
	} else {
		res.Blocked = time.Since(began)
	}
	return res, nil
}

// point is where a seat is on the screen, in CSS pixels of the viewport.
type point struct {
	ID   string
	X, Y float64
}

// zoomIn does what a person on a phone does first on a hall too wide to
// tap: a tap on the overview (on the last row's label, not on a seat, so no
// click is timed) zooms into that part of the hall at full size. A map that
// opens tappable is left as it is.
func (t *tab) zoomIn() error {
	ctx, cancel := context.WithTimeout(t.ctx, 30*time.Second)
	defer cancel()
	p, err := chromedp.Run(ctx, chromedp.Evaluate[*point](`(() => {
		const map = document.querySelector('#seatmap');
		if (!map || map.dataset.zoom !== 'overview') return null;
		const rows = map.querySelectorAll('[data-row]');
		const label = rows[rows.length - 1].querySelector('.row-label');
		label.scrollIntoView({ block: 'center' });
		const r = label.getBoundingClientRect();
		return { ID: 'row label', X: r.left + r.width / 2, Y: r.top + r.height / 2 };
	})()`))
	if err != nil || p == nil {
		return err
	}
	if err := t.dispatchClick(*p, 10*time.Second); err != nil {
		return err
	}
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('#seatmap').dataset.zoom === 'in'`,
		chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		return fmt.Errorf("zoom into the hall: %w", err)
	}
	return nil
}

// seatPoints scrolls the seats (element ids, side by side in one row)
// into the middle of their scroller and the screen, and returns their
// centres. A seat another element covers there is an error: a click would
// not reach it.
func (t *tab) seatPoints(ids []string) ([]point, error) {
	ctx, cancel := context.WithTimeout(t.ctx, 30*time.Second)
	defer cancel()
	type found struct {
		X, Y float64
		Hit  bool
	}
	var out []point
	for i, id := range ids {
		scroll := ""
		if i == 0 {
			scroll = fmt.Sprintf(`document.getElementById(%q).scrollIntoView({ block: 'center', inline: 'center' });`, ids[len(ids)/2])
		}
		f, err := chromedp.Run(ctx, chromedp.Evaluate[found](fmt.Sprintf(`(() => {
			%s
			const el = document.getElementById(%q);
			const r = el.getBoundingClientRect();
			const x = r.left + r.width / 2, y = r.top + r.height / 2;
			const hit = document.elementFromPoint(x, y);
			return { X: x, Y: y, Hit: !!hit && (hit === el || el.contains(hit)) };
		})()`, scroll, id)))
		if err != nil {
			return nil, fmt.Errorf("find seat %s: %w", id, err)
		}
		if !f.Hit {
			return nil, fmt.Errorf("seat %s is covered at (%.0f, %.0f): a click would miss it", id, f.X, f.Y)
		}
		out = append(out, point{ID: id, X: f.X, Y: f.Y})
	}
	return out, nil
}

// dispatchClick sends a real left click (move, press, release) at p.
// The browser answers each event once the page's main thread has taken
// it, so a busy page keeps the answer back: after waiting timeout for one,
// the rest are only sent (the browser queues them in order) and the page
// times the click by the event's own timestamp whenever it gets to it.
func (t *tab) dispatchClick(p point, timeout time.Duration) error {
	wait := timeout
	for _, typ := range []input.DispatchMouseEventType{chromedp.MouseMoved, chromedp.MousePressed, chromedp.MouseReleased} {
		params := input.DispatchMouseEventParams{Type: typ, X: p.X, Y: p.Y}
		if typ != chromedp.MouseMoved {
			params.Button, params.ClickCount = input.MouseButtonLeft, 1
		}
		ctx, cancel := context.WithTimeout(t.ctx, wait)
		_, err := chromedp.Call(ctx, input.DispatchMouseEvent, params)
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			wait = 100 * time.Millisecond
		case err != nil:
			return fmt.Errorf("click %s: %w", p.ID, err)
		}
	}
	return nil
}

// clickRecord is the page's record of click i.
type clickRecord struct {
	Seat    string   `json:"seat"`
	T       float64  `json:"t"`
	Before  *string  `json:"before"`
	After   *string  `json:"after"`
	Painted *float64 `json:"painted"`
	Shown   *string  `json:"shown"`
}

// waitClick waits until the page has painted after click i (0-based), up
// to timeout, and returns its record (nil when the page never saw it). It
// collects the page's new Event Timing entries on the way: a page saturated
// with work may not answer a read after the run in any useful time.
func (t *tab) waitClick(i int, timeout time.Duration) (*clickRecord, error) {
	type read struct {
		Click  *clickRecord `json:"click"`
		Events [][2]float64 `json:"events"`
	}
	deadline := time.Now().Add(timeout)
	var last *clickRecord
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return last, nil
		}
		ctx, cancel := context.WithTimeout(t.ctx, left)
		r, err := chromedp.Run(ctx, chromedp.Evaluate[read](fmt.Sprintf(
			`({ click: window.__bench.clicks[%d] || null, events: window.__bench.takeEvents() })`, i)))
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("read click %d: %w", i, err)
		}
		t.events = append(t.events, r.Events...)
		if r.Click != nil {
			last = r.Click
			if last.Painted != nil {
				return last, nil
			}
		}
		// Every read is a small task on the page's main thread: not too
		// many of them.
		time.Sleep(50 * time.Millisecond)
	}
}

// drainEvents collects the Event Timing entries the page has not handed
// over yet, if it answers within timeout.
func (t *tab) drainEvents(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(t.ctx, timeout)
	defer cancel()
	if ev, err := chromedp.Run(ctx, chromedp.Evaluate[[][2]float64](`window.__bench.takeEvents()`)); err == nil {
		t.events = append(t.events, ev...)
	}
}

// eventTiming reports whether the browser supports the Event Timing API.
func (t *tab) eventTiming() (bool, error) {
	ctx, cancel := context.WithTimeout(t.ctx, 30*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__bench.eventTiming`))
}

// signedIn fails unless the page shows a signed-in visitor (the log-out
// form of the header).
func (t *tab) signedIn() error {
	ctx, cancel := context.WithTimeout(t.ctx, 30*time.Second)
	defer cancel()
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('form[action="/logout"]')`))
	if err != nil {
		return fmt.Errorf("look for the signed-in header: %w", err)
	}
	if !ok {
		return errors.New("the show page does not show the viewer signed in: the session cookie did not take")
	}
	return nil
}
