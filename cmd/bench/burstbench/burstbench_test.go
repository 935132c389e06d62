package burstbench

import (
	"context"
	"fmt"
	"strconv"
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
// seat. Whatever the machine's speed, every person ends one way, no seat is
// sold twice, the people were told of exactly the bookings the database
// holds, and the show sells out unless everyone left without seats lost
// their picks three times.
func TestRun(t *testing.T) {
	ctx := context.Background()
	const people, pairs = 14, 10
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
	for _, want := range []string{
		"# Marquee burst benchmark\n",
		"- the show: two rows of 10, on a fresh database for each cell\n",
		"\n## 14 people within 500ms\n",
		fmt.Sprintf("| all (every person accounted for) | %d |\n", people),
		"Seats sold twice (in two live holds or bookings, by SQL): 0. booking_invariant_violations(): hold.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(out)
	}
	// What became of them, and the seats.
	ended := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.Trim(line, "| "), " | ")
		if n, err := strconv.Atoi(f[len(f)-1]); err == nil && len(f) == 2 {
			ended[f[0]] = n
		}
	}
	told := ended[outcomeNames[booked]]
	var sold, held, free, toldToo int
	if _, err := fmt.Sscanf(out[strings.Index(out, "- seats by SQL"):], "- seats by SQL after the burst: %d booked, %d held, %d available; the people were told of %d bookings",
		&sold, &held, &free, &toldToo); err != nil {
		t.Fatalf("the seats' line: %v\n%s", err, out)
	}
	if told < 1 || toldToo != told || sold != 2*told || held != 0 || sold+free != 2*pairs {
		t.Errorf("%d booked, %d held, %d free by SQL; the people were told of %d (%d) bookings: want the seats of every booking told, and no other seat taken\n%s",
			sold, held, free, told, toldToo, out)
	}
	soldOut := strings.Contains(out, "- **sold out ")
	if soldOut != (told == pairs) {
		t.Errorf("the report says sold out %v with %d of %d pairs booked\n%s", soldOut, told, pairs, out)
	}
	if lost := ended[outcomeNames[lostThrice]]; !soldOut && lost != people-told {
		t.Errorf("not sold out, yet %d of the %d people without seats did not lose their picks 3 times\n%s", people-told-lost, people-told, out)
	}
	// The summary's row agrees: the seats left, the people booked, everyone
	// saw the page and had a socket.
	row := fmt.Sprintf("| %d | ", people)
	i := strings.Index(out, row)
	if i < 0 {
		t.Fatalf("no summary row\n%s", out)
	}
	f := strings.Split(strings.Trim(out[i:i+strings.Index(out[i:], "\n")], "| "), " | ")
	if len(f) != 17 || f[2] != strconv.Itoa(free) || f[3] != strconv.Itoa(told) || f[4] != "0" || f[11] != fmt.Sprintf("%d / 0", people) || f[12] != "0" || f[13] != "hold" {
		t.Errorf("the summary's row %q: want %d seats left, %d booked, everyone on the page with a socket, nothing sold twice", f, free, told)
	}
}
