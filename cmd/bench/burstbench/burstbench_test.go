package burstbench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// TestMain lets the test binary be the app's child process, as the
// benchmark binary is (appserver.StartChild runs it with -live-serve).
func TestMain(m *testing.M) {
	appserver.ServeIfChild()
	pgtest.Main(m)
}

// TestRun is `go run ./cmd/bench -burst` in miniature: 14 people within
// half a second at a show of 20 seats (two rows of 10), more than it can
// seat, so it sells out and some leave with nothing. Whatever the machine's
// speed, every person ends one way, the 20 seats are booked once each, and
// the people were told of exactly the bookings the database holds.
func TestRun(t *testing.T) {
	ctx := context.Background()
	const people = 14
	// The program's pool and the child's.
	pgtest.Reserve(t, 2+appserver.ChildPoolSize())
	cfg := Config{
		People: []int{people}, Window: 500 * time.Millisecond,
		Hall: seed.Grid(2, 10), HallName: "two rows of 10",
		WithDatabase: func(cell func(string, *pgxpool.Pool) error) error {
			dbURL := pgtest.NewDatabase(t)
			pool, err := postgres.Connect(ctx, dbURL, 2)
			if err != nil {
				return err
			}
			defer pool.Close()
			return cell(dbURL, pool)
		},
	}
	var sb strings.Builder
	if err := Run(ctx, cfg, &sb, t.Logf); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	t.Log(out)
	for _, want := range []string{
		"# Marquee burst benchmark\n",
		"- the show: two rows of 10, on a fresh database for each cell\n",
		"\n## 14 people within 500ms\n",
		"- seats by SQL after the burst: 20 booked, 0 held, 0 available; the people were told of 10 bookings (20 seats)\n",
		"| booked two seats | 10 |\n",
		fmt.Sprintf("| all (every person accounted for) | %d |\n", people),
		"Seats sold twice (in two live holds or bookings, by SQL): 0. booking_invariant_violations(): hold.",
		"- **sold out ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// The summary's row: sold out, no seat left, 10 booked, everyone saw
	// the page and had a socket, nothing sold twice.
	var row []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, fmt.Sprintf("| %d | ", people)) {
			row = strings.Split(strings.Trim(line, "| "), " | ")
		}
	}
	if len(row) != 17 {
		t.Fatalf("the summary's row: %q", row)
	}
	if !strings.HasSuffix(row[1], " s") || row[2] != "0" || row[3] != "10" || row[4] != "0" || row[11] != fmt.Sprintf("%d / 0", people) || row[12] != "0" || row[13] != "hold" {
		t.Errorf("the summary's row %q: want sold out, 0 left, 10 booked, everyone on the page with a socket, nothing sold twice", row)
	}
}
