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

// TestRun is `go run ./cmd/bench -burst -burst-room off` in miniature:
// 14 people within half a second at a show of 20 seats (two rows of 10),
// more than it can seat, picking their seats by hand in one cell and
// asking for the best available in the other. Whatever the machine's
// speed, every person ends one way, no seat is sold twice, the people were
// told of exactly the bookings the database holds, and the show sells out
// unless everyone left without seats lost their picks three times (by
// hand; the server picking, nobody collides).
func TestRun(t *testing.T) {
	ctx := context.Background()
	const people, pairs = 14, 10
	// The program's pool and the child's.
	pgtest.Reserve(t, 2+appserver.ChildPoolSize())
	cfg := Config{
		People: []int{people}, Window: 500 * time.Millisecond,
		Rooms: []bool{false}, Picks: []Pick{ByHand, BestAvailable}, Think: [2]time.Duration{0, 20 * time.Millisecond},
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
		"- each person thinks 0s to 20ms on the show page before holding\n",
		"\n## 14 people, room off, by hand, within 500ms\n",
		"\n## 14 people, room off, best available, within 500ms\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(out, "## The waiting room") {
		t.Error("the report has a waiting room section without a cell with the room on")
	}
	if t.Failed() {
		t.Fatal(out)
	}
	for _, pick := range []Pick{ByHand, BestAvailable} {
		name := fmt.Sprintf("%d people, room off, %s", people, pick)
		i := strings.Index(out, "\n## "+name+", within")
		if i < 0 {
			t.Fatalf("no section for %s\n%s", name, out)
		}
		sec := out[i+1:]
		if j := strings.Index(sec, "\n## "); j >= 0 {
			sec = sec[:j]
		}
		t.Run(pick.String(), func(t *testing.T) { checkCell(t, out, sec, name, pick, people, pairs) })
	}
}

// checkCell checks one cell of TestRun: its section sec of the report out.
func checkCell(t *testing.T, out, sec, name string, pick Pick, people, pairs int) {
	for _, want := range []string{
		fmt.Sprintf("| all (every person accounted for) | %d |\n", people),
		fmt.Sprintf("Live seat map: %d websockets opened, 0 failed", people),
		"Seats sold twice (in two live holds or bookings, by SQL): 0. booking_invariant_violations(): hold.",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("the section lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(sec)
	}
	// What became of them, and the seats.
	ended := map[string]int{}
	for _, line := range strings.Split(sec, "\n") {
		f := strings.Split(strings.Trim(line, "| "), " | ")
		if n, err := strconv.Atoi(f[len(f)-1]); err == nil && len(f) == 2 {
			ended[f[0]] = n
		}
	}
	told := ended[outcomeNames[booked]]
	var sold, held, free, toldToo int
	if _, err := fmt.Sscanf(sec[strings.Index(sec, "- seats by SQL"):], "- seats by SQL after the burst: %d booked, %d held, %d available; the people were told of %d bookings",
		&sold, &held, &free, &toldToo); err != nil {
		t.Fatalf("the seats' line: %v\n%s", err, sec)
	}
	if told < 1 || toldToo != told || sold != 2*told || held != 0 || sold+free != 2*pairs {
		t.Errorf("%d booked, %d held, %d free by SQL; the people were told of %d (%d) bookings: want the seats of every booking told, and no other seat taken\n%s",
			sold, held, free, told, toldToo, sec)
	}
	soldOut := strings.Contains(sec, "- **sold out after ")
	if soldOut != (told == pairs) {
		t.Errorf("the report says sold out %v with %d of %d pairs booked\n%s", soldOut, told, pairs, sec)
	}
	if pick == BestAvailable {
		// The server picks: nobody loses a race, and those after the
		// last pair hear that too few seats are left.
		if !soldOut || ended[outcomeNames[noSeats]] != people-pairs {
			t.Errorf("best available: sold out %v, %d told too few seats were left; want sold out and %d\n%s", soldOut, ended[outcomeNames[noSeats]], people-pairs, sec)
		}
	} else if lost := ended[outcomeNames[lostThrice]]; !soldOut && lost != people-told {
		t.Errorf("not sold out, yet %d of the %d people without seats did not lose their picks 3 times\n%s", people-told-lost, people-told, sec)
	}
	if ended[outcomeNames[noPage]] != 0 {
		t.Errorf("%d people never saw the page\n%s", ended[outcomeNames[noPage]], sec)
	}
	// The summary's row agrees: the seats left, the people booked, no
	// error, nothing sold twice; no room, so nothing implied.
	row := "| " + name + " | "
	i := strings.Index(out, row)
	if i < 0 {
		t.Fatalf("no summary row\n%s", out)
	}
	f := strings.Split(strings.Trim(out[i:i+strings.Index(out[i:], "\n")], "| "), " | ")
	if len(f) != 16 || f[2] != "-" || f[3] != strconv.Itoa(free) || f[4] != strconv.Itoa(told) || f[8] != "0" || f[9] != "hold" {
		t.Errorf("the summary's row %q: want %d seats left, %d booked, nothing sold twice", f, free, told)
	}
	// Room off: the targets are nothing sold twice and no 5xx but busy
	// 503s, and the report says what broke first, if anything did.
	if !strings.Contains(out, "\n**"+name+"**: ") || !strings.Contains(out, "- seats sold twice: 0 (target 0): met\n") {
		t.Errorf("no targets for %s\n%s", name, out)
	}
}
