package appserver_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// TestMain lets the test binary be the child, as the benchmark binary is:
// StartChild runs os.Executable() -live-serve.
func TestMain(m *testing.M) {
	appserver.ServeIfChild()
	pgtest.Main(m)
}

func TestStart(t *testing.T) {
	ctx := context.Background()
	store := pgtest.NewStore(t, 4)
	w, err := seed.Seed(ctx, store, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	base, stop, err := appserver.Start(store, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	c, err := apiclient.Login(ctx, base, appserver.SessionCookie, w.Users[0].Email, seed.Password)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.Hold(w.HotShow, []string{"A1"}, "k")
	if err != nil {
		t.Fatal(err)
	}
	h, err := store.Hold(ctx, w.Users[0].ID, id)
	if err != nil {
		t.Fatal(err)
	}
	// The hold TTL given is the server's.
	if d := time.Until(h.ExpiresAt); d > time.Minute || d < 30*time.Second {
		t.Errorf("the hold expires in %s, want about a minute", d)
	}
	c.Close()
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := apiclient.Dial(ctx, base); err == nil {
		t.Error("the server still answers after stop")
	}
}

func TestChild(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	// Its own pool, and the child server's.
	pgtest.Reserve(t, 2+appserver.ChildPoolSize())
	pool, err := postgres.Connect(ctx, dbURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.NewStore(pool)
	w, err := seed.Seed(ctx, store, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	child, err := appserver.StartChild(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			if err := child.Stop(); err != nil {
				t.Error(err)
			}
		}
	}()
	if child.PID() == os.Getpid() || child.PID() <= 0 {
		t.Errorf("child pid %d", child.PID())
	}
	before, err := child.Stats(ctx, w.HotShow, false)
	if err != nil {
		t.Fatal(err)
	}
	if before.HeapInuse == 0 || before.RSS == 0 || before.Goroutines == 0 || before.Subscribers != 0 {
		t.Errorf("stats %+v: want memory, goroutines and no subscribers", before)
	}

	t.Run("the live seat map is served: a guest's websocket gets the map and counts", func(t *testing.T) {
		dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		conn, _, err := websocket.Dial(dctx, fmt.Sprintf("%s/shows/%d/live", child.Base, w.HotShow), &websocket.DialOptions{ //nolint:bodyclose // coder/websocket: the handshake response has no body to close
			HTTPHeader: http.Header{"Origin": []string{child.Base}},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		conn.SetReadLimit(1 << 20)
		_, first, err := conn.Read(dctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(first), `data-seat="A1"`) {
			t.Errorf("first message has no seat A1: %.200s", first)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			st, err := child.Stats(ctx, w.HotShow, false)
			if err != nil {
				t.Fatal(err)
			}
			if st.Subscribers == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d subscribers after a minute, want 1", st.Subscribers)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	t.Run("Stop ends the child", func(t *testing.T) {
		err := child.Stop()
		stopped = true
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
		if _, err := child.Stats(ctx, w.HotShow, false); err == nil {
			t.Error("the child still answers after Stop")
		}
	})
}
