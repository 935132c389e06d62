package holdbench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/holdbench"
)

// ms returns n latencies 1 ms, 2 ms, ... n ms.
func ms(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Millisecond
	}
	return out
}

var quiet = cpu.Use{Bench: 0.4, Postgres: 1.3, Other: 0.05}

func cell(workload, holder string, round, attempts, held int) *holdbench.Cell {
	return &holdbench.Cell{
		Workload: workload, Clients: 64, Holder: holder, Round: round,
		Held: held, Conflicts: attempts - held, Elapsed: 2 * time.Second, CPU: quiet, Tries: 1, Lat: ms(100),
	}
}

func TestWriteReport(t *testing.T) {
	const hot, many = "hot show (2 rows)", "many shows (64)"
	disturbed := cell(hot, "HTTP", 1, 2000, 180)
	disturbed.CPU, disturbed.Tries = cpu.Use{Bench: 0.5, Postgres: 1.0, Other: 0.6}, 3
	cells := []*holdbench.Cell{
		// Per second (2 s cells): naive 1000 / 100 held, SQL 1500 / 120,
		// HTTP 1200 / 110; then naive 1000 / 100, SQL 1400 / 130, HTTP 1000 / 90.
		cell(hot, "naive", 0, 2000, 200), cell(hot, "SQL", 0, 3000, 240), cell(hot, "HTTP", 0, 2400, 220),
		disturbed, cell(hot, "SQL", 1, 2800, 260), cell(hot, "naive", 1, 2000, 200),
		cell(many, "naive", 0, 1000, 1000), cell(many, "SQL", 0, 1200, 1200), cell(many, "HTTP", 0, 900, 900),
	}
	stampede := func(holder string, p99 time.Duration) *holdbench.Stampede {
		lat := ms(99)
		lat = append(lat, p99, p99) // of 101 samples the 51st is the median, the 100th the 99th percentile
		return &holdbench.Stampede{Holder: holder, Clients: 64, Rounds: 20, Held: 60, Conflicts: 1220, MaxWinners: 3,
			CPU: quiet, Tries: 1, Lat: lat}
	}
	stampedes := []*holdbench.Stampede{stampede("naive", 80*time.Millisecond), stampede("SQL", 20*time.Millisecond), stampede("HTTP", 60*time.Millisecond)}
	stampedes[1].Tries = 2
	var sb strings.Builder
	holdbench.WriteReport(&sb, holdbench.Method{CPUs: 2, MaxOther: 0.25, Reruns: 2, HotWorkload: hot}, cells, stampedes)
	out := sb.String()

	for _, want := range []string{
		"cores kept busy during the cell (of 2) by this process",
		// A cell: rates over its 2 s, the share won, nearest-rank percentiles of 1..100 ms.
		"| 1 | hot show (2 rows) | 64 | naive | 1000 | 100 | 10% | 50.0 | 99.0 | 0 | 0.40 / 1.30 / 0.05 |\n",
		"| 2 | hot show (2 rows) | 64 | HTTP | 1000 | 90 | 9% | 50.0 | 99.0 | 0 | 0.50 / 1.00 / 0.60 † |\n",
		"| 1 | many shows (64) | 64 | SQL | 600 | 600 | 100% | 50.0 | 99.0 | 0 | 0.40 / 1.30 / 0.05 |\n",
		// One cell re-run, still disturbed.
		"1 were, and 1 (marked †) were still disturbed on their last run.\n",
		// Ratios: the median of the rounds' (two: their mean), attempts / holds.
		// SQL/naive 1.5, 1.4 / 1.2, 1.3; HTTP/naive 1.2, 1.0 / 1.1, 0.9;
		// HTTP/SQL 0.8, 0.714 / 0.917, 0.692.
		"| hot show (2 rows) † | 64 | 1.45x / 1.25x | 1.10x / 1.00x | 0.76x / 0.80x | 1.20, 1.00 |\n",
		"| many shows (64) | 64 | 1.20x / 1.20x | 0.90x / 0.90x | 0.75x / 0.75x | 0.90 |\n",
		"Headline (target >= 1.00x): HTTP vs naive on the hot show at 64 clients, median of 2 rounds:\n" +
			"attempts/s 1.10x (rounds: 1.20, 1.00), holds/s 1.00x (rounds: 1.10, 0.90).\n",
		"64 clients released together by a barrier, 20 rounds, each round on 6 fresh seats of a fresh show;\n",
		"Target: p99 < 50ms for SQL and HTTP.",
		// The stampede's target is for SQL and HTTP only.
		"| naive | 1280 | 60 | 3 | 51.0 | 80.0 | 80.0 | 0 | - | 0.40 / 1.30 / 0.05 |\n",
		"| SQL | 1280 | 60 | 3 | 51.0 | 20.0 | 20.0 | 0 | met | 0.40 / 1.30 / 0.05 |\n",
		"| HTTP | 1280 | 60 | 3 | 51.0 | 60.0 | 60.0 | 0 | missed | 0.40 / 1.30 / 0.05 |\n",
		// The stampede's own count: one re-run, none still disturbed.
		"1 were, and 0 (marked †) were still disturbed on their last run.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "## Hold throughput"), strings.Index(out, "## Throughput ratios"); i < 0 || j < i || !strings.Contains(out[j:], "## Stampede") {
		t.Errorf("sections out of order:\n%s", out)
	}

	t.Run("no re-runs asked, nothing said of them", func(t *testing.T) {
		var sb strings.Builder
		holdbench.WriteReport(&sb, holdbench.Method{CPUs: 2, HotWorkload: hot}, cells, stampedes)
		out := sb.String()
		if strings.Contains(out, "run again") || !strings.Contains(out, "| 0.50 / 1.00 / 0.60 |\n") || !strings.Contains(out, "| hot show (2 rows) | 64 | 1.45x") {
			t.Errorf("a report without -max-other mentions re-runs or disturbance:\n%s", out)
		}
	})
	t.Run("no hot show at 64 clients, no headline", func(t *testing.T) {
		var sb strings.Builder
		holdbench.WriteReport(&sb, holdbench.Method{CPUs: 2, HotWorkload: "elsewhere"}, cells, nil)
		if strings.Contains(sb.String(), "Headline") || strings.Contains(sb.String(), "released together") {
			t.Errorf("headline or stampede text without their figures:\n%s", sb.String())
		}
	})
}
