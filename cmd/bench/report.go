package main

import (
	"fmt"
	"io"
	"runtime"
	"time"
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
	fmt.Fprintf(w, "| workload | clients | impl | attempts/s | holds/s | won | p50 ms | p99 ms | errors | CPU bench / pg / other |\n")
	fmt.Fprintf(w, "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|\n")
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
		fmt.Fprintf(w, "| %s | %d | %s | %.0f | %.0f | %s | %s | %s | %d | %s%s |\n",
			c.workload, c.clients, c.impl, c.perSecond(c.attempts()), c.perSecond(c.held), won,
			ms(percentile(c.lat, 50)), ms(percentile(c.lat, 99)), c.errs+c.relErrs, c.cpu, mark(c.tries, c.cpu))
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

	// Ratios per (workload, clients), in the order the cells ran.
	type key struct {
		workload string
		clients  int
	}
	var order []key
	byKey := map[key]map[string]*cell{}
	for _, c := range cells {
		k := key{c.workload, c.clients}
		if byKey[k] == nil {
			byKey[k] = map[string]*cell{}
			order = append(order, k)
		}
		byKey[k][c.impl] = c
	}
	ratio := func(num, den *cell, holds bool) string {
		if num == nil || den == nil {
			return "n/a"
		}
		n, d := num.perSecond(num.attempts()), den.perSecond(den.attempts())
		if holds {
			n, d = num.perSecond(num.held), den.perSecond(den.held)
		}
		if d == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2fx", n/d)
	}
	fmt.Fprintf(w, "\n## Throughput ratios\n\n")
	fmt.Fprintf(w, "Each cell: attempts/s ratio / holds/s ratio. † : one of the cells compared was disturbed.\n\n")
	fmt.Fprintf(w, "| workload | clients | SQL/naive | HTTP/naive | HTTP/SQL |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|\n")
	for _, k := range order {
		m := byKey[k]
		dagger := ""
		for _, c := range m {
			if b.disturbed(c.cpu) {
				dagger = " †"
			}
		}
		fmt.Fprintf(w, "| %s%s | %d | %s / %s | %s / %s | %s / %s |\n", k.workload, dagger, k.clients,
			ratio(m["SQL"], m["naive"], false), ratio(m["SQL"], m["naive"], true),
			ratio(m["HTTP"], m["naive"], false), ratio(m["HTTP"], m["naive"], true),
			ratio(m["HTTP"], m["SQL"], false), ratio(m["HTTP"], m["SQL"], true))
	}
	hot := b.workloads()[1].name
	hk := key{hot, 64}
	if m, ok := byKey[hk]; ok && m["HTTP"] != nil && m["naive"] != nil {
		fmt.Fprintf(w, "\nHeadline (target >= 1.00x): HTTP vs naive on the hot show at 64 clients: attempts/s %s, holds/s %s.\n",
			ratio(m["HTTP"], m["naive"], false), ratio(m["HTTP"], m["naive"], true))
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
			if percentile(s.lat, 99) >= stampedeTarget {
				target = "missed"
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s | %s | %d | %s | %s%s |\n", s.impl, s.requests(), s.held, s.maxWinners,
			ms(percentile(s.lat, 50)), ms(percentile(s.lat, 99)), ms(percentile(s.lat, 100)), s.errs, target, s.cpu,
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
