package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestAgainstTheAPI drives the real routes (web.New, as the HTTP hold cells
// serve them) on a seeded database.
func TestAgainstTheAPI(t *testing.T) {
	ctx := context.Background()
	store := pgtest.NewStore(t, 4)
	w, err := seed.Seed(ctx, store, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	srv.Config.Handler = appserver.Handler(store, srv.URL, 5*time.Minute, slog.New(slog.DiscardHandler))

	a, err := apiclient.Login(ctx, srv.URL, appserver.SessionCookie, w.Users[0].Email, seed.Password)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := apiclient.Login(ctx, srv.URL, appserver.SessionCookie, w.Users[1].Email, seed.Password)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !strings.HasPrefix(a.Cookie(), appserver.SessionCookie+"=") || a.Cookie() == b.Cookie() {
		t.Fatalf("cookies %q and %q: want one session each", a.Cookie(), b.Cookie())
	}

	t.Run("a hold wins, the same seats lose for another user, a release frees them", func(t *testing.T) {
		seats := []string{"A1", "A2"}
		id, err := a.Hold(w.HotShow, seats, "a-1")
		if err != nil || id == "" {
			t.Fatalf("Hold = %q, %v; want a hold", id, err)
		}
		if _, err := b.Hold(w.HotShow, []string{"A2", "A3"}, "b-1"); !errors.Is(err, apiclient.ErrSeatsUnavailable) {
			t.Errorf("Hold of a taken seat = %v, want ErrSeatsUnavailable", err)
		}
		held, err := store.SeatStates(ctx, w.HotShow, seats)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range held {
			if s.Status != booking.SeatHeld || s.HolderID != w.Users[0].ID {
				t.Errorf("seat %s is %s by %q, want held by the first user", s.ID, s.Status, s.HolderID)
			}
		}
		if err := a.Release(id); err != nil {
			t.Fatal(err)
		}
		id2, err := b.Hold(w.HotShow, []string{"A2", "A3"}, "b-2")
		if err != nil {
			t.Fatalf("Hold after the release = %v", err)
		}
		if err := b.Release(id2); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a replayed key is not counted as a new hold", func(t *testing.T) {
		// The server answers a replay 200 with the same hold; a benchmark
		// that counted it would count one win twice.
		id, err := a.Hold(w.ManyShows[0], []string{"B1", "B2"}, "a-2")
		if err != nil {
			t.Fatal(err)
		}
		if again, err := a.Hold(w.ManyShows[0], []string{"B1", "B2"}, "a-2"); err == nil || !strings.Contains(err.Error(), "hold: 200") || !strings.Contains(err.Error(), id) {
			t.Errorf("replay = %q, %v; want an error naming the 200 and the hold", again, err)
		}
		if err := a.Release(id); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("errors name the answer", func(t *testing.T) {
		if _, err := a.Hold(w.HotShow, []string{"Z99"}, "a-3"); err == nil || errors.Is(err, apiclient.ErrSeatsUnavailable) || !strings.Contains(err.Error(), "hold: 4") {
			t.Errorf("Hold of an unknown seat = %v, want a 4xx error that is not a lost race", err)
		}
		if err := a.Release("00000000-0000-0000-0000-000000000000"); err == nil || !strings.Contains(err.Error(), "release: 404") {
			t.Errorf("Release of an unknown hold = %v, want release: 404", err)
		}
		if _, err := apiclient.Login(ctx, srv.URL, appserver.SessionCookie, w.Users[0].Email, "wrong"); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("Login with a wrong password = %v, want a 401", err)
		}
		if _, err := apiclient.Login(ctx, srv.URL, "no_such_cookie", w.Users[0].Email, seed.Password); err == nil || !strings.Contains(err.Error(), "no session cookie") {
			t.Errorf("Login looking for another cookie = %v, want no session cookie", err)
		}
	})
	// Two logins that kept their connections, and two failed ones (the
	// wrong password, the wrong cookie), each on its own: one connection
	// per Login however many requests it carried.
	if got := conns.Load(); got != 4 {
		t.Errorf("the server saw %d connections, want 4", got)
	}
	pgtest.CheckInvariants(t, store)
}

func TestAnswerThatClosesTheConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		if _, err := w.Write([]byte(`{"ok":true}`)); err != nil {
			t.Errorf("%s: write the answer: %v", r.URL.Path, err)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.Dial(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		if a, err := c.Do(http.MethodGet, "/", "", nil); err != nil || a.StatusCode != http.StatusOK || string(a.Body) != `{"ok":true}` {
			t.Fatalf("Do = %+v, %v", a, err)
		}
	}
	if a, err := c.Do(http.MethodGet, "/close", "", nil); !errors.Is(err, apiclient.ErrClosed) || string(a.Body) != `{"ok":true}` {
		t.Errorf("Do of an answer with Connection: close = %q, %v; want the body and ErrClosed", a.Body, err)
	}
}

func TestSend(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
			return
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read the body: %v", err)
		}
		fmt.Fprintf(w, "%s %s cookie=%q sig=%q body=%q", r.Method, r.URL.Path, r.Header.Get("Cookie"), r.Header.Get("Payment-Signature"), b)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c, err := apiclient.Dial(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetCookie("marquee_session=abc")
	a, err := c.Send(http.MethodPost, "/payments/webhook", http.Header{"Payment-Signature": {"t=1,v1=00"}}, []byte(`{"x":1}`))
	if want := `POST /payments/webhook cookie="marquee_session=abc" sig="t=1,v1=00" body="{\"x\":1}"`; err != nil || string(a.Body) != want {
		t.Errorf("Send = %q, %v; want %q", a.Body, err, want)
	}
	// The same connection carries the next request, without a body.
	if a, err := c.Send(http.MethodGet, "/page", nil, nil); err != nil || !strings.HasPrefix(string(a.Body), `GET /page cookie="marquee_session=abc" sig="" body=""`) {
		t.Errorf("a second Send = %q, %v", a.Body, err)
	}
	// Deadline bounds a request: an answer that does not come is a timeout.
	c.Deadline = 50 * time.Millisecond
	var ne net.Error
	if _, err := c.Send(http.MethodGet, "/slow", nil, nil); !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("Send with no answer within the deadline = %v, want a timeout", err)
	}
}

func TestBearer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := w.Write([]byte(r.Header.Get("Authorization"))); err != nil {
			t.Errorf("write the answer: %v", err)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.Dial(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if a, err := c.Do(http.MethodGet, "/", "", nil); err != nil || len(a.Body) != 0 {
		t.Errorf("before SetBearer the server saw Authorization %q (%v), want none", a.Body, err)
	}
	c.SetBearer("t0ken")
	for range 2 { // on every request from then on
		if a, err := c.Do(http.MethodGet, "/", "", nil); err != nil || string(a.Body) != "Bearer t0ken" {
			t.Errorf("after SetBearer the server saw Authorization %q (%v), want Bearer t0ken", a.Body, err)
		}
	}
}
