package peerbench

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/marquee-tickets/marquee/cmd/bench/report"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// The targets of Marquee against the peer, in the same run: at least
// ThroughputTarget times its seat changes per second at no more than
// CPUTarget times its server CPU per change.
const (
	ThroughputTarget = 2.0
	CPUTarget        = 0.5
)

// The systems' names, as cells carry them.
const (
	MarqueeName = "Marquee"
	PeerName    = "overbookr"
)

// Method is what the report says about how the figures were taken.
type Method struct {
	CPUs       int     // the machine's
	MaxOther   float64 // -max-other (0: never re-run)
	Reruns     int     // -reruns
	ReleaseAPI bool    // Marquee's holds given back through its API
}

func (m Method) disturbed(c *Cell) bool { return m.MaxOther > 0 && c.CPU.Other > m.MaxOther }

// Ratio is Marquee against the peer on one workload at one concurrency:
// each round's ratio of the two systems' figures, in round order.
type Ratio struct {
	Workload  string
	Clients   int
	Changes   []float64 // Marquee's seat changes per second over the peer's
	ServerCPU []float64 // Marquee's server CPU per change over the peer's
	Disturbed bool      // a cell compared was still disturbed
}

// ThroughputMet reports whether the median of the rounds meets
// ThroughputTarget.
func (r Ratio) ThroughputMet() bool {
	return len(r.Changes) > 0 && Median(r.Changes) >= ThroughputTarget
}

// CPUMet reports whether the median of the rounds meets CPUTarget.
func (r Ratio) CPUMet() bool { return len(r.ServerCPU) > 0 && Median(r.ServerCPU) <= CPUTarget }

// Ratios pairs each round's Marquee cell with its peer cell, per workload
// and number of clients in the order the cells ran. A round without both
// cells, or whose peer cell made no change, gives no ratio.
func Ratios(m Method, cells []*Cell) []Ratio {
	type key struct {
		workload string
		clients  int
	}
	var out []Ratio
	index := map[key]int{}                 // in out
	rounds := map[key][]map[string]*Cell{} // by round, then system
	for _, c := range cells {
		k := key{c.Workload, c.Clients}
		if _, ok := index[k]; !ok {
			index[k] = len(out)
			out = append(out, Ratio{Workload: c.Workload, Clients: c.Clients})
		}
		for len(rounds[k]) <= c.Round {
			rounds[k] = append(rounds[k], map[string]*Cell{})
		}
		rounds[k][c.Round][c.System] = c
	}
	for k, i := range index {
		r := &out[i]
		for _, pair := range rounds[k] {
			mq, peer := pair[MarqueeName], pair[PeerName]
			if mq == nil || peer == nil || peer.Changes == 0 {
				continue
			}
			r.Changes = append(r.Changes, mq.PerSecond(mq.Changes)/peer.PerSecond(peer.Changes))
			if mq.Changes > 0 && peer.ServerPerChange() > 0 {
				r.ServerCPU = append(r.ServerCPU, float64(mq.ServerPerChange())/float64(peer.ServerPerChange()))
			}
			r.Disturbed = r.Disturbed || m.disturbed(mq) || m.disturbed(peer)
		}
	}
	return out
}

// Median is the middle of rs, the mean of the two middle ones for an even
// count; 0 for none.
func Median(rs []float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(rs))
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// WriteReport prints the cells and Marquee's ratios to the peer as
// markdown.
func WriteReport(w io.Writer, m Method, cells []*Cell) {
	fmt.Fprintf(w, "\n## Seat changes\n\n")
	fmt.Fprintf(w, "A seat change is a seat held or released, as the system confirmed it: the seats of a hold answered 201,\n")
	fmt.Fprintf(w, "the seats a release made available. Each client asks for 2 seats, and gives back what it won (untimed)\n")
	if m.ReleaseAPI {
		fmt.Fprintf(w, "through Marquee's API, or, for overbookr, which has no way to, in its database as its expiry worker does.\n")
	} else {
		fmt.Fprintf(w, "in the system's database from this process, overbookr's API having no way to (Marquee: Store.CancelHold;\n")
		fmt.Fprintf(w, "overbookr: as its expiry worker ends a hold).\n")
	}
	fmt.Fprintf(w, "Per change: the CPU time of the server process and of the Postgres backends of the system's database.\n")
	fmt.Fprintf(w, "p50/p99 are of the hold request, won or lost. CPU is the cores kept busy during the cell (of %d) by this\n", m.CPUs)
	fmt.Fprintf(w, "process (the clients, and the releases made here) / the server / the backends / everything else.\n\n")
	fmt.Fprintf(w, "| round | workload | clients | system | changes/s | holds won | server ms/change | pg ms/change | p50 ms | p99 ms | errors | CPU bench / server / pg / other |\n")
	fmt.Fprintf(w, "|--:|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	rr := &report.Reruns{MaxOther: m.MaxOther, Limit: m.Reruns}
	for _, c := range cells {
		won := "-"
		if c.Attempts() > 0 {
			won = fmt.Sprintf("%.0f%%", 100*float64(c.Held)/float64(c.Attempts()))
		}
		use := "?"
		if c.Elapsed > 0 {
			server := c.Server.Seconds() / c.Elapsed.Seconds()
			if c.CPU.Other < 0 {
				use = fmt.Sprintf("%.2f / %.2f / ? / ?", c.CPU.Bench, server)
			} else {
				use = fmt.Sprintf("%.2f / %.2f / %.2f / %.2f", c.CPU.Bench, server, c.CPU.Postgres, c.CPU.Other)
			}
		}
		fmt.Fprintf(w, "| %d | %s | %d | %s | %.0f | %s | %s | %s | %s | %s | %d | %s%s |\n",
			c.Round+1, c.Workload, c.Clients, c.System, c.PerSecond(c.Changes), won,
			stats.Ms(c.ServerPerChange()), stats.Ms(c.PostgresPerChange()),
			stats.Ms(stats.Percentile(c.Lat, 50)), stats.Ms(stats.Percentile(c.Lat, 99)), c.Errs, use, rr.Mark(c.Tries, c.CPU))
	}
	rr.Write(w, "cell")

	ratios := Ratios(m, cells)
	fmt.Fprintf(w, "\n## Marquee against overbookr\n\n")
	fmt.Fprintf(w, "Marquee's figure over overbookr's, the median of the rounds' ratios (the last column: each round's).\n")
	fmt.Fprintf(w, "Targets: changes/s >= %.1fx, server CPU per change <= %.1fx. † : a cell compared was disturbed.\n\n", ThroughputTarget, CPUTarget)
	fmt.Fprintf(w, "| workload | clients | changes/s | target | server CPU per change | target | by round: changes/s; server CPU |\n")
	fmt.Fprintf(w, "|---|--:|--:|---|--:|---|---|\n")
	var both, throughput, perChange int
	for _, r := range ratios {
		dagger := ""
		if r.Disturbed {
			dagger = " †"
		}
		fmt.Fprintf(w, "| %s%s | %d | %s | %s | %s | %s | %s; %s |\n", r.Workload, dagger, r.Clients,
			times(r.Changes), metOrMissed(r.Changes, r.ThroughputMet()), times(r.ServerCPU), metOrMissed(r.ServerCPU, r.CPUMet()),
			each(r.Changes), each(r.ServerCPU))
		if r.ThroughputMet() {
			throughput++
		}
		if r.CPUMet() {
			perChange++
		}
		if r.ThroughputMet() && r.CPUMet() {
			both++
		}
	}
	if len(ratios) > 0 {
		fmt.Fprintf(w, "\nTargets met in %d of %d comparisons (changes/s in %d, server CPU per change in %d).\n",
			both, len(ratios), throughput, perChange)
	}
}

// times is the median of rs as a ratio, or n/a.
func times(rs []float64) string {
	if len(rs) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", Median(rs))
}

func metOrMissed(rs []float64, met bool) string {
	switch {
	case len(rs) == 0:
		return "-"
	case met:
		return "met"
	}
	return "missed"
}

// each lists rs with two decimals.
func each(rs []float64) string {
	if len(rs) == 0 {
		return "-"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%.2f", r)
	}
	return strings.Join(parts, ", ")
}
