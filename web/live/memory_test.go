package live_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"
)

// pageSeatStatus reads a seat's status off a show page or seat map fragment.
func pageSeatStatus(t *testing.T, page []byte, seat string) string {
	t.Helper()
	m := regexp.MustCompile(`id="seat-` + seat + `"[^>]*data-status="([a-z]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no seat %s on the page", seat)
	}
	return string(m[1])
}

// get fetches path as a guest, asking for gzip or not, and returns the
// body as sent (gzip) and decoded.
func get(t *testing.T, e *webtest.Env, path string, gz bool) (sent, body []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.Srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := e.HTTPClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sent, err = io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	if enc := resp.Header.Get("Content-Encoding"); gz != (enc == "gzip") {
		t.Fatalf("GET %s asking for gzip %v: Content-Encoding %q", path, gz, enc)
	}
	if !gz {
		return sent, sent
	}
	r, err := gzip.NewReader(bytes.NewReader(sent))
	if err != nil {
		t.Fatal(err)
	}
	r.Multistream(false) // as browsers read it
	if body, err = io.ReadAll(r); err != nil {
		t.Fatalf("GET %s: the gzip answer does not decode: %v", path, err)
	}
	return sent, body
}

// waitMapSays waits until the seat map JSON, read from the instance's map
// in memory, says each seat of want is in its state.
func waitMapSays(t *testing.T, e *webtest.Env, want map[string]string) {
	t.Helper()
	deadline := time.Now().Add(liveWithin)
	for {
		status, _ := e.Guest().SeatStatus(t)
		ok := true
		for id, st := range want {
			ok = ok && status[id] == st
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the seat map in memory still says %v after %v, want %v", status, liveWithin, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// keyField is what differs between two renderings of one show page for a
// guest without cookies: the hold form's key and the CSRF token.
var keyField = regexp.MustCompile(`name="key" value="[^"]*"|[A-Za-z0-9_-]{43}`)

func TestPagesFromMemory(t *testing.T) {
	e, hub := newLiveEnv(t)
	w := watch(e, t, "guest", e.Srv.URL, e.Show, nil)
	w.waitFor("the first message", liveWithin, func(w *watcher) bool { return w.messages > 0 })

	for i := range 4 {
		seat := fmt.Sprintf("E%d", i+1)
		e.FixtureUser(t).MustHold(t, seat)
		w.waitSeat(seat, "held")
		// Delivered to a socket: every read from now on shows it.
		for _, path := range []string{e.ShowPath(), e.ShowPath() + "/seatmap"} {
			sent, page := get(t, e, path, true)
			if got := pageSeatStatus(t, page, seat); got != "held" {
				t.Fatalf("%s read after the hold of %s reached a socket shows it %q", path, seat, got)
			}
			_, plain := get(t, e, path, false)
			if !bytes.Equal(keyField.ReplaceAll(page, nil), keyField.ReplaceAll(plain, nil)) {
				t.Fatalf("%s: gzipped and plain answers differ", path)
			}
			if len(sent) >= len(plain)/4 {
				t.Fatalf("%s: %d bytes gzipped of %d", path, len(sent), len(plain))
			}
		}
		if status, _ := e.Guest().SeatStatus(t); status[seat] != "HELD" {
			t.Fatalf("the seat map JSON read after the hold of %s reached a socket says %s", seat, status[seat])
		}
	}
	if n := hub.Followed(); n != 1 {
		t.Fatalf("%d shows' maps in memory, want the 1 viewed", n)
	}
}
