package holdbench_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/holdbench"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

func status(t *testing.T) func(string, ...any) {
	return func(format string, args ...any) { t.Logf(format, args...) }
}

// TestHolders: every holder wins free seats, loses taken ones with
// ErrConflict, and releases, on the same database.
func TestHolders(t *testing.T) {
	ctx := context.Background()
	store := pgtest.NewStore(t, 8)
	w, err := seed.Seed(ctx, store, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	base, stop, err := appserver.Start(store, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	web, err := holdbench.NewHTTP(ctx, base, appserver.SessionCookie, w.Users)
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	clients := holdbench.Clients(w.Users)
	for _, h := range []holdbench.Holder{
		&holdbench.Naive{Pool: store.Pool(), Store: store, TTL: time.Minute},
		&holdbench.SQL{Store: store, TTL: time.Minute},
		web,
	} {
		t.Run(h.Name(), func(t *testing.T) {
			a, b := clients[0], clients[1]
			id, err := h.Hold(ctx, a, w.HotShow, []string{"A2", "A1"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := store.Hold(ctx, a.ID, id)
			if err != nil || got.State != booking.HoldHeld || strings.Join(got.Seats, ",") != "A1,A2" {
				t.Fatalf("the hold is %+v, %v; want A1 and A2 held", got, err)
			}
			if _, err := h.Hold(ctx, b, w.HotShow, []string{"A2", "A3"}); !errors.Is(err, holdbench.ErrConflict) {
				t.Errorf("a hold of a taken seat = %v, want ErrConflict", err)
			}
			if err := h.Release(ctx, a, id); err != nil {
				t.Fatal(err)
			}
			id, err = h.Hold(ctx, b, w.HotShow, []string{"A2", "A3"})
			if err != nil {
				t.Fatalf("a hold after the release = %v", err)
			}
			if err := h.Release(ctx, b, id); err != nil {
				t.Fatal(err)
			}
			if _, err := h.Hold(ctx, a, w.HotShow, []string{"Z1"}); err == nil || errors.Is(err, holdbench.ErrConflict) {
				t.Errorf("a hold of a seat the show lacks = %v, want an error that is not a lost race", err)
			}
			pgtest.CheckInvariants(t, store)
		})
	}
	if k1, k2 := clients[0].NextKey(), clients[0].NextKey(); k1 == k2 || !strings.HasPrefix(k1, "bench-0-") {
		t.Errorf("keys %q, %q: want fresh ones of client 0", k1, k2)
	}
}

// TestRun is `go run ./cmd/bench` in miniature: every cell and the
// stampede of every holder, the report and the invariants.
func TestRun(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	pgtest.Reserve(t, 8)
	pool, err := postgres.Connect(ctx, dbURL, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	cfg := holdbench.Config{
		Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond, Clients: []int{1, 4},
		StampedeClients: 8, StampedeRounds: 2, PoolSize: 8, HoldTTL: time.Minute, Rounds: 2,
	}
	var sb strings.Builder
	if err := holdbench.Run(ctx, cfg, dbURL, pool, &sb, status(t)); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	// 2 workloads x 2 client counts x 3 holders x 2 rounds.
	if n := strings.Count(out, "\n| 1 | ") + strings.Count(out, "\n| 2 | "); n != 24 {
		t.Errorf("%d cell rows, want 24:\n%s", n, out)
	}
	for _, want := range []string{
		"# Marquee hold benchmark\n", "- machine: ", "- PostgreSQL ", "- pool: 8 connections",
		"- each cell: 200ms measured after a 50ms warm-up; clients [1 4]",
		"| 1 | hot show (2 rows) | 4 | naive |", "| 2 | many shows (64) | 1 | HTTP |",
		"| hot show (2 rows) | 4 | ", "8 clients released together by a barrier, 2 rounds",
		"| naive | 16 | ", "| SQL | 16 | ", "| HTTP | 16 | ",
		"Invariants I1-I5 hold after the run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// No hold errors: the errors column of every cell is 0.
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Split(line, " | "); len(f) == 11 && (strings.HasPrefix(line, "| 1 |") || strings.HasPrefix(line, "| 2 |")) && f[9] != "0" {
			t.Errorf("a cell with errors: %s", line)
		}
	}
}
