package burstbench

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
)

// madeUpCell is a cell of people at a 1,000-seat show with answers made
// up: every show page answered in 10 ms and every hold in 20 ms but for
// the slow ones given, the show sold out after soldOut (0: not).
func madeUpCell(spec cellSpec, slowPage, slowHold int, soldOut time.Duration) *cell {
	c := &cell{
		spec: spec, window: time.Minute, think: [2]time.Duration{time.Second, 3 * time.Second}, seats: 1000,
		crowd:  newCrowd("http://127.0.0.1:1", 1, 1000, nil, nil, time.Minute, 1),
		counts: map[string]int{"BOOKED": 1000},
		use:    cpu.Use{Bench: 0.3, Postgres: 0.2, Other: 0.1}, app: 0.8,
	}
	ok := apiclient.Answer{StatusCode: http.StatusOK, Header: http.Header{}}
	for i := range 1000 {
		page, hold := 10*time.Millisecond, 20*time.Millisecond
		if i < slowPage {
			page = time.Second
		}
		if i < slowHold {
			hold = time.Second
		}
		c.crowd.routes[routePage].answered(ok, page)
		c.crowd.routes[routeHold].answered(apiclient.Answer{StatusCode: http.StatusCreated}, hold)
	}
	c.crowd.outcomes[booked] = 500
	c.crowd.outcomes[noSeats] = spec.people - 500
	c.crowd.soldOut.Store(int64(soldOut))
	if soldOut == 0 {
		c.counts["BOOKED"] = 998
	}
	return c
}

// withRoom gives c the waiting room: 600 a minute, a cap of 300, opening
// 5 s after the first arrival (so 500 people at 10 a second imply 55 s);
// the admin saw at most mostActive active; the estimates were off by
// estimateOff (relative); tau is what the queue's order gave.
func withRoom(c *cell, mostActive int, estimateOff float64, tau float64) *cell {
	opens := time.Date(2026, 12, 10, 10, 0, 5, 0, time.UTC)
	c.room = &roomView{
		settings: roomSettings{Enabled: true, AdmitPerMinute: 600, MaxActive: 300, OpensAt: &opens},
		samples: []roomSample{
			{at: 4 * time.Second, waiting: 800},
			{at: 5 * time.Second, waiting: 833, active: 0, admitted: 0},
			{at: 6 * time.Second, open: true, waiting: 900, active: 10, admitted: 10},
			{at: 15 * time.Second, open: true, waiting: 2400, active: mostActive, admitted: 100},
			{at: 55 * time.Second, open: true, waiting: 8000, active: 40, admitted: 500},
		},
	}
	c.opensAfter = 5 * time.Second
	c.fair = fairness{tau: tau, ok: true, n: 9000, preQueue: 833}
	q := c.crowd.queue
	q.joined, q.admitted = c.spec.people, 500
	for i := range 500 {
		waited := time.Duration(10+i%20) * time.Second
		q.waits = append(q.waits, waited)
		q.estimates = append(q.estimates, estimate{eta: time.Duration(float64(waited) * (1 + estimateOff)), waited: waited})
	}
	c.crowd.outcomes[noSeats] = 0
	c.crowd.outcomes[goneWaiting] = c.spec.people - 500
	return c
}

func TestWriteReport(t *testing.T) {
	s := time.Second
	off := madeUpCell(cellSpec{people: 10000, room: false, pick: ByHand}, 200, 300, 0)
	busy := apiclient.Answer{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"2"}}, Body: []byte(`{"error":"busy"}`)}
	off.crowd.routes[routePage].answered(busy, 5*time.Millisecond)
	off.crowd.broke.note(routeNames[routePage]+": 503 busy", 12*s)
	off.crowd.broke.note(routeNames[routePage]+": 503 busy", 13*s)
	off.crowd.broke.note("live seat map socket did not open (timeout)", 20*s)
	offBest := madeUpCell(cellSpec{people: 10000, room: false, pick: BestAvailable}, 0, 0, 30*s)
	// A 503 without a Retry-After, and a 500: both break the room-off target.
	offBest.crowd.routes[routeHold].answered(apiclient.Answer{StatusCode: http.StatusServiceUnavailable, Header: http.Header{}}, time.Millisecond)
	offBest.crowd.routes[routeCheckout].answered(apiclient.Answer{StatusCode: http.StatusInternalServerError, Header: http.Header{}}, time.Millisecond)
	// Room on, best available: every target met (sold out by 60.5 s).
	onBest := withRoom(madeUpCell(cellSpec{people: 10000, room: true, pick: BestAvailable}, 5, 5, 58*s), 120, 0.1, 0.999)
	// Room on, by hand: every target missed but nothing sold twice.
	onHand := withRoom(madeUpCell(cellSpec{people: 10000, room: true, pick: ByHand}, 100, 100, 61*s), 301, 0.25, 0.95)
	onHand.crowd.routes[routeQueueJoin].answered(busy, time.Millisecond)

	var sb strings.Builder
	writeReport(&sb, reportHead{
		Hall: "a made-up hall", Window: time.Minute, People: []int{10000}, Think: [2]time.Duration{s, 3 * s},
		Room: RoomSettings{AdmitPerMinute: 600, MaxActive: 300, OpensAfter: 5 * s}, MaxOther: 0.25,
		Started: time.Now(),
	}, []*cell{off, offBest, onHand, onBest})
	out := sb.String()
	for _, want := range []string{
		"- each person thinks 1s to 3s on the show page before holding\n",
		"- the waiting room, where on: 600 admitted a minute, at most 300 shoppers active at once, opening 5s after the first arrival (a pre-queue before it, shuffled at the opening)\n",
		// The summary: sold out, what the rate implies, the errors.
		"| 10000 people, room off, by hand | not sold out | - | 2 | 500 | 1 / 0 | 0 | 0 | 0 | hold | 10.0 / 1000 | 20.0 / 1000 | 0 | 0.80 | 0.20 | 0.30 / 0.10 |\n",
		"| 10000 people, room off, best available | 30.0 s | - | 0 | 500 | 1 / 1 | 1 | 0 | 0 | hold |",
		"| 10000 people, room on, best available | 58.0 s | 55.0 s | 0 | 500 |",
		// The waiting room's table: tau, the estimate, the cap, the rate
		// (500 admitted from 5 s to 55 s).
		"| 10000 people, room on, best available | 10000 | 0 / 500 | 9500 | 19.0 / 29.0 | 0.9990 (9000) | 10.0% (500) | 120 / 300 | 8000 | 600 |\n",
		"| 10000 people, room on, by hand | 10000 | 0 / 500 | 9500 | 19.0 / 29.0 | 0.9500 (9000) | 25.0% (500) | 301 / 300 | 8000 | 600 |\n",
		// Room off: its two targets, and what broke first.
		"**10000 people, room off, by hand**: 2 of 2 met\n\n" +
			"- seats sold twice: 0 (target 0): met\n" +
			"- 5xx other than 503 with a Retry-After: 0, and 0 503s without one (target 0): met\n" +
			"- what broke first: show page `GET /shows/{id}`: 503 busy, at 12.0 s (2 times)\n",
		"**10000 people, room off, best available**: 1 of 2 met\n\n" +
			"- seats sold twice: 0 (target 0): met\n" +
			"- 5xx other than 503 with a Retry-After: 1, and 1 503s without one (target 0): **missed**\n" +
			"- nothing broke\n",
		// Room on, best available: all eight met.
		"**10000 people, room on, best available**: 8 of 8 met\n\n" +
			"- 5xx: 0 (target 0): met\n" +
			"- seats sold twice: 0 (target 0): met\n" +
			"- show page p99 of admitted people: 10.0 ms (target < 500): met\n" +
			"- hold p99 of admitted people: 20.0 ms (target < 200): met\n" +
			"- tau-b after the opening: 0.9990 over 9000 tickets (target >= 0.99): met\n" +
			"- most shoppers active at once: 120 of a cap of 300 (target: never above it; read every second): met\n" +
			"- sold out: after 58.0 s; the admission rate implies 55.0 s (target: by 60.5 s, +10%): met\n" +
			"- the first estimate's median error: 10.0% over 500 people (target < 20%): met\n",
		// Room on, by hand: the targets set for best available, missed.
		"**10000 people, room on, by hand**: 1 of 8 met (the targets are set for best available)\n\n" +
			"- 5xx: 1 (target 0): **missed**\n" +
			"- seats sold twice: 0 (target 0): met\n" +
			"- show page p99 of admitted people: 1000 ms (target < 500): **missed**\n" +
			"- hold p99 of admitted people: 1000 ms (target < 200): **missed**\n" +
			"- tau-b after the opening: 0.9500 over 9000 tickets (target >= 0.99): **missed**\n" +
			"- most shoppers active at once: 301 of a cap of 300 (target: never above it; read every second): **missed**\n" +
			"- sold out: after 61.0 s; the admission rate implies 55.0 s (target: by 60.5 s, +10%): **missed**\n" +
			"- the first estimate's median error: 25.0% over 500 people (target < 20%): **missed**\n",
		// The cells' sections.
		"\n## 10000 people, room on, best available, within 1m0s\n",
		"- **sold out after 58.0 s; the admission rate implies 55.0 s** (every seat held by then at 0.0 s)\n",
		"- **not sold out: 2 of 1000 seats left**\n",
		"\nWaiting room: 600 a minute, at most 300 active, opening 5.0 s after the first arrival.\n",
		"- fairness: tau-b 0.9990 between the order 9000 tickets joined in at or after the opening and their numbers\n" +
			"  (by SQL); 833 numbered tickets joined before the opening and were shuffled\n",
		"| show page `GET /shows/{id}`: 503 busy | 12.0 s | 2 |\n| live seat map socket did not open (timeout) | 20.0 s | 1 |\n",
		"- the room was open by 6.0 s, as the admin's view first said\n",
		"| join the queue `POST /api/v1/shows/{id}/queue` | 1 | 503: 1 | 1 |",
		"| left the waiting room: the seats were gone | 9500 |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks\n%s", want)
		}
	}
	// A route nobody asked for has no row: no seat map with best
	// available, no queue with the room off.
	best := out[strings.Index(out, "\n## 10000 people, room off, best available, within"):]
	best = best[:strings.Index(best[1:], "\n## ")]
	for _, r := range []route{routeSeatMap, routeQueueJoin, routeQueuePage, routeQueueStatus} {
		if strings.Contains(best, "| "+routeNames[r]+" |") {
			t.Errorf("the room-off best-available cell has a row for %s", routeNames[r])
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}
