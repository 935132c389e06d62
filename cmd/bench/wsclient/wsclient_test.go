package wsclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/cmd/bench/stream"
	"github.com/marquee-tickets/marquee/cmd/bench/wsclient"
)

func TestScanSeats(t *testing.T) {
	fragment := `<div hx-swap-oob="true"><button id="seat-A1" class="seat" data-seat="A1" aria-pressed="false" data-status="held">1</button>` +
		`<button id="seat-B10" data-seat="B10" data-status="available" data-price="250">10</button>` +
		`<button data-seat="C1" data-status="mine"></button><button data-seat="D1">no status</button>`
	var got []string
	wsclient.ScanSeats([]byte(fragment), func(seat, status string) { got = append(got, seat+"="+status) })
	if want := "A1=held B10=available C1=mine"; strings.Join(got, " ") != want {
		t.Errorf("ScanSeats = %v, want %s", got, want)
	}
	for _, broken := range []string{``, `data-seat="A1`, `data-seat="A1" data-status="held`, `no seats at all`} {
		wsclient.ScanSeats([]byte(broken), func(seat, status string) { t.Errorf("ScanSeats(%q) found %s=%s", broken, seat, status) })
	}
}

func TestClient(t *testing.T) {
	// The server sends the whole map, two updates, and then, for the
	// dropped client, closes the connection as a slow viewer is closed.
	messages := []string{
		`<div id="seatmap"><button data-seat="A1" data-status="available"></button></div>`,
		`<button data-seat="A1" data-status="held"></button>`,
		`<button data-seat="A2" data-status="held"></button>`,
	}
	var mu sync.Mutex
	var origins []string
	readAll := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		origins = append(origins, r.Header.Get("Origin"))
		mu.Unlock()
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ctx := r.Context()
		for _, m := range messages {
			if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
				t.Errorf("%s: write %.40q: %v", r.URL.Path, m, err)
				c.CloseNow()
				return
			}
		}
		if r.URL.Path == "/shows/2/live" {
			c.Close(websocket.StatusPolicyViolation, "too slow")
			return
		}
		// The client answers a ping only once it has read what came
		// before it.
		ctx = c.CloseRead(ctx)
		if err := c.Ping(ctx); err == nil {
			close(readAll)
		}
		<-ctx.Done()
	}))
	t.Cleanup(srv.Close)
	st, err := stream.New(nil, 1, 1, 2, []seed.User{{ID: "u"}}, 1, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var readers sync.WaitGroup
	dial := func(show int64) *wsclient.Client {
		t.Helper()
		c, err := wsclient.Dial(context.Background(), srv.URL, srv.Client(), show, st.NewReceiver(), &readers)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-c.First():
		case <-time.After(time.Minute):
			t.Fatal("no first message in a minute")
		}
		return c
	}
	kept, dropped := dial(1), dial(2)
	mu.Lock()
	if len(origins) != 2 || origins[0] != srv.URL || origins[1] != srv.URL {
		t.Errorf("Origins %q, want the site's %q", origins, srv.URL)
	}
	mu.Unlock()
	// The dropped one's reader ends by itself; the kept one's once it has
	// read everything and is closed.
	select {
	case <-readAll:
	case <-time.After(time.Minute):
		t.Fatal("the kept client did not answer a ping in a minute")
	}
	kept.Close()
	readers.Wait()
	if kept.Dropped() || kept.Err() != nil {
		t.Errorf("a client we closed reads as dropped (%v)", kept.Err())
	}
	if !dropped.Dropped() || dropped.Err() == nil || !strings.Contains(dropped.Err().Error(), "too slow") {
		t.Errorf("the closed client: dropped %v, err %v; want dropped with the server's reason", dropped.Dropped(), dropped.Err())
	}
	for _, c := range []*wsclient.Client{kept, dropped} {
		// Updates are counted after the first message, bytes of all three.
		if want := len(messages[0] + messages[1] + messages[2]); c.Receiver().Msgs != 2 || c.Bytes() != int64(want) {
			t.Errorf("messages %d, bytes %d; want 2 updates, %d bytes of 3 messages", c.Receiver().Msgs, c.Bytes(), want)
		}
	}
}
