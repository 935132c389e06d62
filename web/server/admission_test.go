package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// blocker is a route of the test's own that keeps its slot until the test
// lets it go: GET takes a read slot, POST a write slot.
type blocker struct {
	entered chan struct{} // a request took its slot and is being served
	release chan struct{} // closed: every blocked request may finish
	once    sync.Once
}

const blockPath = "/test/block"

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}, 8), release: make(chan struct{})}
}

func (b *blocker) routes(e *echo.Echo) {
	h := func(c echo.Context) error {
		b.entered <- struct{}{}
		<-b.release
		return c.NoContent(http.StatusNoContent)
	}
	e.GET(blockPath, h)
	e.POST(blockPath, h)
}

// take sends a request to the blocker as method and returns once it holds
// its slot; done is closed when its answer has come, which must be 204.
func (b *blocker) take(t *testing.T, e *webtest.Env, method string) (done <-chan struct{}) {
	t.Helper()
	finished := make(chan struct{})
	answer := make(chan *webtest.Response, 1)
	go func() {
		defer close(finished)
		answer <- e.Guest().Send(webtest.Req{Method: method, Path: blockPath})
	}()
	select {
	case <-b.entered:
	case r := <-answer:
		t.Fatalf("the blocking request was answered at once: %s", r)
	case <-time.After(30 * time.Second):
		t.Fatal("the blocking request never took its slot")
	}
	t.Cleanup(func() {
		b.letGo() // if the test ended first
		<-finished
		if r := <-answer; r.Status != http.StatusNoContent {
			t.Errorf("the blocking request: %s, want 204", r)
		}
	})
	return finished
}

func (b *blocker) letGo() { b.once.Do(func() { close(b.release) }) }

// metric is a gauge's or counter's value in reg, for the series with labels.
func metric(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
					continue series
				}
			}
			if m.GetGauge() != nil {
				return m.GetGauge().GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// waitForMetric waits, up to a generous deadline, for a metric to read want.
func waitForMetric(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string, want float64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for metric(t, reg, name, labels) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s%v = %v, want %v", name, labels, metric(t, reg, name, labels), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wantBusy checks an answer of admission control: 503 busy with a
// Retry-After of 2 to 5 seconds, in the header and the body.
func wantBusy(t *testing.T, r *webtest.Response) {
	t.Helper()
	webtest.WantError(t, r, http.StatusServiceUnavailable, "busy")
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("busy answer with Cache-Control %q, want no-store", cc)
	}
	after, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || after < 2 || after > 5 || r.Num("retry_after") != float64(after) {
		t.Fatalf("busy answer with Retry-After %q and retry_after %v, want the same, 2 to 5 s: %s",
			r.Header.Get("Retry-After"), r.JSON["retry_after"], r)
	}
}

// done reports whether ch is closed.
func done(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// One write at a time, one waiting: the holds beyond are answered 503 busy
// at once, while the request in the slot is still being served, and change
// nothing; the one that waited is served when the slot frees.
func TestAdmissionShedsWrites(t *testing.T) {
	t.Parallel()
	b := newBlocker()
	e := webtest.NewEnv(t, webtest.WithRoutes(b.routes), webtest.WithAdmission(web.Admission{
		// A wait the queued hold never outlives, however slow the machine.
		Writes: web.Capacity{Slots: 1, Queue: 1, MaxWait: time.Minute},
	}))
	// Signed in one by one: a login is a write too.
	const n = 12
	users := make([]*webtest.Client, n)
	for i := range users {
		users[i] = e.FixtureUser(t)
	}
	paid := users[0].MustHold(t, "J1")
	snap := e.Snapshot(t)

	blocked := b.take(t, e, http.MethodPost)
	waiting := make(chan *webtest.Response, 1)
	go func() { waiting <- users[1].Hold("A1", "A2") }()
	waitForMetric(t, e.Reg, "marquee_requests_queued", map[string]string{"kind": "write"}, 1)

	answers := make([]*webtest.Response, n-2)
	pgtest.Release(len(answers), func(i int) {
		answers[i] = users[i+2].Hold(fmt.Sprintf("B%d", i+1))
	})
	if done(blocked) {
		t.Fatal("the blocking request finished before the holds beyond the queue were answered")
	}
	for _, r := range answers {
		wantBusy(t, r)
	}
	if got := e.Snapshot(t); got != snap {
		t.Fatalf("the holds turned away changed the database:\n%s\n%s", snap, got)
	}
	if shed := metric(t, e.Reg, "marquee_requests_shed_total", map[string]string{"kind": "write", "reason": "queue_full"}); shed != float64(len(answers)) {
		t.Fatalf("%v writes counted as shed, want %d", shed, len(answers))
	}

	t.Run("reads are served while every write slot is taken", func(t *testing.T) {
		webtest.Want(t, e.Guest().Get(fmt.Sprintf("/api/v1/shows/%d/seats", e.Show)), http.StatusOK)
		webtest.Want200(t, e.Browser().Get(t, e.ShowPath()))
	})
	t.Run("so are payments: webhooks have slots of their own", func(t *testing.T) {
		e.Pay(t, paid)
	})
	t.Run("a page's form gets the busy page, without a reload", func(t *testing.T) {
		br := e.Browser()
		form := url.Values{"seat": {"C1"}, "key": {"busy-form"}, "_csrf": {"anything"}}
		p := br.Send(t, http.MethodPost, e.ShowPath()+"/hold", form, map[string]string{"Referer": e.Srv.URL + e.ShowPath()})
		webtest.WantFriendly(t, p, http.StatusServiceUnavailable)
		if p.Has(`meta[http-equiv="refresh"]`) {
			t.Fatalf("a form's busy page reloads itself (as a GET): %s", p)
		}
		if !strings.Contains(p.Text("main"), "Nothing was changed") {
			t.Fatalf("the busy page does not say nothing was changed: %s", p.Text("main"))
		}
		if href := p.Attr(`main a.btn-primary`, "href"); href != e.ShowPath() {
			t.Fatalf("the busy page leads back to %q, want %q", href, e.ShowPath())
		}
	})

	b.letGo()
	if r := <-waiting; r.Status != http.StatusCreated {
		t.Fatalf("the hold that waited for its turn: %s, want 201", r)
	}
	if n := e.Count(t, `SELECT count(*) FROM holds WHERE state = 'HELD'`); n != 1 {
		t.Fatalf("%d holds HELD, want only the one that waited", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM show_seats WHERE show_id = $1 AND status = 'HELD'`, e.Show); n != 2 {
		t.Fatalf("%d seats held, want the 2 of the hold that waited", n)
	}
	// And the slot is free again.
	webtest.Want(t, users[2].Hold("B1"), http.StatusCreated)
}

// One read at a time, none waiting: a page is answered with the busy page,
// which reloads itself; the JSON API with its error; htmx with a toast.
// The static files and the probes are never turned away.
func TestAdmissionShedsReads(t *testing.T) {
	t.Parallel()
	b := newBlocker()
	e := webtest.NewEnv(t, webtest.WithRoutes(b.routes), webtest.WithAdmission(web.Admission{
		Reads: web.Capacity{Slots: 1, Queue: 0},
	}))
	br := e.PageUser(t)
	blocked := b.take(t, e, http.MethodGet)

	t.Run("a page", func(t *testing.T) {
		p := br.Get(t, e.ShowPath())
		webtest.WantFriendly(t, p, http.StatusServiceUnavailable)
		after, err := strconv.Atoi(p.Header.Get("Retry-After"))
		if err != nil || after < 2 || after > 5 {
			t.Fatalf("Retry-After %q, want 2 to 5 s", p.Header.Get("Retry-After"))
		}
		if got := p.Attr(`head meta[http-equiv="refresh"]`, "content"); got != strconv.Itoa(after) {
			t.Fatalf("the busy page reloads after %q, want after Retry-After, %d", got, after)
		}
		if h := p.Text("h1"); h != "We're very busy right now" {
			t.Fatalf("heading %q", h)
		}
		if !strings.Contains(p.Text("main"), fmt.Sprintf("It will try again by itself in %d seconds", after)) {
			t.Fatalf("the busy page does not say it will try again: %s", p.Text("main"))
		}
		if href := p.Attr(`main a.btn-primary`, "href"); href != e.ShowPath() {
			t.Fatalf("Try again now leads to %q, want %q", href, e.ShowPath())
		}
		// Answered without reading who asks: neither Log in nor Log out.
		if p.Has(`header a[href^="/login"]`) || p.Has(`header form[action="/logout"]`) {
			t.Fatalf("the busy page's header names an account: %s", p.Text("header"))
		}
	})
	t.Run("htmx", func(t *testing.T) {
		p := br.HtmxGet(t, fmt.Sprintf("/shows/%d/seatmap", e.Show))
		webtest.WantStatus(t, p, http.StatusServiceUnavailable)
		if p.Header.Get("HX-Retarget") != "#flash" || !p.Has(`[role="alert"]`) ||
			!strings.Contains(p.Text(`[role="alert"]`), "very busy") {
			t.Fatalf("htmx busy answer: %v %s", p.Header, p)
		}
	})
	t.Run("the JSON API", func(t *testing.T) {
		wantBusy(t, e.Guest().Get("/api/v1/shows"))
	})
	t.Run("static files and probes are never turned away", func(t *testing.T) {
		for _, path := range []string{"/healthz", "/readyz", "/static/css/app.css"} {
			webtest.Want(t, e.Guest().Get(path), http.StatusOK)
		}
	})
	t.Run("writes are served while every read slot is taken", func(t *testing.T) {
		webtest.Want(t, br.API().Hold("A1"), http.StatusCreated)
	})
	if done(blocked) {
		t.Fatal("the blocking request finished before the reads beyond it were answered")
	}
	if shed := metric(t, e.Reg, "marquee_requests_shed_total", map[string]string{"kind": "read"}); shed != 3 {
		t.Fatalf("%v reads counted as shed, want 3", shed)
	}
	b.letGo()
	<-blocked
	webtest.Want200(t, br.Get(t, e.ShowPath()))
}
