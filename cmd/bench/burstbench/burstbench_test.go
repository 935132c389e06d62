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
// seat, in the four cells: the waiting room off and on (opening 200 ms
// after the first arrival), seats picked by hand and best available.
// Whatever the machine's speed, every person ends one way, no seat is sold
// twice, the people were told of exactly the bookings the database holds,
// and the show sells out unless everyone left without seats lost their
// picks three times (by hand; the server picking, nobody collides); with
// the room on, everyone queued, and those not admitted left once the
// seats were gone.
func TestRun(t *testing.T) {
	ctx := context.Background()
	const people, pairs = 14, 10
	// The program's pool and the child's.
	pgtest.Reserve(t, 2+appserver.ChildPoolSize())
	cfg := Config{
		People: []int{people}, Window: 500 * time.Millisecond,
		Rooms: []bool{false, true}, Picks: []Pick{ByHand, BestAvailable}, Think: [2]time.Duration{0, 20 * time.Millisecond},
		Room: RoomSettings{AdmitPerMinute: 600, MaxActive: 300, OpensAfter: 200 * time.Millisecond},
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
		"- the waiting room, where on: 600 admitted a minute, at most 300 shoppers active at once, opening 200ms after the first arrival",
		"\n## The waiting room\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(out)
	}
	for _, room := range []bool{false, true} {
		for _, pick := range []Pick{ByHand, BestAvailable} {
			spec := cellSpec{people: people, room: room, pick: pick}
			name := spec.String()
			i := strings.Index(out, "\n## "+name+", within 500ms\n")
			if i < 0 {
				t.Fatalf("no section for %s\n%s", name, out)
			}
			sec := out[i+1:]
			if j := strings.Index(sec, "\n## "); j >= 0 {
				sec = sec[:j]
			}
			t.Run(name, func(t *testing.T) { checkCell(t, out, sec, spec, pairs) })
		}
	}
}

// checkCell checks one cell of TestRun: its section sec of the report out.
func checkCell(t *testing.T, out, sec string, spec cellSpec, pairs int) {
	name, people := spec.String(), spec.people
	for _, want := range []string{
		fmt.Sprintf("| all (every person accounted for) | %d |\n", people),
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
	// Those without seats: with the room on, some left it once the seats
	// were gone.
	left := ended[outcomeNames[goneWaiting]]
	if spec.pick == BestAvailable {
		// The server picks: nobody loses a race, and those after the
		// last pair hear that too few seats are left.
		if !soldOut || ended[outcomeNames[noSeats]]+left != people-pairs {
			t.Errorf("best available: sold out %v, %d told too few seats were left, %d left waiting; want sold out and %d in all\n%s",
				soldOut, ended[outcomeNames[noSeats]], left, people-pairs, sec)
		}
	} else if lost := ended[outcomeNames[lostThrice]]; !soldOut && lost+left+ended[outcomeNames[noPair]] != people-told {
		t.Errorf("not sold out, yet %d of the %d people without seats did not lose their picks 3 times\n%s", people-told-lost, people-told, sec)
	}
	if !spec.room && left != 0 {
		t.Errorf("%d people left a waiting room that was off\n%s", left, sec)
	}
	// Everyone admitted saw the page and had a socket.
	if ended[outcomeNames[noPage]] != 0 {
		t.Errorf("%d people never saw the page\n%s", ended[outcomeNames[noPage]], sec)
	}
	if want := fmt.Sprintf("Live seat map: %d websockets opened, 0 failed", people-left); !strings.Contains(sec, want) {
		t.Errorf("the section lacks %q", want)
	}
	// The summary's row agrees: the seats left, the people booked, nothing
	// sold twice; with the room off, nothing implied.
	row := "| " + name + " | "
	i := strings.Index(out, row)
	if i < 0 {
		t.Fatalf("no summary row\n%s", out)
	}
	f := strings.Split(strings.Trim(out[i:i+strings.Index(out[i:], "\n")], "| "), " | ")
	if len(f) != 16 || (f[2] == "-") == spec.room || f[3] != strconv.Itoa(free) || f[4] != strconv.Itoa(told) || f[8] != "0" || f[9] != "hold" {
		t.Errorf("the summary's row %q: want %d seats left, %d booked, nothing sold twice", f, free, told)
	}
	// The targets: with the room off two, with it on eight; nothing sold
	// twice is met either way.
	targets := 2
	if spec.room {
		targets = 8
	}
	if i := strings.Index(out, "\n**"+name+"**: "); i < 0 || !strings.Contains(out[i:], fmt.Sprintf(" of %d met", targets)) ||
		!strings.Contains(out[i:], "- seats sold twice: 0 (target 0): met\n") {
		t.Errorf("no targets for %s\n%s", name, out)
	}
	if !spec.room {
		return
	}
	// The waiting room: everyone joined, the admitted waited first (the
	// room opened after the first arrival), the rest left when the seats
	// were gone; the fairness and the admin's view are reported.
	var joined, atOnce, admitted int
	line := sec[strings.Index(sec, "\nWaiting room: ")+1:]
	line = line[strings.Index(line, "\n")+1:]
	if _, err := fmt.Sscanf(line, "- %d joined: %d admitted at once, %d after waiting", &joined, &atOnce, &admitted); err != nil {
		t.Fatalf("the waiting room's line: %v\n%s", err, sec)
	}
	if joined != people || atOnce != 0 || admitted+left != people {
		t.Errorf("%d joined, %d admitted at once, %d after waiting, %d left: want all %d joined, admitted after waiting or left\n%s",
			joined, atOnce, admitted, left, people, sec)
	}
	for _, want := range []string{
		"\nWaiting room: 600 a minute, at most 300 active, opening 0.2 s after the first arrival.\n",
		"- fairness: tau-b ",
		"- the admin's view, read ",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("the section lacks %q", want)
		}
	}
}
