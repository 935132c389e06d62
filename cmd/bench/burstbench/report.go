package burstbench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
)

// reportHead is what the report says before the cells.
type reportHead struct {
	Hall               string
	Window             time.Duration
	People             []int
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
	fmt.Fprintf(w, "- started %s, took %s\n", h.Started.UTC().Format(time.RFC3339), time.Since(h.Started).Round(time.Second))
	fmt.Fprintf(w, "\nEach person: GET the show page (gzip), open the live seat map's websocket (?diff=1, saying what the page\n")
	fmt.Fprintf(w, "shows), GET the seat map JSON, hold two seats side by side picked at random (on a 409 read the map again\n")
	fmt.Fprintf(w, "and pick again, %d tries), open the checkout, and the provider posts the signed payment webhook. Every\n", holdAttempts)
	fmt.Fprintf(w, "request has a %s deadline and is tried again after a 503's Retry-After (with jitter) or, on a new\n", requestDeadline)
	fmt.Fprintf(w, "connection, after no answer, up to %d times. Latencies are of each try, p50 / p99 / max in ms; times\n", maxRetries)
	fmt.Fprintf(w, "are from the first arrival. CPU is cores kept busy from the first arrival to the last departure.\n")

	fmt.Fprintf(w, "\n## Summary\n\n")
	fmt.Fprintf(w, "| people | sold out after | seats left | booked | never saw the page | 503s | other 5xx | no answer | show page ms | seat map ms | hold ms | sockets ok / failed | seats sold twice | invariants | app cores | Postgres cores | bench / other cores |\n")
	fmt.Fprintf(w, "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|\n")
	for _, c := range cells {
		cr := c.crowd
		var n503, n5xx, none int
		for _, t := range cr.routes {
			n503 += t.statuses[503]
			n5xx += t.count(500, 599) - t.statuses[503]
			none += t.transport + t.timeouts
		}
		fmt.Fprintf(w, "| %d | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s | %d / %d | %d | %s | %.2f | %.2f | %s |\n",
			c.people, c.soldOutAfter(), c.seatsLeft(), cr.outcomes[booked], cr.outcomes[noPage], n503, n5xx, none,
			p50p99(cr.routes[routePage].lat), p50p99(cr.routes[routeSeatMap].lat), p50p99(cr.routes[routeHold].lat),
			cr.sockets.ok, total(cr.sockets.failed), len(c.double), c.invariants(), c.app, c.use.Postgres, c.cores(h.MaxOther))
	}
	for _, c := range cells {
		writeCell(w, c, h.MaxOther)
	}
}

func writeCell(w io.Writer, c *cell, maxOther float64) {
	cr := c.crowd
	fmt.Fprintf(w, "\n## %d people within %s\n\n", c.people, c.window)
	fmt.Fprintf(w, "- %.0f arrivals a second; the last person left %.1f s after the first arrived; at most %d people were\n",
		float64(c.people)/c.window.Seconds(), cr.span().Seconds(), cr.mostActive.Load())
	fmt.Fprintf(w, "  in their visit and %d websockets open at once\n", cr.mostOpen.Load())
	if at := cr.soldOut.Load(); at > 0 {
		fmt.Fprintf(w, "- **sold out %.1f s after the first arrival** (every seat held by then at %.1f s)\n",
			time.Duration(at).Seconds(), time.Duration(cr.allHeld.Load()).Seconds())
	} else if c.seatsLeft() == 0 {
		fmt.Fprintf(w, "- **sold out**, but when is unknown: the answers of some payments that booked never reached their people\n")
	} else {
		fmt.Fprintf(w, "- **not sold out: %d of %d seats left**\n", c.seatsLeft(), c.seats)
	}
	fmt.Fprintf(w, "- seats by SQL after the burst: %d booked, %d held, %d available; the people were told of %d bookings (%d seats)\n",
		c.counts["BOOKED"], c.counts["HELD"], c.counts["AVAILABLE"], cr.outcomes[booked], 2*cr.outcomes[booked])

	fmt.Fprintf(w, "\n| route | requests | statuses | 503s | 503 ms | 503 codes | other 5xx | no answer / of which timeouts | ms (but 503s) | KiB an answer |\n")
	fmt.Fprintf(w, "|---|--:|---|--:|--:|---|--:|--:|--:|--:|\n")
	for r, t := range cr.routes {
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s | %d | %d / %d | %s | %s |\n",
			routeNames[r], t.requests(), t.statusList(), t.statuses[503], latency(t.lat503), dash(t.codeList()),
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
	if sum != c.people {
		accounted = fmt.Sprintf("**%d of %d people accounted for**", sum, c.people)
	}
	fmt.Fprintf(w, "| all (%s) | %d |\n", accounted, sum)

	s := cr.sockets
	fmt.Fprintf(w, "\nLive seat map: %d websockets opened, %d failed (%s); connect (handshake and first message) %s ms;\n",
		s.ok, total(s.failed), countList(s.failed), latency(s.connect))
	fmt.Fprintf(w, "%d ended by the server or failed before their person left (%s); %d messages received.\n",
		s.dropped, countList(s.dropWhy), s.messages)

	fmt.Fprintf(w, "\nSeats sold twice (in two live holds or bookings, by SQL): %d.", len(c.double))
	for _, d := range c.double {
		fmt.Fprintf(w, "\n- %s", d)
	}
	fmt.Fprintf(w, " booking_invariant_violations(): %s.", c.invariants())
	for _, v := range c.violations {
		fmt.Fprintf(w, "\n- %s", v)
	}
	fmt.Fprintf(w, "\n\nCPU: the app %.2f cores, Postgres %.2f, this process (the people) / other work %s; the people took %.1f ms\n",
		c.app, c.use.Postgres, c.cores(maxOther), c.use.Bench*cr.span().Seconds()*1000/float64(c.people))
	fmt.Fprintf(w, "of this process's CPU each.\n")
	if len(cr.problems) > 0 {
		fmt.Fprintf(w, "\nAnswers the benchmark could not read (the first %d):\n", len(cr.problems))
		for _, p := range cr.problems {
			fmt.Fprintf(w, "- %s\n", p)
		}
	}
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

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
