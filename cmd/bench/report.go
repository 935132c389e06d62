package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// stampedeTarget is DESIGN.md's bound on a stampede's p99 for the fail-fast
// hold (the naive form measured ~780 ms).
const stampedeTarget = 50 * time.Millisecond

// writeReport prints the cells, their ratios and the stampede as markdown.
func writeReport(w io.Writer, b *bench, cells []*cell, stampedes []*stampede) {
	fmt.Fprintf(w, "\n## Hold throughput and latency\n\n")
	fmt.Fprintf(w, "attempts/s counts every answered hold (201 and 409); holds/s only the 201s. Latency is of the hold\n")
	fmt.Fprintf(w, "request alone (the release that follows a win is untimed), over every answered attempt. CPU is the\n")
	fmt.Fprintf(w, "cores kept busy during the cell (of %d) by this process (clients, and the server for HTTP) / the\n", runtime.NumCPU())
	fmt.Fprintf(w, "Postgres backends of the bench database / everything else on the machine.\n\n")
	fmt.Fprintf(w, "| round | workload | clients | impl | attempts/s | holds/s | won | p50 ms | p99 ms | errors | CPU bench / pg / other |\n")
	fmt.Fprintf(w, "|--:|---|--:|---|--:|--:|--:|--:|--:|--:|--:|\n")
	reran, still := 0, 0
	mark := func(tries int, u cpuUse) string {
		if tries > 1 {
			reran++
		}
		if b.disturbed(u) {
			still++
			return " †"
		}
		return ""
	}
	for _, c := range cells {
		won := "-"
		if c.attempts() > 0 {
			won = fmt.Sprintf("%.0f%%", 100*float64(c.held)/float64(c.attempts()))
		}
		fmt.Fprintf(w, "| %d | %s | %d | %s | %.0f | %.0f | %s | %s | %s | %d | %s%s |\n",
			c.round+1, c.workload, c.clients, c.impl, c.perSecond(c.attempts()), c.perSecond(c.held), won,
			stats.Ms(stats.Percentile(c.lat, 50)), stats.Ms(stats.Percentile(c.lat, 99)), c.errs+c.relErrs, c.cpu, mark(c.tries, c.cpu))
	}
	disturbance := func() {
		if b.cfg.maxOther <= 0 {
			return
		}
		fmt.Fprintf(w, "\nA measurement during which other work took more than %.2f cores was run again (at most %d times):\n",
			b.cfg.maxOther, b.cfg.reruns)
		fmt.Fprintf(w, "%d were, and %d (marked †) were still disturbed on their last run.\n", reran, still)
	}
	disturbance()

	// Ratios per (workload, clients) and round, in the order the cells ran;
	// a comparison's figure is the median of its rounds'.
	type key struct {
		workload string
		clients  int
	}
	var order []key
	byKey := map[key][]map[string]*cell{} // by round, then implementation
	for _, c := range cells {
		k := key{c.workload, c.clients}
		if byKey[k] == nil {
			order = append(order, k)
		}
		for len(byKey[k]) <= c.round {
			byKey[k] = append(byKey[k], map[string]*cell{})
		}
		byKey[k][c.round][c.impl] = c
	}
	// ratios returns num/den of every round that has both, by attempts/s
	// or by holds/s, and whether a cell compared was disturbed.
	ratios := func(rounds []map[string]*cell, num, den string, holds bool) (rs []float64, disturbed bool) {
		for _, m := range rounds {
			n, d := m[num], m[den]
			if n == nil || d == nil {
				continue
			}
			nv, dv := n.perSecond(n.attempts()), d.perSecond(d.attempts())
			if holds {
				nv, dv = n.perSecond(n.held), d.perSecond(d.held)
			}
			if dv > 0 {
				rs = append(rs, nv/dv)
			}
			disturbed = disturbed || b.disturbed(n.cpu) || b.disturbed(d.cpu)
		}
		return rs, disturbed
	}
	median := func(rs []float64) string {
		if len(rs) == 0 {
			return "n/a"
		}
		rs = slices.Sorted(slices.Values(rs))
		m := rs[len(rs)/2]
		if len(rs)%2 == 0 {
			m = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
		}
		return fmt.Sprintf("%.2fx", m)
	}
	each := func(rs []float64) string {
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = fmt.Sprintf("%.2f", r)
		}
		return strings.Join(parts, ", ")
	}
	pair := func(rounds []map[string]*cell, num, den string) (string, bool) {
		a, d1 := ratios(rounds, num, den, false)
		h, d2 := ratios(rounds, num, den, true)
		return median(a) + " / " + median(h), d1 || d2
	}
	fmt.Fprintf(w, "\n## Throughput ratios\n\n")
	fmt.Fprintf(w, "Each cell: attempts/s ratio / holds/s ratio, the median of the rounds' ratios; the last column gives\n")
	fmt.Fprintf(w, "every round's HTTP/naive attempts/s ratio. † : a cell compared was disturbed.\n\n")
	fmt.Fprintf(w, "| workload | clients | SQL/naive | HTTP/naive | HTTP/SQL | HTTP/naive by round |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|---|\n")
	for _, k := range order {
		rounds := byKey[k]
		sn, d1 := pair(rounds, "SQL", "naive")
		hn, d2 := pair(rounds, "HTTP", "naive")
		hs, d3 := pair(rounds, "HTTP", "SQL")
		dagger := ""
		if d1 || d2 || d3 {
			dagger = " †"
		}
		byRound, _ := ratios(rounds, "HTTP", "naive", false)
		fmt.Fprintf(w, "| %s%s | %d | %s | %s | %s | %s |\n", k.workload, dagger, k.clients, sn, hn, hs, each(byRound))
	}
	hot := b.workloads()[1].name
	if rounds, ok := byKey[key{hot, 64}]; ok {
		a, _ := ratios(rounds, "HTTP", "naive", false)
		h, _ := ratios(rounds, "HTTP", "naive", true)
		if len(a) > 0 {
			fmt.Fprintf(w, "\nHeadline (target >= 1.00x): HTTP vs naive on the hot show at 64 clients, median of %d rounds:\n", len(a))
			fmt.Fprintf(w, "attempts/s %s (rounds: %s), holds/s %s (rounds: %s).\n", median(a), each(a), median(h), each(h))
		}
	}

	fmt.Fprintf(w, "\n## Stampede\n\n")
	if len(stampedes) > 0 {
		s := stampedes[0]
		fmt.Fprintf(w, "%d clients released together by a barrier, %d rounds, each round on %d fresh seats of a fresh show;\n",
			s.clients, s.rounds, stampedeSeats)
		fmt.Fprintf(w, "each client asks for a random pair of the %d (so up to 3 win a round). Target: p99 < %s for SQL and HTTP.\n\n",
			stampedeSeats, stampedeTarget)
	}
	fmt.Fprintf(w, "| impl | requests | won | max won/round | p50 ms | p99 ms | max ms | errors | p99 target | CPU bench / pg / other |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|---|--:|\n")
	for _, s := range stampedes {
		target := "-"
		if s.impl != "naive" {
			target = "met"
			if stats.Percentile(s.lat, 99) >= stampedeTarget {
				target = "missed"
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s | %s | %d | %s | %s%s |\n", s.impl, s.requests(), s.held, s.maxWinners,
			stats.Ms(stats.Percentile(s.lat, 50)), stats.Ms(stats.Percentile(s.lat, 99)), stats.Ms(stats.Percentile(s.lat, 100)), s.errs, target, s.cpu,
			mark(s.tries, s.cpu))
	}
	reran, still = 0, 0
	for _, s := range stampedes {
		if s.tries > 1 {
			reran++
		}
		if b.disturbed(s.cpu) {
			still++
		}
	}
	disturbance()
}
