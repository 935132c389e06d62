package peerbench

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// TestMain lets the test binary be Marquee's server, as the benchmark
// binary is (appserver.StartChild runs it with -live-serve).
func TestMain(m *testing.M) {
	appserver.ServeIfChild()
	pgtest.Main(m)
}

// The end-to-end test needs a build of overbookr's server at PeerCommit
// and its migrations: it runs when these name them and is skipped
// otherwise (docs/benchmarks.md says how to get them).
const (
	binEnv        = "MARQUEE_BENCH_PEER_BIN"
	migrationsEnv = "MARQUEE_BENCH_PEER_MIGRATIONS"
)

// TestRun is `go run ./cmd/bench -peer` in miniature: two rounds of both
// workloads at 4 clients.
func TestRun(t *testing.T) {
	bin, migrations := os.Getenv(binEnv), os.Getenv(migrationsEnv)
	if bin == "" || migrations == "" {
		t.Skipf("no build of overbookr to run: set %s to a build of %s at %.12s and %s to its migrations folder",
			binEnv, PeerCommand, PeerCommit, migrationsEnv)
	}
	version, err := CheckPeer(bin, migrations)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	// The benchmark's pools on both databases, Marquee's server's, and
	// overbookr's (pgxpool's default: the larger of 4 and the CPUs).
	pgtest.Reserve(t, 4+4+appserver.ChildPoolSize()+int32(max(4, runtime.NumCPU())))
	pool, err := postgres.Connect(ctx, dbURL, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	cfg := Config{
		Bin: bin, Migrations: migrations, Version: version, Clients: []int{4},
		Duration: 300 * time.Millisecond, Warmup: 100 * time.Millisecond, Rounds: 2, PoolSize: 4,
	}
	var sb strings.Builder
	err = Run(ctx, cfg, pgtest.ServerURL(), dbURL, pool, &sb, func(format string, args ...any) { t.Logf(format, args...) })
	if err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		"# Marquee against a naive peer (overbookr)\n",
		"- overbookr: " + PeerCommand + " at commit " + PeerCommit[:12],
		"| 1 | many shows (64) | 4 | Marquee | ", "| 1 | many shows (64) | 4 | overbookr | ",
		"| 2 | hot show (2 rows) | 4 | Marquee | ", "| 2 | hot show (2 rows) | 4 | overbookr | ",
		"\n| many shows (64) | 4 | ", "\n| hot show (2 rows) | 4 | ",
		"Invariants I1-I5 hold after the run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q\n%s", want, out)
		}
	}
	// Every cell made changes, without an error; on many shows every hold
	// won and was given back.
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, " | ")
		if len(f) != 12 || (f[3] != MarqueeName && f[3] != PeerName) {
			continue
		}
		if f[4] == "0" || f[10] != "0" {
			t.Errorf("a cell without changes or with errors: %s", line)
		}
		if strings.HasPrefix(f[1], "many shows") && f[5] != "100%" {
			t.Errorf("a many-shows cell lost a hold: %s", line)
		}
	}
	if strings.Contains(out, "\n| many shows (64) | 4 | n/a") {
		t.Errorf("no ratio for many shows:\n%s", out)
	}
}

func TestCheckPeer(t *testing.T) {
	dir := t.TempDir()
	t.Run("both needed", func(t *testing.T) {
		if _, err := CheckPeer("", dir); err == nil || !strings.Contains(err.Error(), "-peer-bin") {
			t.Errorf("CheckPeer without a build = %v, want it to ask for -peer-bin", err)
		}
	})
	t.Run("not a Go program", func(t *testing.T) {
		f := filepath.Join(dir, "script")
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := CheckPeer(f, dir); err == nil || !strings.Contains(err.Error(), "not a Go program") {
			t.Errorf("CheckPeer of a script = %v", err)
		}
	})
	t.Run("another Go program", func(t *testing.T) {
		exe, err := os.Executable() // this test binary
		if err != nil {
			t.Fatal(err)
		}
		if _, err := CheckPeer(exe, dir); err == nil || !strings.Contains(err.Error(), "not of overbookr's server") {
			t.Errorf("CheckPeer of this test = %v", err)
		}
	})
}

func TestCheckMigrations(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"none":        {},
		"one missing": {"0001_init.up.sql": {Data: []byte("CREATE TABLE users ();")}},
		"another file": {
			"0001_init.up.sql": {}, "0002_add_updated_at_column.up.sql": {}, "0003_more.up.sql": {},
		},
		"other contents": {
			"0001_init.up.sql": {Data: []byte("CREATE TABLE users ();")}, "0002_add_updated_at_column.up.sql": {},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := checkMigrations(fsys); err == nil {
				t.Error("checkMigrations = nil, want an error")
			}
		})
	}
}

func TestTail(t *testing.T) {
	tl := &tail{max: 8}
	for _, s := range []string{"abc", "defgh", "ijklmnop", "q"} {
		if n, err := tl.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := tl.String(); got != "jklmnopq" {
		t.Errorf("tail = %q, want the last 8 bytes jklmnopq", got)
	}
}

// TestReady: a connection to overbookr idle for peerIdle is replaced before
// a cell (its server closes one idle for 60 s), sending the same token.
func TestReady(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := w.Write([]byte(r.Header.Get("Authorization"))); err != nil {
			t.Errorf("write the answer: %v", err)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	ctx := context.Background()
	conn, err := apiclient.Dial(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetBearer("t0ken")
	c := &client{peer: conn, peerBase: srv.URL, peerToken: "t0ken", peerUsed: time.Now()}
	t.Cleanup(func() { c.peer.Close() })
	o := &overbookr{}

	if err := o.Ready(ctx, c); err != nil || c.peer != conn {
		t.Fatalf("Ready of a connection just used = %v, replaced %v; want it kept", err, c.peer != conn)
	}
	c.peerUsed = time.Now().Add(-peerIdle)
	if err := o.Ready(ctx, c); err != nil || c.peer == conn {
		t.Fatalf("Ready of a connection idle for %s = %v, replaced %v; want a new one", peerIdle, err, c.peer != conn)
	}
	if a, err := c.peer.Do(http.MethodGet, "/", "", nil); err != nil || string(a.Body) != "Bearer t0ken" {
		t.Errorf("the new connection sent Authorization %q (%v), want Bearer t0ken", a.Body, err)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("the server saw %d connections, want 2", n)
	}
}
