package livebench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// reportMethod is what the report says about how the figures were taken.
type reportMethod struct {
	MaxOther  float64 // -max-other (0: never re-run)
	Reruns    int
	Listeners int           // of the second naive way
	Rate      float64       // of the fan-out's stream, changes/s
	Stream    time.Duration // how long it ran
}

func (m reportMethod) disturbed(u cpu.Use) bool { return m.MaxOther > 0 && u.Other > m.MaxOther }

// designTarget is issue 4's bound: the hold path keeps at least this share
// of its throughput without announcements.
const designTarget = 0.90

func writeReport(w io.Writer, m reportMethod, cells []*announceCell, fanouts []*fanout) {
	dagger := func(u cpu.Use) string {
		if m.disturbed(u) {
			return " †"
		}
		return ""
	}
	fmt.Fprintf(w, "\n## (a) Hold throughput with announcements\n\n")
	fmt.Fprintf(w, "SQL holds (Store.HoldSeats; a win is released with CancelHold, untimed). attempts/s counts 201s and 409s.\n")
	fmt.Fprintf(w, "commit→hub: a paced stream of %d holds/releases per second on a show of its own, from the moment\n", observerRate)
	fmt.Fprintf(w, "HoldSeats/CancelHold returned to the moment a hub subscriber in this process had the seat's new state\n")
	fmt.Fprintf(w, "(p50 / p99 / max ms). backlog: largest seat_events count sampled every 100 ms / rows left when the cell\n")
	fmt.Fprintf(w, "ended (the notifier then drained them). CPU: cores kept busy by this process / the bench database's\n")
	fmt.Fprintf(w, "backends (listeners included) / everything else. none: no seat_events rows (hold_seats and end_hold\n")
	fmt.Fprintf(w, "without their own inserts, as before they recorded their own: the no-announcements fixture; the trigger\n")
	fmt.Fprintf(w, "disabled), nothing listens. design: the latest schema (rows from hold_seats/end_hold, the trigger for\n")
	fmt.Fprintf(w, "the rest), a notifier (AnnounceSeatChanges every %s) and one listener feeding a hub, all in this\n", appserver.AnnounceInterval)
	fmt.Fprintf(w, "process and on its pool, as serve wires them. naive: instead of seat_events, a statement-level trigger\n")
	fmt.Fprintf(w, "that calls pg_notify inside the transaction, once per UPDATE of show_seats\n")
	fmt.Fprintf(w, "(one per hold, one per release) naming the show and its changed seats; 1 listener feeding a hub, or\n")
	fmt.Fprintf(w, "that plus %d more connections that LISTEN and read every notification.\n\n", m.Listeners-1)
	fmt.Fprintf(w, "| workload | clients | round | announcements | attempts/s | holds/s | won | p50 ms | p99 ms | errors | commit→hub ms | backlog max / at end | CPU bench / pg / other |\n")
	fmt.Fprintf(w, "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	rr := &report.Reruns{MaxOther: m.MaxOther, Limit: m.Reruns}
	for _, c := range cells {
		if c.skipped != "" {
			fmt.Fprintf(w, "| %s | %d | %d | %s | skipped: %s | | | | | | | | |\n", c.Workload, c.Clients, c.round, c.a.Name, c.skipped)
			continue
		}
		won := "-"
		if c.Attempts() > 0 {
			won = fmt.Sprintf("%.0f%%", 100*float64(c.Held)/float64(c.Attempts()))
		}
		backlog := "-"
		if c.a.Events {
			backlog = fmt.Sprintf("%d / %d", c.maxEvents, c.leftEvents)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %.0f | %.0f | %s | %s | %s | %d | %s | %s | %s%s |\n",
			c.Workload, c.Clients, c.round, c.a.Name, c.PerSecond(c.Attempts()), c.PerSecond(c.Held), won,
			stats.Ms(stats.Percentile(c.Lat, 50)), stats.Ms(stats.Percentile(c.Lat, 99)), c.Errs+c.RelErrs, c.obs.Summary(), backlog, c.CPU, rr.Mark(c.Tries, c.CPU))
	}
	rr.Write(w, "cell")
	var notDrained, missed int
	for _, c := range cells {
		if c.a.Events && c.cleared > 0 {
			notDrained++
		}
		if c.a.Events || c.a.Naive {
			missed += c.obs.Missed
		}
	}
	fmt.Fprintf(w, "seat_events after each design cell: %d cells not drained by the notifier within 5 s. Observer changes never\n", notDrained)
	fmt.Fprintf(w, "received (design and naive): %d.\n", missed)

	type key struct {
		workload string
		clients  int
	}
	var order []key
	by := map[key]map[string][]*announceCell{}
	for _, c := range cells {
		k := key{c.Workload, c.Clients}
		if by[k] == nil {
			by[k] = map[string][]*announceCell{}
			order = append(order, k)
		}
		if c.skipped == "" {
			by[k][c.a.Key] = append(by[k][c.a.Key], c)
		}
	}
	// pooled: attempts and holds per second over every round's cells.
	pooled := func(cs []*announceCell) (att, held float64, disturbed bool) {
		var a, h int
		var t time.Duration
		for _, c := range cs {
			a, h, t = a+c.Attempts(), h+c.Held, t+c.Elapsed
			disturbed = disturbed || m.disturbed(c.CPU)
		}
		if t <= 0 {
			return 0, 0, disturbed
		}
		return float64(a) / t.Seconds(), float64(h) / t.Seconds(), disturbed
	}
	ratio := func(num, den []*announceCell) (string, float64) {
		a, h, d1 := pooled(num)
		b, g, d2 := pooled(den)
		if b == 0 || g == 0 || a == 0 {
			return "n/a", 0
		}
		d := ""
		if d1 || d2 {
			d = " †"
		}
		out := fmt.Sprintf("%.2fx / %.2fx", a/b, h/g)
		if len(num) > 1 && len(num) == len(den) {
			var per []string
			for i := range num {
				x, _, _ := pooled(num[i : i+1])
				y, _, _ := pooled(den[i : i+1])
				per = append(per, fmt.Sprintf("%.2fx", x/y))
			}
			out += " (rounds " + strings.Join(per, ", ") + ")"
		}
		return out + d, a / b
	}
	fmt.Fprintf(w, "\nThroughput relative to no announcements, attempts/s / holds/s, over all rounds' cells together (each\n")
	fmt.Fprintf(w, "round's attempts/s ratio in brackets). † : a cell compared was disturbed. Target for the design:\n")
	fmt.Fprintf(w, "attempts/s >= %.2fx.\n\n", designTarget)
	fmt.Fprintf(w, "| workload | clients | design | target | naive, 1 listener | naive, %d listeners |\n", m.Listeners)
	fmt.Fprintf(w, "|---|--:|--:|---|--:|--:|\n")
	for _, k := range order {
		ways := by[k]
		d, dv := ratio(ways["design"], ways["none"])
		target := "n/a"
		if dv > 0 {
			target = "met"
			if dv < designTarget {
				target = "missed"
			}
		}
		n1, _ := ratio(ways["naive1"], ways["none"])
		nN, _ := ratio(ways["naiveN"], ways["none"])
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", k.workload, k.clients, d, target, n1, nN)
	}

	fmt.Fprintf(w, "\n## (b) Commit-to-browser latency on a quiet instance\n\n")
	fmt.Fprintf(w, "One websocket client on one show of a server process (web.New with the live hub, listener and notifier\n")
	fmt.Fprintf(w, "as in serve), a stream of %.0f holds/releases per second for %s through Store.HoldSeats/CancelHold in\n",
		m.Rate, m.Stream)
	fmt.Fprintf(w, "this process; from the call's return to the websocket message with the seat's new data-status. The\n")
	fmt.Fprintf(w, "naive row sends the NOTIFY from the transaction instead (no batching): the difference is what the\n")
	fmt.Fprintf(w, "batching adds.\n\n")
	fmt.Fprintf(w, "| announcements | changes | received | p50 ms | p99 ms | max ms | before the call returned | CPU bench / server / pg / other |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, f := range fanouts {
		if f.n != 1 {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %d | %.2f / %.2f / %.2f / %.2f%s |\n", f.a.Name, f.lat.Changes, len(f.lat.Lat),
			stats.Ms(stats.Percentile(f.lat.Lat, 50)), stats.Ms(stats.Percentile(f.lat.Lat, 99)), stats.Ms(stats.Percentile(f.lat.Lat, 100)), f.lat.Early,
			f.cpu.Bench, f.server, f.cpu.Postgres, f.cpu.Other, dagger(f.cpu))
	}

	fmt.Fprintf(w, "\n## (c) Fan-out: websocket subscribers on one show of one instance\n\n")
	fmt.Fprintf(w, "Each row: a fresh server process; N guest websockets (Origin = PUBLIC_URL) on one show, dialled %d at a\n", dialParallel)
	fmt.Fprintf(w, "time, each counted once its whole seat map arrived; then %.0f holds/releases per second for %s. Latency is\n", m.Rate, m.Stream)
	fmt.Fprintf(w, "over every (subscriber, change) pair; \"slowest\" is per change, the last subscriber to get it. Memory is\n")
	fmt.Fprintf(w, "the server process's, after two GCs, (connected - before) / N: heap in use + goroutine stacks, and RSS.\n")
	fmt.Fprintf(w, "The client side (this process) is shown apart. CPU during the stream: this process (clients + stream) /\n")
	fmt.Fprintf(w, "the server process / the bench database's backends / everything else.\n\n")
	fmt.Fprintf(w, "| subscribers | connect s | changes | messages | p50 ms | p99 ms | max ms | slowest p50 / p99 ms | missed | dropped | server heap + stacks per sub | server RSS per sub | server goroutines per sub | client heap+stacks per sub | CPU bench / server / pg / other | server CPU per message / per change and subscriber |\n")
	fmt.Fprintf(w, "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, f := range fanouts {
		if f.n == 1 {
			continue
		}
		per := func(a, b uint64) string {
			return fmt.Sprintf("%.1f KiB", float64(int64(b)-int64(a))/float64(f.n)/1024)
		}
		perMsg := "-"
		if f.msgs > 0 {
			used := f.server * f.streamed.Seconds() * 1e6
			perMsg = fmt.Sprintf("%.0f / %.0f µs", used/float64(f.msgs), used/float64(f.lat.Changes*f.n))
		}
		fmt.Fprintf(w, "| %d | %.1f | %d | %d | %s | %s | %s | %s / %s | %d | %d | %s + %s | %s | %.1f | %s | %.2f / %.2f / %.2f / %.2f%s | %s |\n",
			f.n, f.connect.Seconds(), f.lat.Changes, f.msgs,
			stats.Ms(stats.Percentile(f.lat.Lat, 50)), stats.Ms(stats.Percentile(f.lat.Lat, 99)), stats.Ms(stats.Percentile(f.lat.Lat, 100)),
			stats.Ms(stats.Percentile(f.lat.Slowest, 50)), stats.Ms(stats.Percentile(f.lat.Slowest, 99)), f.lat.Missed, f.dropped,
			per(f.base.HeapInuse, f.after.HeapInuse), per(f.base.StackInuse, f.after.StackInuse), per(f.base.RSS, f.after.RSS),
			float64(f.after.Goroutines-f.base.Goroutines)/float64(f.n), per(f.client0, f.client1),
			f.cpu.Bench, f.server, f.cpu.Postgres, f.cpu.Other, dagger(f.cpu), perMsg)
	}
	for _, f := range fanouts {
		if f.n == 1 {
			continue
		}
		if f.firstDrop != nil {
			fmt.Fprintf(w, "\n%d subscribers: the first dropped connection ended with: %v\n", f.n, f.firstDrop)
		}
		if f.failures > 0 {
			fmt.Fprintf(w, "\n%d subscribers: %d of %d changes failed.\n", f.n, f.failures, f.made)
		}
	}
}
