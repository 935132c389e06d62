package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/postgres"
)

var ctx = context.Background()

// Each test's database is a migrated copy of the template, its own.
func TestNewDatabase(t *testing.T) {
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("two tests got one database %s", a)
	}
	pool := func(url string) *pgxpool.Pool {
		t.Helper()
		p, err := postgres.Connect(ctx, url, 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		// Ready: every migration applied, none dirty.
		if err := postgres.NewStore(p).Ready(ctx); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ca, cb := pool(a), pool(b)
	if _, err := ca.Exec(ctx, `INSERT INTO cities (name, slug) VALUES ('Only Here', 'only-here')`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := cb.QueryRow(ctx, `SELECT count(*) FROM cities`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the other database has %d cities (%v), want 0", n, err)
	}
	if c, err := pgx.Connect(ctx, databaseURL(server.template)); err == nil {
		c.Close(ctx)
		t.Fatal("connected to the template: a copy would fail while the connection lasts")
	}
}

// The helper process of TestLeftovers: it makes a database and then ends
// as TEST_PGTEST_END says, printing the database's name.
func TestHelperProcess(t *testing.T) {
	end := os.Getenv("TEST_PGTEST_END")
	if end == "" {
		t.Skip("run by TestLeftovers")
	}
	url := NewDatabase(t)
	fmt.Println("database", regexp.MustCompile(`marquee_test_[0-9a-f_]+`).FindString(url))
	if end == "crash" {
		// No cleanup and no Main, as when a test process is killed.
		p, err := os.FindProcess(os.Getpid())
		if err == nil {
			err = p.Kill()
		}
		t.Fatalf("kill the helper process: %v", err)
	}
}

// A test process that ends through Main leaves no database behind; one that
// crashes leaves its databases to the next process's sweep, which drops
// them, and never a live process's.
func TestLeftovers(t *testing.T) {
	NewDatabase(t) // this process's own, which the sweep must leave alone
	run := func(end string) (token string) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.v")
		cmd.Env = append(os.Environ(), "TEST_PGTEST_END="+end)
		out, err := cmd.CombinedOutput()
		if (err != nil) != (end == "crash") {
			t.Fatalf("helper process (%s): %v\n%s", end, err, out)
		}
		m := regexp.MustCompile(`database marquee_test_([0-9a-f]{8})_1`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("helper process (%s) named no database:\n%s", end, out)
		}
		return string(m[1])
	}
	left := func(token string) []string {
		t.Helper()
		byToken, err := testDatabases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		names := byToken[parseToken(t, token)]
		slices.Sort(names)
		return names
	}

	t.Run("Main drops the template and the copies", func(t *testing.T) {
		token := run("normal")
		if names := left(token); len(names) > 0 {
			t.Fatalf("a process that ended through Main left %v", names)
		}
	})
	t.Run("a crashed process's databases are swept", func(t *testing.T) {
		token := run("crash")
		want := []string{"marquee_test_" + token + "_1", "marquee_tmpl_" + token}
		if names := left(token); !slices.Equal(names, want) {
			t.Fatalf("the crashed process left %v, want %v", names, want)
		}
		// The server ends the killed process's session, and with it the
		// lock, once it reads the closed socket.
		key := parseToken(t, token)
		deadline := time.Now().Add(10 * time.Second)
		for {
			held, err := adminList[bool](ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
				 WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2)`, lockClass, int64(key))
			if err != nil {
				t.Fatal(err)
			}
			if !held[0] {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the killed process's lock is still held after 10 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
		dropped, err := sweep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(dropped, want[0]) || !slices.Contains(dropped, want[1]) {
			t.Fatalf("the sweep dropped %v, want %v among them", dropped, want)
		}
		if names := left(token); len(names) > 0 {
			t.Fatalf("after the sweep %v remain", names)
		}
		if names := left(fmt.Sprintf("%08x", server.token)); !slices.Contains(names, server.template) {
			t.Fatalf("the sweep dropped this live process's template (its databases: %v)", names)
		}
	})
}

func parseToken(t *testing.T, token string) uint32 {
	t.Helper()
	var key uint32
	if _, err := fmt.Sscanf(token, "%08x", &key); err != nil {
		t.Fatal(err)
	}
	return key
}
