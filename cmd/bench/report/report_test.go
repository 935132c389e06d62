package report_test

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestMachine(t *testing.T) {
	want := fmt.Sprintf("- machine: %d CPUs (NumCPU), GOMAXPROCS %d, %s/%s, %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	if got := report.Machine(); got != want {
		t.Errorf("Machine() = %q, want %q", got, want)
	}
}

func TestServer(t *testing.T) {
	store := pgtest.NewStore(t, 2)
	got := report.Server(context.Background(), store.Pool())
	line := regexp.MustCompile(`^- PostgreSQL \d+\.\d+\S* .*at [^ ]+:\d+ \(fsync (on|off), synchronous_commit \w+, autovacuum (on|off)\)\n$`)
	if !line.MatchString(got) {
		t.Errorf("Server() = %q, want the version, host:port and three settings", got)
	}
}

func TestInvariants(t *testing.T) {
	ctx := context.Background()
	store := pgtest.NewStore(t, 2)
	w, err := seed.Seed(ctx, store, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a clean database passes with one line", func(t *testing.T) {
		var sb strings.Builder
		if err := report.Invariants(ctx, store, &sb); err != nil {
			t.Fatal(err)
		}
		if want := "\nInvariants I1-I5 hold after the run (booking_invariant_violations() is empty).\n"; sb.String() != want {
			t.Errorf("wrote %q, want %q", sb.String(), want)
		}
	})
	t.Run("a seat held by a cancelled hold fails the run, named", func(t *testing.T) {
		res, err := store.HoldSeats(ctx, booking.HoldRequest{
			UserID: w.Users[0].ID, ShowID: w.HotShow, Seats: []string{"A1", "A2"}, TTL: time.Minute, Key: "k",
		}, seed.MaxSeatsPerHold)
		if err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, store.Pool(), `UPDATE holds SET state = 'CANCELLED', ended_at = now() WHERE id = $1`, res.Hold.ID)
		var sb strings.Builder
		err = report.Invariants(ctx, store, &sb)
		if err == nil || !strings.Contains(err.Error(), "invariant violations after the run") {
			t.Errorf("Invariants = %v, want the count of violations", err)
		}
		if !strings.HasPrefix(sb.String(), "invariant violated: I1") || !strings.Contains(sb.String(), "A1") || strings.Contains(sb.String(), "hold after the run") {
			t.Errorf("wrote %q, want each violation named and no all-clear", sb.String())
		}
	})
}
