package livebench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/holdbench"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// TestMain lets the test binary be the fan-out's app server, as the
// benchmark binary is (appserver.StartChild runs it with -live-serve).
func TestMain(m *testing.M) {
	appserver.ServeIfChild()
	pgtest.Main(m)
}

// TestRun is `go run ./cmd/bench -live` in miniature: no announcements
// against the design, then the design again, on one workload, the quiet
// latency of both ways and a fan-out to three websockets.
func TestRun(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	// Its own pool, and the child servers' (one at a time).
	pgtest.Reserve(t, 8+appserver.ChildPoolSize())
	pool, err := postgres.Connect(ctx, dbURL, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	cfg := holdbench.Config{Duration: 300 * time.Millisecond, Warmup: 100 * time.Millisecond, PoolSize: 8, HoldTTL: time.Minute}
	lc := Config{
		Clients: []int{4}, Listeners: 2, Subscribers: []int{1, 3}, Rate: 20, Stream: time.Second, Rounds: 2,
		Ways: map[string]bool{"none": true, "design": true}, Workloads: map[string]bool{"many": true},
	}
	var sb strings.Builder
	err = Run(ctx, cfg, lc, dbURL, pool, &sb, func(format string, args ...any) { t.Logf(format, args...) })
	if err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		"# Marquee live seat map benchmark\n",
		"| many shows (64) | 4 | 1 | none (seat_events off) | ", "| many shows (64) | 4 | 1 | design: ",
		"| many shows (64) | 4 | 2 | none (seat_events off) | ", "| many shows (64) | 4 | 2 | design: ",
		"0 cells not drained by the notifier within 5 s", "Observer changes never\nreceived (design and naive): 0.",
		"| design: seat_events + notifier 50 ms, 1 listener | ", "| naive pg_notify, 1 listener | ",
		"\n| 3 | ", "Invariants I1-I5 hold after the run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q\n%s", want, out)
		}
	}
	// The none cells ran without announcements: no observer latency, no
	// backlog; the design's cells had both.
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, " | ")
		switch {
		case strings.HasPrefix(line, "| many shows (64) | 4 |") && strings.Contains(line, "| none "):
			if len(f) < 12 || f[10] != "-" || f[11] != "-" {
				t.Errorf("a none cell with announcements: %s", line)
			}
		case strings.HasPrefix(line, "| many shows (64) | 4 |") && strings.Contains(line, "| design: "):
			if len(f) < 12 || f[10] == "-" || f[11] == "-" || f[9] != "0" {
				t.Errorf("a design cell without announcements, or with errors: %s", line)
			}
		}
	}
	// Run leaves the hold path as migrated.
	if n := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM pg_proc WHERE proname = 'hold_seats' AND proconfig IS NOT NULL`); n != 1 {
		t.Errorf("after Run hold_seats is not the latest (%d with their SET clause)", n)
	}
}
