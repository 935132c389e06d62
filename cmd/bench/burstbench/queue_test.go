package burstbench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// room is a waiting room as its wire is written (docs/api.md): tickets
// joined before the opening wait unnumbered, are numbered at the opening,
// and later ones in arrival order; every number up to through is admitted.
// The test opens it and moves its front.
type room struct {
	t *testing.T

	mu       sync.Mutex
	open     bool
	through  int64
	last     int64
	numbers  map[string]int64 // ticket: number, 0 unnumbered
	refuse   bool             // the socket answers 503
	off      bool             // turned off: everyone is in
	changed  chan struct{}    // closed and replaced on every change
	sockets  int              // opened so far
	statuses int              // status reads so far
}

func newRoom(t *testing.T) *room {
	return &room{t: t, numbers: map[string]int64{}, changed: make(chan struct{})}
}

// step opens the room (numbering the pre-queue) or moves its front to
// through, and tells every socket.
func (r *room) step(open bool, through int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if open && !r.open {
		for tk, n := range r.numbers { // map order: a shuffle
			if n == 0 {
				r.last++
				r.numbers[tk] = r.last
			}
		}
	}
	r.open, r.through = open, through
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *room) state(tk string) (string, int64) {
	n := r.numbers[tk]
	if r.off || n > 0 && n <= r.through {
		return "ADMITTED", n
	}
	return "WAITING", n
}

func (r *room) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ck, _ := req.Cookie("queue_1")
	r.mu.Lock()
	switch req.Method + " " + req.URL.Path {
	case "POST /api/v1/shows/1/queue":
		tk := fmt.Sprintf("tk%d", len(r.numbers)+1)
		var eta any
		if r.open {
			r.last++
			r.numbers[tk] = r.last
			eta = float64(r.last - r.through) // a second a place
		} else {
			r.numbers[tk] = 0
		}
		r.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "queue_1", Value: tk, Path: "/"})
		w.WriteHeader(http.StatusCreated)
		r.write(w, map[string]any{"ticket": tk, "state": "WAITING", "position": 1, "eta_s": eta, "admitted_until": nil})
	case "GET /shows/1/queue":
		n := r.numbers[ck.Value]
		r.mu.Unlock()
		if n > 0 {
			fmt.Fprintf(w, `<html><main id="main" data-queue-number="%d">`, n)
		} else {
			fmt.Fprint(w, `<html><main id="main">`)
		}
	case "GET /api/v1/shows/1/queue":
		r.statuses++
		st, _ := r.state(ck.Value)
		r.mu.Unlock()
		r.write(w, map[string]any{"ticket": ck.Value, "state": st, "position": 1, "eta_s": 1})
	case "GET /shows/1/queue/live":
		refuse := r.refuse
		r.sockets++
		r.mu.Unlock()
		if refuse {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		ws, err := websocket.Accept(w, req, nil)
		if err != nil {
			r.t.Errorf("accept the queue socket: %v", err)
			return
		}
		defer ws.CloseNow()
		ctx := ws.CloseRead(req.Context())
		for {
			r.mu.Lock()
			msg, _ := json.Marshal(map[string]any{"enabled": !r.off, "open": r.open, "through": r.through, "per_minute": 60})
			changed := r.changed
			r.mu.Unlock()
			if ws.Write(ctx, websocket.MessageText, msg) != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-changed:
			}
		}
	default:
		r.mu.Unlock()
		r.t.Errorf("the room was asked for %s %s", req.Method, req.URL)
		w.WriteHeader(http.StatusNotFound)
	}
}

func (r *room) write(w http.ResponseWriter, v any) {
	if err := json.NewEncoder(w).Encode(v); err != nil {
		r.t.Errorf("write an answer: %v", err)
	}
}

// waiters lets n people wait in the crowd's room at once; their outcomes
// (0, booked, for admitted) come on the channel as each ends.
func waiters(c *crowd, n int) chan outcome {
	out := make(chan outcome, n)
	for i := range n {
		go func() {
			p := &person{c: c, cookie: "marquee_session=s", rng: rand.New(rand.NewPCG(1, uint64(i)))}
			o, admitted := p.wait(context.Background())
			p.leave()
			if admitted {
				o = booked
			}
			out <- o
		}()
	}
	return out
}

// eventually waits for cond, polling, for up to a generous deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestWait is people waiting in a waiting room as its page does: those
// in the pre-queue open the page again when it opens, to learn their
// number; those after it get one and an estimate on joining; each is
// admitted once the front passes their number, confirmed by the status;
// a person whose socket fails polls; whoever waits when the seats are gone
// leaves.
func TestWait(t *testing.T) {
	newWaitCrowd := func(r *room) *crowd {
		srv := httptest.NewServer(r)
		t.Cleanup(srv.Close)
		c := newCrowd(srv.URL, 1, 1000, nil, nil, time.Second, 1)
		c.room, c.second, c.start = true, time.Millisecond, time.Now()
		return c
	}
	queued := func(r *room, n int) func() bool {
		return func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return len(r.numbers) == n && r.sockets >= n
		}
	}

	t.Run("pre-queue, opening, then in order", func(t *testing.T) {
		r := newRoom(t)
		c := newWaitCrowd(r)
		early := waiters(c, 3)
		eventually(t, "three in the pre-queue with their sockets open", queued(r, 3))
		r.step(true, 0)
		eventually(t, "three numbered pages", func() bool {
			c.queue.mu.Lock()
			defer c.queue.mu.Unlock()
			return c.queue.reloads >= 3
		})
		late := waiters(c, 2)
		eventually(t, "two more waiting", queued(r, 5))
		r.step(true, 3)
		for range 3 {
			if o := <-early; o != booked {
				t.Errorf("a person in the pre-queue: %s, want admitted", outcomeNames[o])
			}
		}
		select {
		case o := <-late:
			t.Fatalf("a person numbered 4 or 5 left (%s) with the front at 3", outcomeNames[o])
		case <-time.After(50 * time.Millisecond):
		}
		r.step(true, 5)
		for range 2 {
			if o := <-late; o != booked {
				t.Errorf("a person after the opening: %s, want admitted", outcomeNames[o])
			}
		}
		q := c.queue
		if q.joined != 5 || q.admitted != 5 || q.atOnce != 0 || len(q.waits) != 5 || q.polled != 0 {
			t.Errorf("queue figures %+v: want 5 joined and admitted after waiting, none polling", q)
		}
		// Two estimates given on joining (4 and 5 s for numbers 4 and 5,
		// the front at 0), three read after the opening by those in the
		// pre-queue.
		if len(q.estimates) != 2 || len(q.preEstimates) != 3 {
			t.Errorf("%d estimates on joining, %d after the opening: want 2 and 3", len(q.estimates), len(q.preEstimates))
		}
		for _, e := range q.estimates {
			if e.eta != 4*time.Second && e.eta != 5*time.Second || e.waited <= 0 {
				t.Errorf("estimate %+v: want eta_s 4 or 5 s and a wait", e)
			}
		}
		// A socket for each, and for each in the pre-queue one more after
		// the opening, unless the status read then already said admitted.
		if s := c.queueSockets; s.ok < 5 || s.ok > 8 || total(s.failed) != 0 {
			t.Errorf("queue sockets: %d opened, %d failed; want the 5 people's and up to 3 opened again", s.ok, total(s.failed))
		}
	})

	t.Run("the socket refused: polling", func(t *testing.T) {
		r := newRoom(t)
		r.refuse = true
		r.step(true, 0)
		c := newWaitCrowd(r)
		out := waiters(c, 1)
		eventually(t, "the person polling", func() bool {
			c.queue.mu.Lock()
			defer c.queue.mu.Unlock()
			return c.queue.polled == 1
		})
		r.step(true, 1)
		if o := <-out; o != booked {
			t.Errorf("the person: %s, want admitted", outcomeNames[o])
		}
		if s := c.queueSockets; s.ok != 0 || s.failed["HTTP 503"] != brokenSockets {
			t.Errorf("queue sockets: %d opened, failed %v; want %d refused with 503", s.ok, s.failed, brokenSockets)
		}
	})

	t.Run("the room turned off", func(t *testing.T) {
		r := newRoom(t)
		c := newWaitCrowd(r)
		out := waiters(c, 2)
		eventually(t, "two in the pre-queue", queued(r, 2))
		r.mu.Lock()
		r.off = true
		r.mu.Unlock()
		r.step(false, 0)
		for range 2 {
			if o := <-out; o != booked {
				t.Errorf("a person: %s, want admitted", outcomeNames[o])
			}
		}
	})

	t.Run("the seats gone while waiting", func(t *testing.T) {
		r := newRoom(t)
		r.step(true, 0)
		c := newWaitCrowd(r)
		out := waiters(c, 2)
		eventually(t, "two waiting", queued(r, 2))
		c.seatsGone()
		for range 2 {
			if o := <-out; o != goneWaiting {
				t.Errorf("a person: %s, want %s", outcomeNames[o], outcomeNames[goneWaiting])
			}
		}
	})
}
