package holdbench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// Method is what the report says about how the figures were taken.
type Method struct {
	CPUs        int     // the machine's
	MaxOther    float64 // -max-other: other work that makes a measurement disturbed (0: never)
	Reruns      int     // -reruns
	HotWorkload string  // the name of the workload the headline is about
}

func (m Method) disturbed(u cpu.Use) bool { return m.MaxOther > 0 && u.Other > m.MaxOther }

// StampedeTarget is the design's bound on a stampede's p99 for the fail-fast
// hold (the naive form measured ~780 ms).
const StampedeTarget = 50 * time.Millisecond

// WriteReport prints the cells, their ratios and the stampede as markdown.
func WriteReport(w io.Writer, m Method, cells []*Cell, stampedes []*Stampede) {
	fmt.Fprintf(w, "\n## Hold throughput and latency\n\n")
	fmt.Fprintf(w, "attempts/s counts every answered hold (201 and 409); holds/s only the 201s. Latency is of the hold\n")
	fmt.Fprintf(w, "request alone (the release that follows a win is untimed), over every answered attempt. CPU is the\n")
	fmt.Fprintf(w, "cores kept busy during the cell (of %d) by this process (clients, and the server for HTTP) / the\n", m.CPUs)
	fmt.Fprintf(w, "Postgres backends of the bench database / everything else on the machine.\n\n")
	fmt.Fprintf(w, "| round | workload | clients | impl | attempts/s | holds/s | won | p50 ms | p99 ms | errors | CPU bench / pg / other |\n")
	fmt.Fprintf(w, "|--:|---|--:|---|--:|--:|--:|--:|--:|--:|--:|\n")
	rr := &report.Reruns{MaxOther: m.MaxOther, Limit: m.Reruns}
	for _, c := range cells {
		won := "-"
		if c.Attempts() > 0 {
			won = fmt.Sprintf("%.0f%%", 100*float64(c.Held)/float64(c.Attempts()))
		}
		fmt.Fprintf(w, "| %d | %s | %d | %s | %.0f | %.0f | %s | %s | %s | %d | %s%s |\n",
			c.Round+1, c.Workload, c.Clients, c.Holder, c.PerSecond(c.Attempts()), c.PerSecond(c.Held), won,
			stats.Ms(stats.Percentile(c.Lat, 50)), stats.Ms(stats.Percentile(c.Lat, 99)), c.Errs+c.RelErrs, c.CPU, rr.Mark(c.Tries, c.CPU))
	}
	rr.Write(w, "measurement")

	// Ratios per (workload, clients) and round, in the order the cells ran;
	// a comparison's figure is the median of its rounds'.
	type key struct {
		workload string
		clients  int
	}
	var order []key
	byKey := map[key][]map[string]*Cell{} // by round, then implementation
	for _, c := range cells {
		k := key{c.Workload, c.Clients}
		if byKey[k] == nil {
			order = append(order, k)
		}
		for len(byKey[k]) <= c.Round {
			byKey[k] = append(byKey[k], map[string]*Cell{})
		}
		byKey[k][c.Round][c.Holder] = c
	}
	// ratios returns num/den of every round that has both, by attempts/s
	// or by holds/s, and whether a cell compared was disturbed.
	ratios := func(rounds []map[string]*Cell, num, den string, holds bool) (rs []float64, disturbed bool) {
		for _, byHolder := range rounds {
			n, d := byHolder[num], byHolder[den]
			if n == nil || d == nil {
				continue
			}
			nv, dv := n.PerSecond(n.Attempts()), d.PerSecond(d.Attempts())
			if holds {
				nv, dv = n.PerSecond(n.Held), d.PerSecond(d.Held)
			}
			if dv > 0 {
				rs = append(rs, nv/dv)
			}
			disturbed = disturbed || m.disturbed(n.CPU) || m.disturbed(d.CPU)
		}
		return rs, disturbed
	}
	median := func(rs []float64) string {
		if len(rs) == 0 {
			return "n/a"
		}
		rs = slices.Sorted(slices.Values(rs))
		mid := rs[len(rs)/2]
		if len(rs)%2 == 0 {
			mid = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
		}
		return fmt.Sprintf("%.2fx", mid)
	}
	each := func(rs []float64) string {
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = fmt.Sprintf("%.2f", r)
		}
		return strings.Join(parts, ", ")
	}
	pair := func(rounds []map[string]*Cell, num, den string) (string, bool) {
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
	hot := m.HotWorkload
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
			s.Clients, s.Rounds, StampedeSeats)
		fmt.Fprintf(w, "each client asks for a random pair of the %d (so up to 3 win a round). Target: p99 < %s for SQL and HTTP.\n\n",
			StampedeSeats, StampedeTarget)
	}
	fmt.Fprintf(w, "| impl | requests | won | max won/round | p50 ms | p99 ms | max ms | errors | p99 target | CPU bench / pg / other |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|---|--:|\n")
	for _, s := range stampedes {
		target := "-"
		if s.Holder != "naive" {
			target = "met"
			if stats.Percentile(s.Lat, 99) >= StampedeTarget {
				target = "missed"
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s | %s | %d | %s | %s%s |\n", s.Holder, s.Requests(), s.Held, s.MaxWinners,
			stats.Ms(stats.Percentile(s.Lat, 50)), stats.Ms(stats.Percentile(s.Lat, 99)), stats.Ms(stats.Percentile(s.Lat, 100)), s.Errs, target, s.CPU,
			rr.Mark(s.Tries, s.CPU))
	}
	rr.Write(w, "measurement")
}
