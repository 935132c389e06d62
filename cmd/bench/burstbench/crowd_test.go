package burstbench

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
)

// TestSend is a person's request against a server that sheds load or
// drops connections: tried again after a 503's Retry-After and after no
// answer (on a new connection), at most maxRetries times, every try
// counted.
func TestSend(t *testing.T) {
	var tries atomic.Int32
	var busyFor, dropFor atomic.Int32 // tries answered 503, tries cut off
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := tries.Add(1)
		switch {
		case n <= dropFor.Load():
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			conn.Close() // no answer
		case n <= dropFor.Load()+busyFor.Load():
			w.Header().Set("Retry-After", "2")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			if _, err := w.Write([]byte(`{"error":"busy","message":"Marquee is very busy right now.","retry_after":2}`)); err != nil {
				t.Errorf("write the 503: %v", err)
			}
		default:
			if _, err := w.Write([]byte(`{"ok":true}`)); err != nil {
				t.Errorf("write the answer: %v", err)
			}
		}
	}))
	t.Cleanup(srv.Close)
	c := newCrowd(srv.URL, 1, 2, nil, nil, time.Second, 1)
	c.second = time.Millisecond
	rng := rand.New(rand.NewPCG(1, 1))
	send := func(busy, drop int32) (apiclient.Answer, bool, *tally) {
		tries.Store(0)
		busyFor.Store(busy)
		dropFor.Store(drop)
		c.routes[routeSeatMap] = newTally()
		var conn *apiclient.Conn
		defer func() {
			if conn != nil {
				conn.Close()
			}
		}()
		a, ok := c.send(context.Background(), routeSeatMap, &conn, "marquee_session=x", rng, http.MethodGet, "/", nil, nil)
		return a, ok, c.routes[routeSeatMap]
	}

	t.Run("after two 503s the third try is answered", func(t *testing.T) {
		a, ok, tl := send(2, 0)
		if !ok || a.StatusCode != http.StatusOK || tries.Load() != 3 {
			t.Errorf("send = %d, %v after %d tries; want 200 on the third", a.StatusCode, ok, tries.Load())
		}
		if tl.requests() != 3 || tl.statuses[503] != 2 || tl.codes503["busy"] != 2 || len(tl.lat503) != 2 || len(tl.lat) != 1 {
			t.Errorf("tally %+v: want 3 tries, 2 busy 503s apart from the answer", tl)
		}
	})
	t.Run("no answer twice, then one on a new connection", func(t *testing.T) {
		a, ok, tl := send(0, 2)
		if !ok || a.StatusCode != http.StatusOK || tl.transport+tl.timeouts != 2 || tl.requests() != 3 {
			t.Errorf("send = %d, %v; tally %+v: want 200 after two tries without an answer", a.StatusCode, ok, tl)
		}
	})
	t.Run("busy on every try: given up after maxRetries more", func(t *testing.T) {
		a, ok, tl := send(100, 0)
		if ok || a.StatusCode != http.StatusServiceUnavailable || tries.Load() != 1+maxRetries || tl.statuses[503] != 1+maxRetries {
			t.Errorf("send = %d, %v after %d tries: want a 503 given up on after %d", a.StatusCode, ok, tries.Load(), 1+maxRetries)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	for h, want := range map[string]time.Duration{"": 1, "0": 1, "x": 1, "3": 3, "3600": maxRetryAfter} {
		a := apiclient.Answer{Header: http.Header{}}
		if h != "" {
			a.Header.Set("Retry-After", h)
		}
		if got := retryAfter(a, time.Second); got != want*time.Second {
			t.Errorf("Retry-After %q: wait %s, want %s", h, got, want*time.Second)
		}
	}
}
