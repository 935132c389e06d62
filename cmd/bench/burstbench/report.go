package burstbench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// The targets of the issue, for the room on with best available.
const (
	targetPageP99     = 500 * time.Millisecond // the show page's p99, of admitted people
	targetHoldP99     = 200 * time.Millisecond // the hold's p99, of admitted people
	targetTau         = 0.99                   // Kendall's tau-b of arrival and admission after the opening
	targetEstimate    = 0.20                   // the first estimate's median relative error
	targetSoldOutPlus = 0.10                   // sold out within what the admission rate implies, plus 10%
)

// reportHead is what the report says before the cells.
type reportHead struct {
	Hall               string
	Window             time.Duration
	People             []int
	Think              [2]time.Duration
	Room               RoomSettings
	MaxOther           float64
	FileLimit          uint64
	Server             string // report.Server's line
	LoadStart, LoadEnd string
	Started            time.Time
}

func writeReport(w io.Writer, h reportHead, cells []*cell) {
	fmt.Fprintf(w, "# Marquee burst benchmark\n\n")
	fmt.Fprint(w, report.Machine())
	fmt.Fprint(w, h.Server)
	fmt.Fprintf(w, "- load average at start: %s; at end: %s\n", h.LoadStart, h.LoadEnd)
	fmt.Fprintf(w, "- the show: %s, on a fresh database for each cell\n", h.Hall)
	fmt.Fprintf(w, "- the app: one instance in a child process, wired as serve with PAYMENTS=sandbox (the live seat map, the sweeper,\n")
	fmt.Fprintf(w, "  Sandbox Pay's workers), rate limits off, a pool of %d connections, holds of 5 min\n", appserver.ChildPoolSize())
	people := make([]string, len(h.People))
	for i, n := range h.People {
		people[i] = strconv.Itoa(n)
	}
	fmt.Fprintf(w, "- people of each cell: %s, each signed in before the clock starts, arriving evenly within %s; open-files limit %d\n",
		strings.Join(people, ", "), h.Window, h.FileLimit)
	fmt.Fprintf(w, "- each person thinks %s on the show page before holding\n", thinkRange(h.Think))
	if slices.ContainsFunc(cells, func(c *cell) bool { return c.spec.room }) {
		fmt.Fprintf(w, "- the waiting room, where on: %d admitted a minute, at most %d shoppers active at once, %s\n",
			h.Room.AdmitPerMinute, h.Room.MaxActive, opening(h.Room.OpensAfter))
	}
	fmt.Fprintf(w, "- started %s, took %s\n", h.Started.UTC().Format(time.RFC3339), time.Since(h.Started).Round(time.Second))
	fmt.Fprintf(w, "\nEach person, with the waiting room on, first joins the queue, waits on its page and socket until the\n")
	fmt.Fprintf(w, "socket's front passes their number, and confirms through the API. Then: GET the show page (gzip), open\n")
	fmt.Fprintf(w, "the live seat map's websocket (?diff=1, saying what the page shows), think, and hold two seats: by hand,\n")
	fmt.Fprintf(w, "GET the seat map JSON and pick two side by side at random (on a 409 read the map again and pick again,\n")
	fmt.Fprintf(w, "%d tries); best available, ask for the best two. Then open the checkout, and the provider posts the\n", holdAttempts)
	fmt.Fprintf(w, "signed payment webhook. Every request has a %s deadline and is tried again after a 503's Retry-After\n", requestDeadline)
	fmt.Fprintf(w, "(with jitter) or, on a new connection, after no answer, up to %d times. Latencies are of each try,\n", maxRetries)
	fmt.Fprintf(w, "p50 / p99 / max in ms; times are from the first arrival. CPU is cores kept busy from the first arrival\n")
	fmt.Fprintf(w, "to the last departure. Once the seats are gone, whoever still waits in the room leaves.\n")

	fmt.Fprintf(w, "\n## Summary\n\n")
	fmt.Fprintf(w, "| cell | sold out after | the admission rate implies | seats left | booked | 503s / without Retry-After | other 5xx | no answer | seats sold twice | invariants | show page ms | hold ms | sockets at the peak | app cores | Postgres cores | bench / other cores |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|\n")
	for _, c := range cells {
		cr := c.crowd
		n503, bare, n5xx, none := c.errors()
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d / %d | %d | %d | %d | %s | %s | %s | %d | %.2f | %.2f | %s |\n",
			c.spec, c.soldOutAfter(), c.impliedText(), c.seatsLeft(), cr.outcomes[booked], n503, bare, n5xx, none,
			len(c.double), c.invariants(), p50p99(cr.routes[routePage].lat), p50p99(cr.routes[routeHold].lat),
			cr.mostSockets.Load(), c.app, c.use.Postgres, c.cores(h.MaxOther))
	}
	fmt.Fprintf(w, "\n(show page and hold: p50 / p99 of the answers other than 503s; with the room on, only admitted people ask\n")
	fmt.Fprintf(w, "for them. Sockets: the live seat map's and the waiting room's open at once, at the most.)\n")

	if slices.ContainsFunc(cells, func(c *cell) bool { return c.room != nil }) {
		fmt.Fprintf(w, "\n## The waiting room\n\n")
		fmt.Fprintf(w, "| cell | joined | admitted at once / after waiting | left waiting, the seats gone | wait p50 / p99 s | tau-b (tickets after the opening) | first estimate's error, median (people) | most active / cap | most waiting | admitted a minute |\n")
		fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, c := range cells {
			if c.room == nil {
				continue
			}
			q := c.crowd.queue
			active, waiting := c.room.most()
			rel, _, n := estimateErrors(q.estimates)
			fmt.Fprintf(w, "| %s | %d | %d / %d | %d | %s | %s (%d) | %s (%d) | %d / %d | %d | %s |\n",
				c.spec, q.joined, q.atOnce, q.admitted, c.crowd.outcomes[goneWaiting], waitsText(q.waits),
				c.tauText(), c.fair.n, percent(rel, n), n, active, c.room.settings.MaxActive, waiting, c.rateText())
		}
		fmt.Fprintf(w, "\n(tau-b: Kendall's, between the order the tickets joined in and the order they were numbered in, by SQL,\n")
		fmt.Fprintf(w, "of those that joined at or after the opening; 1.0 is first come, first served. The first estimate's error:\n")
		fmt.Fprintf(w, "|eta_s - the wait| / the wait, of those given eta_s on joining (the room open) who waited. Most active and waiting:\n")
		fmt.Fprintf(w, "the admin's view, read every second.)\n")
	}

	fmt.Fprintf(w, "\n## Targets\n")
	for _, c := range cells {
		writeTargets(w, c)
	}
	for _, c := range cells {
		writeCell(w, c, h.MaxOther)
	}
}

// check is one target of a cell, and whether it was met.
type check struct {
	what string
	met  bool
}

// targets are the cell's targets: with the room on (set for best
// available), no 5xx, nothing sold twice, page and hold p99 of admitted
// people, fairness, the cap, the time to sell out and the estimate; with
// it off, nothing sold twice and no 5xx but 503s with a Retry-After.
func (c *cell) targets() []check {
	cr := c.crowd
	n503, bare, n5xx, _ := c.errors()
	double := check{fmt.Sprintf("seats sold twice: %d (target 0)", len(c.double)), len(c.double) == 0}
	if c.room == nil {
		return []check{
			double,
			{fmt.Sprintf("5xx other than 503 with a Retry-After: %d, and %d 503s without one (target 0)", n5xx, bare), n5xx == 0 && bare == 0},
		}
	}
	page, hold := p99(cr.routes[routePage].lat), p99(cr.routes[routeHold].lat)
	active, _ := c.room.most()
	rel, _, n := estimateErrors(cr.queue.estimates)
	implied, _ := c.implied()
	by := time.Duration(float64(implied) * (1 + targetSoldOutPlus))
	at := time.Duration(cr.soldOut.Load())
	return []check{
		{fmt.Sprintf("5xx: %d (target 0)", n503+n5xx), n503+n5xx == 0},
		double,
		{fmt.Sprintf("show page p99 of admitted people: %s ms (target < %s)", msOrDash(page, cr.routes[routePage].lat), stats.Ms(targetPageP99)), len(cr.routes[routePage].lat) > 0 && page < targetPageP99},
		{fmt.Sprintf("hold p99 of admitted people: %s ms (target < %s)", msOrDash(hold, cr.routes[routeHold].lat), stats.Ms(targetHoldP99)), len(cr.routes[routeHold].lat) > 0 && hold < targetHoldP99},
		{fmt.Sprintf("tau-b after the opening: %s over %d tickets (target >= %.2f)", c.tauText(), c.fair.n, targetTau), c.fair.ok && c.fair.tau >= targetTau},
		{fmt.Sprintf("most shoppers active at once: %d of a cap of %d (target: never above it; read every second)", active, c.room.settings.MaxActive), active <= c.room.settings.MaxActive && len(c.room.samples) > 0},
		{fmt.Sprintf("sold out: %s; the admission rate implies %.1f s (target: by %.1f s, +%.0f%%)", c.soldOutWhen(), implied.Seconds(), by.Seconds(), 100*targetSoldOutPlus), at > 0 && at <= by},
		{fmt.Sprintf("the first estimate's median error: %s over %d people (target < %.0f%%)", percent(rel, n), n, 100*targetEstimate), n > 0 && rel < targetEstimate},
	}
}

func writeTargets(w io.Writer, c *cell) {
	checks := c.targets()
	met := 0
	for _, ch := range checks {
		if ch.met {
			met++
		}
	}
	fmt.Fprintf(w, "\n**%s**: %d of %d met", c.spec, met, len(checks))
	if c.room != nil && c.spec.pick != BestAvailable {
		fmt.Fprintf(w, " (the targets are set for best available)")
	}
	fmt.Fprintf(w, "\n\n")
	for _, ch := range checks {
		mark := "met"
		if !ch.met {
			mark = "**missed**"
		}
		fmt.Fprintf(w, "- %s: %s\n", ch.what, mark)
	}
	if c.room == nil {
		if f := c.crowd.broke.list(); len(f) > 0 {
			fmt.Fprintf(w, "- what broke first: %s, at %.1f s (%d times)\n", f[0].what, f[0].first.Seconds(), f[0].count)
		} else {
			fmt.Fprintf(w, "- nothing broke\n")
		}
	}
}

func writeCell(w io.Writer, c *cell, maxOther float64) {
	cr := c.crowd
	fmt.Fprintf(w, "\n## %s, within %s\n\n", c.spec, c.window)
	fmt.Fprintf(w, "- %.0f arrivals a second; the last person left %.1f s after the first arrived; at most %d people were\n",
		float64(c.spec.people)/c.window.Seconds(), cr.span().Seconds(), cr.mostActive.Load())
	fmt.Fprintf(w, "  in their visit; at most %d websockets open at once (the live seat map's at most %d, the waiting room's %d)\n",
		cr.mostSockets.Load(), cr.mostOpen.Load(), cr.mostQueueOpen.Load())
	fmt.Fprintf(w, "- seats: %s; each person thought %s before holding\n", c.spec.pick, thinkRange(c.think))
	implied := ""
	if d, ok := c.implied(); ok {
		implied = fmt.Sprintf("; the admission rate implies %.1f s", d.Seconds())
	}
	if at := cr.soldOut.Load(); at > 0 {
		fmt.Fprintf(w, "- **sold out after %.1f s%s** (every seat held by then at %.1f s)\n",
			time.Duration(at).Seconds(), implied, time.Duration(cr.allHeld.Load()).Seconds())
	} else if c.seatsLeft() == 0 {
		fmt.Fprintf(w, "- **sold out**, but when is unknown: the answers of some payments that booked never reached their people%s\n", implied)
	} else {
		fmt.Fprintf(w, "- **not sold out: %d of %d seats left**%s\n", c.seatsLeft(), c.seats, implied)
	}
	fmt.Fprintf(w, "- seats by SQL after the burst: %d booked, %d held, %d available; the people were told of %d bookings (%d seats)\n",
		c.counts["BOOKED"], c.counts["HELD"], c.counts["AVAILABLE"], cr.outcomes[booked], 2*cr.outcomes[booked])

	fmt.Fprintf(w, "\n| route | requests | statuses | 503s | 503 ms | 503 codes | 503s without Retry-After | other 5xx | no answer / of which timeouts | ms (but 503s) | KiB an answer |\n")
	fmt.Fprintf(w, "|---|--:|---|--:|--:|---|--:|--:|--:|--:|--:|\n")
	for r, t := range cr.routes {
		if t.requests() == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s | %d | %d | %d / %d | %s | %s |\n",
			routeNames[r], t.requests(), t.statusList(), t.statuses[503], latency(t.lat503), dash(t.codeList()), t.bare503,
			t.count(500, 599)-t.statuses[503], t.transport+t.timeouts, t.timeouts, latency(t.lat), t.meanBody())
	}
	for r, t := range cr.routes {
		if t.firstError != "" {
			fmt.Fprintf(w, "\nFirst request without an answer, %s: %s\n", routeNames[r], t.firstError)
		}
	}

	fmt.Fprintf(w, "\n| what became of them | people |\n|---|--:|\n")
	sum := 0
	for o, n := range cr.outcomes {
		sum += n
		if n > 0 || outcome(o) == booked {
			fmt.Fprintf(w, "| %s | %d |\n", outcomeNames[o], n)
		}
	}
	accounted := "every person accounted for"
	if sum != c.spec.people {
		accounted = fmt.Sprintf("**%d of %d people accounted for**", sum, c.spec.people)
	}
	fmt.Fprintf(w, "| all (%s) | %d |\n", accounted, sum)

	s := cr.sockets
	fmt.Fprintf(w, "\nLive seat map: %d websockets opened, %d failed (%s); connect (handshake and first message) %s ms;\n",
		s.ok, total(s.failed), countList(s.failed), latency(s.connect))
	fmt.Fprintf(w, "%d ended by the server or failed before their person left (%s); %d messages received.\n",
		s.dropped, countList(s.dropWhy), s.messages)
	if c.room != nil {
		writeRoom(w, c)
	}

	fmt.Fprintf(w, "\nWhat broke, the earliest first (a 5xx, a request without an answer, a socket that failed, a person who\n")
	fmt.Fprintf(w, "gave up):")
	if f := cr.broke.list(); len(f) == 0 {
		fmt.Fprintf(w, " nothing.\n")
	} else {
		fmt.Fprintf(w, "\n\n| what | first at | times |\n|---|--:|--:|\n")
		for i, x := range f {
			if i == maxFailures {
				fmt.Fprintf(w, "| and %d kinds more | | |\n", len(f)-maxFailures)
				break
			}
			fmt.Fprintf(w, "| %s | %.1f s | %d |\n", x.what, x.first.Seconds(), x.count)
		}
	}

	fmt.Fprintf(w, "\nSeats sold twice (in two live holds or bookings, by SQL): %d.", len(c.double))
	for _, d := range c.double {
		fmt.Fprintf(w, "\n- %s", d)
	}
	fmt.Fprintf(w, " booking_invariant_violations(): %s.", c.invariants())
	for _, v := range c.violations {
		fmt.Fprintf(w, "\n- %s", v)
	}
	fmt.Fprintf(w, "\n\nCPU: the app %.2f cores, Postgres %.2f, this process (the people) / other work %s; the people took %.1f ms\n",
		c.app, c.use.Postgres, c.cores(maxOther), c.use.Bench*cr.span().Seconds()*1000/float64(c.spec.people))
	fmt.Fprintf(w, "of this process's CPU each.\n")
	if len(cr.problems) > 0 {
		fmt.Fprintf(w, "\nAnswers the benchmark could not read (the first %d):\n", len(cr.problems))
		for _, p := range cr.problems {
			fmt.Fprintf(w, "- %s\n", p)
		}
	}
}

// maxFailures is how many kinds of failure a cell's report lists.
const maxFailures = 12

// writeRoom writes what the people and the admin saw of the waiting room.
func writeRoom(w io.Writer, c *cell) {
	q, r := c.crowd.queue, c.room
	fmt.Fprintf(w, "\nWaiting room: %d a minute, at most %d active, ", r.settings.AdmitPerMinute, r.settings.MaxActive)
	if r.settings.OpensAt != nil {
		fmt.Fprintf(w, "opening %.1f s after the first arrival.\n", c.opensAfter.Seconds())
	} else {
		fmt.Fprintf(w, "no opening time.\n")
	}
	fmt.Fprintf(w, "- %d joined: %d admitted at once, %d after waiting (from joining to learning it: %s s), %d left\n",
		q.joined, q.atOnce, q.admitted, latencySeconds(q.waits), c.crowd.outcomes[goneWaiting])
	fmt.Fprintf(w, "  waiting when the seats were gone (%s); %d people's pages had no number when the room opened; %d people\n",
		goneText(c.crowd.goneAt.Load()), q.reloads, q.polled)
	fmt.Fprintf(w, "  polled, their socket having failed; %d polls said WAITING after the socket said admitted\n", q.notYet)
	fmt.Fprintf(w, "- fairness: tau-b %s between the order %d tickets joined in at or after the opening and their numbers\n", c.tauText(), c.fair.n)
	fmt.Fprintf(w, "  (by SQL); %d numbered tickets joined before the opening and were shuffled\n", c.fair.preQueue)
	rel, abs, n := estimateErrors(q.estimates)
	fmt.Fprintf(w, "- the first estimate (eta_s on joining) of %d people who joined the open room and waited: median error\n", n)
	fmt.Fprintf(w, "  %s (median |eta_s - the wait| %.1f s)", percent(rel, n), abs.Seconds())
	if rel, abs, n := estimateErrors(q.preEstimates); n > 0 {
		fmt.Fprintf(w, "; of %d who joined before it opened, their first estimate after: %s (%.1f s)", n, percent(rel, n), abs.Seconds())
	}
	fmt.Fprintf(w, "\n")
	if at, ok := r.openedBy(); ok {
		fmt.Fprintf(w, "- the room was open by %.1f s, as the admin's view first said\n", at.Seconds())
	}
	active, waiting := r.most()
	fmt.Fprintf(w, "- the admin's view, read %d times (%d failed", len(r.samples), r.failed)
	if r.firstErr != "" {
		fmt.Fprintf(w, "; the first: %s", r.firstErr)
	}
	admitted := 0
	if len(r.samples) > 0 {
		admitted = r.samples[len(r.samples)-1].admitted
	}
	fmt.Fprintf(w, "): at most %d active of a cap of %d, at most %d\n", active, r.settings.MaxActive, waiting)
	fmt.Fprintf(w, "  waiting, %d admitted in all; %s admitted a minute while people waited after the opening\n", admitted, c.rateText())
	s := c.crowd.queueSockets
	fmt.Fprintf(w, "- its socket: %d opened, %d failed (%s); connect %s ms; %d ended by the server or failed\n",
		s.ok, total(s.failed), countList(s.failed), latency(s.connect), s.dropped)
	fmt.Fprintf(w, "  (%s); %d messages received\n", countList(s.dropWhy), s.messages)
}

// errors are the cell's 503s (and those of them without a Retry-After),
// other 5xx and requests without an answer, over every route.
func (c *cell) errors() (n503, bare, n5xx, none int) {
	for _, t := range c.crowd.routes {
		n503 += t.statuses[503]
		bare += t.bare503
		n5xx += t.count(500, 599) - t.statuses[503]
		none += t.transport + t.timeouts
	}
	return n503, bare, n5xx, none
}

// implied is the time to sell out that the admission rate implies: the
// opening after the first arrival, then one person for every two seats
// admitted at the rate. ok is false with the room off.
func (c *cell) implied() (time.Duration, bool) {
	if c.room == nil || c.room.settings.AdmitPerMinute <= 0 {
		return 0, false
	}
	people := float64((c.seats + 1) / 2)
	return c.opensAfter + time.Duration(people/float64(c.room.settings.AdmitPerMinute)*float64(time.Minute)), true
}

func (c *cell) impliedText() string {
	if d, ok := c.implied(); ok {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return "-"
}

func (c *cell) tauText() string {
	if !c.fair.ok {
		return "-"
	}
	return fmt.Sprintf("%.4f", c.fair.tau)
}

// rateText is the admissions a minute the admin's view showed.
func (c *cell) rateText() string {
	if r, ok := c.room.rate(c.opensAfter); ok {
		return fmt.Sprintf("%.0f", r)
	}
	return "-"
}

// soldOutAfter is when the show sold out, in seconds, or "not sold out".
func (c *cell) soldOutAfter() string {
	if at := c.crowd.soldOut.Load(); at > 0 {
		return fmt.Sprintf("%.1f s", time.Duration(at).Seconds())
	}
	if c.seatsLeft() == 0 {
		return "sold out, when unknown"
	}
	return "not sold out"
}

// soldOutWhen says when the show sold out: "after 58.0 s", "when unknown"
// or "no, 12 seats left".
func (c *cell) soldOutWhen() string {
	if at := c.crowd.soldOut.Load(); at > 0 {
		return fmt.Sprintf("after %.1f s", time.Duration(at).Seconds())
	}
	if c.seatsLeft() == 0 {
		return "when unknown"
	}
	return fmt.Sprintf("no, %d seats left", c.seatsLeft())
}

// seatsLeft is how many seats were not booked after the burst.
func (c *cell) seatsLeft() int { return c.seats - c.counts["BOOKED"] }

// invariants is "hold" or how many were violated.
func (c *cell) invariants() string {
	if len(c.violations) == 0 {
		return "hold"
	}
	return fmt.Sprintf("**%d violated**", len(c.violations))
}

// cores is "bench / other", other marked † when it exceeded maxOther.
func (c *cell) cores(maxOther float64) string {
	if c.use.Other < 0 {
		return fmt.Sprintf("%.2f / ?", c.use.Bench)
	}
	mark := ""
	if maxOther > 0 && c.use.Other > maxOther {
		mark = " †"
	}
	return fmt.Sprintf("%.2f / %.2f%s", c.use.Bench, c.use.Other, mark)
}

// thinkRange is "1s to 3s", or "no time" for none.
func thinkRange(t [2]time.Duration) string {
	switch {
	case t[1] <= 0:
		return "no time"
	case t[0] >= t[1]:
		return t[0].String()
	}
	return t[0].String() + " to " + t[1].String()
}

// opening says when the waiting room opens.
func opening(after time.Duration) string {
	if after <= 0 {
		return "no opening time (first come, first served from the start)"
	}
	return fmt.Sprintf("opening %s after the first arrival (a pre-queue before it, shuffled at the opening)", after)
}

// p99 is the 99th percentile of ds, 0 for none.
func p99(ds []time.Duration) time.Duration {
	return stats.Percentile(slices.Sorted(slices.Values(ds)), 99)
}

// msOrDash is d in ms, or "-" when there were no samples.
func msOrDash(d time.Duration, samples []time.Duration) string {
	if len(samples) == 0 {
		return "-"
	}
	return stats.Ms(d)
}

// percent is f as a percentage, or "-" when there were no samples.
func percent(f float64, n int) string {
	if n == 0 || math.IsNaN(f) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

// waitsText is "p50 / p99" of the waits in seconds, or "-".
func waitsText(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Sorted(slices.Values(ds))
	return fmt.Sprintf("%.1f / %.1f", stats.Percentile(s, 50).Seconds(), stats.Percentile(s, 99).Seconds())
}

// latencySeconds is "p50 / p99 / max" of ds in seconds, or "-".
func latencySeconds(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Sorted(slices.Values(ds))
	return fmt.Sprintf("%.1f / %.1f / %.1f", stats.Percentile(s, 50).Seconds(), stats.Percentile(s, 99).Seconds(), s[len(s)-1].Seconds())
}

// goneText says when the seats were gone.
func goneText(at int64) string {
	if at == 0 {
		return "they never were"
	}
	return fmt.Sprintf("at %.1f s", time.Duration(at).Seconds())
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
