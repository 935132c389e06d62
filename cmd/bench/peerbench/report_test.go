package peerbench

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
)

// ms returns n latencies 1 ms, 2 ms, ... n ms.
func ms(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Millisecond
	}
	return out
}

var quiet = cpu.Use{Bench: 0.3, Postgres: 0.8, Other: 0.05}

// cell is a 2 s cell of 64 clients that made changes seat changes (half
// of them holds of 2 seats, all won) with server of the server's CPU.
func cell(workload, system string, round, changes int, server time.Duration) *Cell {
	return &Cell{
		Workload: workload, Clients: 64, System: system, Round: round,
		Held: changes / 4, Changes: changes, Elapsed: 2 * time.Second,
		CPU: quiet, Server: server, Tries: 1, Lat: ms(100),
	}
}

func TestRatios(t *testing.T) {
	const hot, many = "hot show (2 rows)", "many shows (64)"
	cells := []*Cell{
		// Round 1: Marquee 2.5x the changes at 0.4x the CPU per change;
		// round 2 (the peer first): 1.5x at 0.8x; round 3: 2.1x at 0.45x.
		cell(hot, MarqueeName, 0, 5000, 2000*time.Millisecond), cell(hot, PeerName, 0, 2000, 2000*time.Millisecond),
		cell(hot, PeerName, 1, 2000, 2000*time.Millisecond), cell(hot, MarqueeName, 1, 3000, 2400*time.Millisecond),
		cell(hot, MarqueeName, 2, 4200, 1890*time.Millisecond), cell(hot, PeerName, 2, 2000, 2000*time.Millisecond),
		// Many shows: one round, and a peer cell that changed nothing in
		// the second: no ratio from it.
		cell(many, MarqueeName, 0, 4000, 1000*time.Millisecond), cell(many, PeerName, 0, 1000, 1000*time.Millisecond),
		cell(many, MarqueeName, 1, 4000, 1000*time.Millisecond), cell(many, PeerName, 1, 0, 100*time.Millisecond),
	}
	rs := Ratios(Method{}, cells)
	if len(rs) != 2 || rs[0].Workload != hot || rs[1].Workload != many {
		t.Fatalf("Ratios = %+v, want the hot show then many shows, in the order they ran", rs)
	}
	round := func(fs []float64) []float64 {
		out := make([]float64, len(fs))
		for i, f := range fs {
			out[i] = float64(int(f*1000+0.5)) / 1000
		}
		return out
	}
	if got := round(rs[0].Changes); !slices.Equal(got, []float64{2.5, 1.5, 2.1}) {
		t.Errorf("hot show changes/s ratios = %v, want 2.5, 1.5, 2.1 (by round)", got)
	}
	if got := round(rs[0].ServerCPU); !slices.Equal(got, []float64{0.4, 0.8, 0.45}) {
		t.Errorf("hot show server CPU ratios = %v, want 0.4, 0.8, 0.45", got)
	}
	if !rs[0].ThroughputMet() || !rs[0].CPUMet() {
		t.Errorf("hot show: medians 2.1x and 0.45x meet both targets, got %v %v", rs[0].ThroughputMet(), rs[0].CPUMet())
	}
	if got := round(rs[1].Changes); !slices.Equal(got, []float64{4}) {
		t.Errorf("many shows ratios = %v, want only the first round's 4", got)
	}
	if got := round(rs[1].ServerCPU); !slices.Equal(got, []float64{0.25}) {
		t.Errorf("many shows server CPU ratios = %v, want 0.25", got)
	}

	t.Run("the targets are bounds met at equality", func(t *testing.T) {
		r := Ratio{Changes: []float64{1.9, 2.0, 2.6}, ServerCPU: []float64{0.5, 0.7, 0.4}}
		if !r.ThroughputMet() || !r.CPUMet() {
			t.Errorf("medians 2.0x and 0.5x: met %v %v, want both", r.ThroughputMet(), r.CPUMet())
		}
		r = Ratio{Changes: []float64{1.99}, ServerCPU: []float64{0.51}}
		if r.ThroughputMet() || r.CPUMet() {
			t.Errorf("1.99x and 0.51x: met %v %v, want neither", r.ThroughputMet(), r.CPUMet())
		}
		if (Ratio{}).ThroughputMet() || (Ratio{}).CPUMet() {
			t.Error("no rounds meet a target")
		}
	})
	t.Run("median of an even count is the mean of the middle two", func(t *testing.T) {
		if got := Median([]float64{3, 1, 2, 10}); got != 2.5 {
			t.Errorf("Median = %v, want 2.5", got)
		}
		if got := Median(nil); got != 0 {
			t.Errorf("Median(nil) = %v, want 0", got)
		}
	})
}

func TestWriteReport(t *testing.T) {
	const hot = "hot show (2 rows)"
	disturbed := cell(hot, PeerName, 1, 2000, 2000*time.Millisecond)
	disturbed.CPU, disturbed.Tries, disturbed.Errs = cpu.Use{Bench: 0.3, Postgres: 0.8, Other: 0.6}, 3, 2
	cells := []*Cell{
		cell(hot, MarqueeName, 0, 5000, 2000*time.Millisecond), cell(hot, PeerName, 0, 2000, 2000*time.Millisecond),
		disturbed, cell(hot, MarqueeName, 1, 3000, 2400*time.Millisecond),
	}
	cells[0].Conflicts = cells[0].Held // half the holds lost
	var sb strings.Builder
	WriteReport(&sb, Method{CPUs: 2, MaxOther: 0.25, Reruns: 2}, cells)
	out := sb.String()
	for _, want := range []string{
		"cores kept busy during the cell (of 2)",
		"in the system's database from this process",
		// 5000 changes in 2 s; 2 s of server CPU over 5000 changes, 0.8
		// cores of Postgres over 2 s likewise; nearest-rank percentiles.
		"| 1 | hot show (2 rows) | 64 | Marquee | 2500 | 50% | 0.40 | 0.32 | 50.0 | 99.0 | 0 | 0.30 / 1.00 / 0.80 / 0.05 |\n",
		"| 1 | hot show (2 rows) | 64 | overbookr | 1000 | 100% | 1.00 | 0.80 | 50.0 | 99.0 | 0 | 0.30 / 1.00 / 0.80 / 0.05 |\n",
		"| 2 | hot show (2 rows) | 64 | overbookr | 1000 | 100% | 1.00 | 0.80 | 50.0 | 99.0 | 2 | 0.30 / 1.00 / 0.80 / 0.60 † |\n",
		"1 were, and 1 (marked †) were still disturbed on their last run.\n",
		// Rounds 2.5x at 0.4x and 1.5x at 0.8x: medians 2.0x (met) and
		// 0.6x (missed).
		"| hot show (2 rows) † | 64 | 2.00x | met | 0.60x | missed | 2.50, 1.50; 0.40, 0.80 |\n",
		"Targets met in 0 of 1 comparisons (changes/s in 1, server CPU per change in 0).\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q\n%s", want, out)
		}
	}

	t.Run("Marquee's holds given back through its API", func(t *testing.T) {
		var sb strings.Builder
		WriteReport(&sb, Method{CPUs: 2, ReleaseAPI: true}, cells[:2])
		out := sb.String()
		if !strings.Contains(out, "through Marquee's API, or, for overbookr") || strings.Contains(out, "run again") {
			t.Errorf("report with -peer-release api and no -max-other:\n%s", out)
		}
	})
	t.Run("a peer cell without changes gives no ratio", func(t *testing.T) {
		var sb strings.Builder
		WriteReport(&sb, Method{CPUs: 2}, []*Cell{cell(hot, MarqueeName, 0, 100, time.Second), cell(hot, PeerName, 0, 0, time.Second)})
		if !strings.Contains(sb.String(), "| hot show (2 rows) | 64 | n/a | - | n/a | - | -; - |\n") {
			t.Errorf("report:\n%s", sb.String())
		}
	})
}
