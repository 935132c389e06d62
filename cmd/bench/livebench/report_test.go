package livebench

import (
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/announce"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/holdbench"
	"github.com/marquee-tickets/marquee/cmd/bench/stream"
)

func ms(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Millisecond
	}
	return out
}

func TestWriteReport(t *testing.T) {
	ways := announce.Ways(50)
	none, design, naive1, naiveN := ways[0], ways[1], ways[2], ways[3]
	quiet := cpu.Use{Bench: 0.3, Postgres: 1.4, Other: 0.05}
	cellOf := func(workload string, clients int, a announce.Way, round, attempts, held int) *announceCell {
		c := &announceCell{Cell: &holdbench.Cell{
			Workload: workload, Clients: clients, Holder: "SQL", Held: held, Conflicts: attempts - held,
			Elapsed: time.Second, CPU: quiet, Tries: 1, Lat: ms(100),
		}, a: a, round: round}
		if a.Events || a.Naive {
			c.obs = stream.Latencies{Lat: ms(10), Changes: 10}
		}
		if a.Events {
			c.maxEvents, c.leftEvents = 35, 4
		}
		return c
	}
	const many, hot = "many shows (64)", "hot show (2 rows)"
	disturbed := cellOf(hot, 64, design, 1, 2400, 240)
	disturbed.CPU, disturbed.Tries = cpu.Use{Bench: 0.3, Postgres: 1.0, Other: 0.7}, 3
	undrained := cellOf(many, 8, design, 2, 850, 850)
	undrained.cleared = 12
	cells := []*announceCell{
		cellOf(many, 8, none, 1, 1000, 1000), cellOf(many, 8, design, 1, 950, 950), cellOf(many, 8, naive1, 1, 600, 600),
		{Cell: &holdbench.Cell{Workload: many, Clients: 8, Holder: "SQL"}, a: naiveN, round: 1, skipped: "only 20 connections free on the server, 76 needed"},
		undrained, cellOf(many, 8, none, 2, 1000, 1000),
		cellOf(hot, 64, none, 1, 3000, 300), disturbed,
	}
	fanouts := []*fanout{
		{n: 1, a: design, lat: stream.Latencies{Lat: ms(100), Changes: 100}, cpu: quiet, server: 0.03},
		{n: 1, a: naive1, lat: stream.Latencies{Lat: ms(20), Changes: 20, Early: 1}, cpu: quiet, server: 0.02},
		{n: 1000, a: design, connect: 2500 * time.Millisecond, lat: stream.Latencies{Lat: ms(100), Slowest: ms(10), Changes: 10},
			msgs: 9000, base: appserver.Stats{HeapInuse: 1 << 20, StackInuse: 1 << 20, RSS: 10 << 20, Goroutines: 10},
			after:   appserver.Stats{HeapInuse: 1<<20 + 1000*28*1024, StackInuse: 1<<20 + 1000*22*1024, RSS: 10<<20 + 1000*66*1024, Goroutines: 3010},
			client0: 0, client1: 1000 * 16 * 1024, cpu: quiet, server: 0.3, streamed: 10 * time.Second, dropped: 2, failures: 1, made: 11},
	}
	fanouts[2].firstDrop = testError("status = StatusPolicyViolation")
	var sb strings.Builder
	writeReport(&sb, reportMethod{MaxOther: 0.25, Reruns: 2, Listeners: 50, Rate: 10, Stream: 10 * time.Second}, cells, fanouts)
	out := sb.String()
	for _, want := range []string{
		"the no-announcements fixture", "that plus 49 more connections",
		"| many shows (64) | 8 | 1 | none (seat_events off) | 1000 | 1000 | 100% | 50.0 | 99.0 | 0 | - | - | 0.30 / 1.40 / 0.05 |\n",
		"| many shows (64) | 8 | 1 | design: seat_events + notifier 50 ms, 1 listener | 950 | 950 | 100% | 50.0 | 99.0 | 0 | 5.00 / 10.0 / 10.0 | 35 / 4 | 0.30 / 1.40 / 0.05 |\n",
		"| many shows (64) | 8 | 1 | naive pg_notify, 50 listeners | skipped: only 20 connections free on the server, 76 needed |",
		"| hot show (2 rows) | 64 | 1 | design: seat_events + notifier 50 ms, 1 listener | 2400 | 240 | 10% |",
		"0.30 / 1.00 / 0.70 † |\n",
		"run again (at most 2 times):\n1 were, and 1 (marked †) were still disturbed",
		"1 cells not drained by the notifier within 5 s",
		// Every round's cells pooled: (950 + 850) / (1000 + 1000).
		"| many shows (64) | 8 | 0.90x / 0.90x (rounds 0.95x, 0.85x) | met | 0.60x / 0.60x | n/a |\n",
		"| hot show (2 rows) | 64 | 0.80x / 0.80x † | missed | n/a | n/a |\n",
		"a stream of 10 holds/releases per second for 10s",
		"| design: seat_events + notifier 50 ms, 1 listener | 100 | 100 | 50.0 | 99.0 | 100 | 0 | 0.30 / 0.03 / 1.40 / 0.05 |\n",
		"| naive pg_notify, 1 listener | 20 | 20 | 10.0 | 20.0 | 20.0 | 1 | 0.30 / 0.02 / 1.40 / 0.05 |\n",
		// Per subscriber: (after - before) / N; server CPU 0.3 x 10 s over
		// 9,000 messages and over 10 changes x 1,000 subscribers.
		"| 1000 | 2.5 | 10 | 9000 | 50.0 | 99.0 | 100 | 5.00 / 10.0 | 0 | 2 | 28.0 KiB + 22.0 KiB | 66.0 KiB | 3.0 | 16.0 KiB | 0.30 / 0.30 / 1.40 / 0.05 | 333 / 300 µs |\n",
		"1000 subscribers: the first dropped connection ended with: status = StatusPolicyViolation\n",
		"1000 subscribers: 1 of 11 changes failed.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q\n%s", want, out)
		}
	}
}

type testError string

func (e testError) Error() string { return string(e) }
