package pageperf

import (
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

func tasks(durations ...time.Duration) []Task {
	var out []Task
	at := 100 * ms
	for _, d := range durations {
		out = append(out, Task{Start: at, Duration: d})
		at += d + 10*ms
	}
	return out
}

func TestLoadFigures(t *testing.T) {
	l := Load{Tasks: tasks(60*ms, 250*ms, 90*ms), Reached: true, Idle: 3 * time.Second}
	if got := l.Total(); got != 400*ms {
		t.Errorf("Total = %v, want 400ms", got)
	}
	if got := l.Longest(); got != 250*ms {
		t.Errorf("Longest = %v, want 250ms", got)
	}
	if got := l.Count(); got != 3 {
		t.Errorf("Count = %d, want 3", got)
	}
	if got := l.Tasks[1].End(); got != 170*ms+250*ms {
		t.Errorf("End of the second task = %v, want 420ms", got)
	}

	// A page still blocked at the cap: the blocked stretch counts as one
	// more task, and the figures are lower bounds.
	capped := Load{Tasks: tasks(60 * ms), Cap: 30 * time.Second, Blocked: 29 * time.Second}
	if got := capped.Total(); got != 29*time.Second+60*ms {
		t.Errorf("capped Total = %v, want 29.06s", got)
	}
	if got := capped.Longest(); got != 29*time.Second {
		t.Errorf("capped Longest = %v, want 29s", got)
	}
	if got := capped.Count(); got != 2 {
		t.Errorf("capped Count = %d, want 2", got)
	}
	// Blocked means nothing once the page reached idle.
	l.Blocked = time.Hour
	if l.Total() != 400*ms || l.Count() != 3 {
		t.Errorf("a load that reached idle counts its Blocked: total %v, count %d", l.Total(), l.Count())
	}
}

func TestSummarize(t *testing.T) {
	loads := []Load{
		{Tasks: tasks(300 * ms), Reached: true, Idle: 4 * time.Second, Other: 0.1},
		{Tasks: tasks(100*ms, 60*ms), Reached: true, Idle: 2 * time.Second, Other: 0.4},
		{Tasks: tasks(900 * ms), Reached: true, Idle: 6 * time.Second, Other: 0},
	}
	s := Summarize(loads)
	if s.Loads != 3 || s.Capped != 0 {
		t.Fatalf("loads %d capped %d, want 3 and 0", s.Loads, s.Capped)
	}
	if s.TotalMedian != 300*ms || s.TotalWorst != 900*ms {
		t.Errorf("total median / worst = %v / %v, want 300ms / 900ms", s.TotalMedian, s.TotalWorst)
	}
	if s.CountMedian != 1 || s.CountWorst != 2 {
		t.Errorf("count median / worst = %d / %d, want 1 / 2", s.CountMedian, s.CountWorst)
	}
	if s.Longest != 900*ms {
		t.Errorf("longest = %v, want 900ms", s.Longest)
	}
	if s.IdleMedian != 4*time.Second || s.IdleWorst != 6*time.Second {
		t.Errorf("idle median / worst = %v / %v, want 4s / 6s", s.IdleMedian, s.IdleWorst)
	}
	if s.OtherMax != 0.4 {
		t.Errorf("other max = %v, want 0.4", s.OtherMax)
	}
	if s.MedianCapped() || s.WorstCapped() {
		t.Error("no load was capped")
	}
	targets := Targets{LongTasks: 200 * ms, ClickP99: 100 * ms}
	if s.Met(targets) {
		t.Error("a worst load of 900 ms meets a 200 ms target")
	}
	if !Summarize(loads[1:2]).Met(targets) {
		t.Error("a load of 160 ms misses a 200 ms target")
	}
	if Summarize(nil).Met(targets) {
		t.Error("no loads meet the target")
	}
}

// A capped load is worse than any load that reached idle, even one with
// more long-task time: its figures are lower bounds.
func TestSummarizeCapped(t *testing.T) {
	loads := []Load{
		{Tasks: tasks(80 * ms), Reached: true, Idle: time.Second},
		{Tasks: tasks(5 * time.Second), Reached: true, Idle: 7 * time.Second},
		{Cap: 30 * time.Second, Blocked: 2 * time.Second},
	}
	s := Summarize(loads)
	if s.Capped != 1 || s.Cap != 30*time.Second {
		t.Fatalf("capped %d at %v, want 1 at 30s", s.Capped, s.Cap)
	}
	if s.TotalWorst != 2*time.Second || !s.WorstCapped() {
		t.Errorf("worst = %v (capped %v), want the capped load's 2s", s.TotalWorst, s.WorstCapped())
	}
	if s.TotalMedian != 5*time.Second || s.MedianCapped() {
		t.Errorf("median = %v (capped %v), want 5s, not capped", s.TotalMedian, s.MedianCapped())
	}
	if s.IdleWorst != 7*time.Second {
		t.Errorf("idle worst = %v, want 7s (of the loads that reached idle)", s.IdleWorst)
	}
	if Summarize(loads[:1]).Met(Targets{LongTasks: 200 * ms}) == false {
		t.Error("80 ms misses a 200 ms target")
	}
	if Summarize([]Load{loads[0], {Cap: 30 * time.Second}}).Met(Targets{LongTasks: time.Hour}) {
		t.Error("a capped load meets a target")
	}
}

func TestIdleSince(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	quiet := 2 * time.Second
	for _, c := range []struct {
		name string
		s    Signals
		want time.Time // zero: not idle
	}{
		{"no socket yet", Signals{LastNetwork: at(time.Second), PageNow: at(10 * time.Second)}, time.Time{}},
		{"a request in flight", Signals{SocketOpen: at(time.Second), InFlight: 1, PageNow: at(10 * time.Second)}, time.Time{}},
		{"the page never answered", Signals{SocketOpen: at(time.Second)}, time.Time{}},
		{"quiet since the socket opened", Signals{SocketOpen: at(time.Second), LastNetwork: at(500 * ms), PageNow: at(3 * time.Second)}, at(time.Second)},
		{"not quiet long enough", Signals{SocketOpen: at(time.Second), PageNow: at(2900 * ms)}, time.Time{}},
		{"a long task after the socket", Signals{SocketOpen: at(time.Second), LastTaskEnd: at(11 * time.Second), PageNow: at(13 * time.Second)}, at(11 * time.Second)},
		{"a long task ended too recently", Signals{SocketOpen: at(time.Second), LastTaskEnd: at(11 * time.Second), PageNow: at(12 * time.Second)}, time.Time{}},
		{"a message after the long task", Signals{SocketOpen: at(time.Second), LastTaskEnd: at(3 * time.Second), LastNetwork: at(4 * time.Second), PageNow: at(6 * time.Second)}, at(4 * time.Second)},
	} {
		got, ok := c.s.IdleSince(quiet)
		if ok != !c.want.IsZero() || !got.Equal(c.want) {
			t.Errorf("%s: IdleSince = %v, %v; want %v, %v", c.name, got, ok, c.want, !c.want.IsZero())
		}
	}
}

func TestSummarizeClicks(t *testing.T) {
	var r ClickRun
	r.EventTiming = true
	r.Timeout = 5 * time.Second
	// 100 clicks of 1..100 ms, every one painted and flipped; the Event
	// Timing API reported those of 20 ms and more.
	for i := 1; i <= 100; i++ {
		c := Click{Latency: time.Duration(i) * ms, Painted: true, Flipped: true}
		if i >= 20 {
			c.EventTiming = time.Duration(i+4) * ms
		}
		r.Clicks = append(r.Clicks, c)
	}
	r.Window, r.Messages, r.Changes = 10*time.Second, 180, 500
	s := SummarizeClicks(r)
	if s.Clicks != 100 || s.Painted != 100 || s.NotFlipped != 0 || s.EventEntries != 81 {
		t.Fatalf("clicks %d painted %d not flipped %d entries %d, want 100 100 0 81", s.Clicks, s.Painted, s.NotFlipped, s.EventEntries)
	}
	if got := Figures(s.Latency); got != "50.0 / 95.0 / 99.0 / 100" {
		t.Errorf("latency = %s, want 50.0 / 95.0 / 99.0 / 100", got)
	}
	// The 19 clicks without an entry rank lowest, as "< 16".
	if got := Figures(s.EventTiming); got != "54.0 / 99.0 / 103 / 104" {
		t.Errorf("Event Timing = %s", got)
	}
	if s.MessagesPerSecond != 18 || s.ChangesPerSecond != 50 {
		t.Errorf("messages/s %v changes/s %v, want 18 and 50", s.MessagesPerSecond, s.ChangesPerSecond)
	}
	// Both readings must be under the target: the page's timer (p99 99 ms)
	// and Event Timing's (p99 103 ms).
	if s.Met(Targets{ClickP99: 100 * ms}) {
		t.Error("Event Timing p99 103 ms meets a 100 ms target")
	}
	targets := Targets{ClickP99: 104 * ms}
	if !s.Met(targets) {
		t.Error("p99 99 ms and Event Timing p99 103 ms miss a 104 ms target")
	}
	if s.Met(Targets{ClickP99: 103 * ms}) {
		t.Error("Event Timing p99 103 ms meets a 103 ms target: the bound is strict")
	}
	noAPI := r
	noAPI.EventTiming = false
	if !SummarizeClicks(noAPI).Met(Targets{ClickP99: 100 * ms}) {
		t.Error("without the Event Timing API, p99 99 ms misses a 100 ms target")
	}
	if SummarizeClicks(noAPI).Met(Targets{ClickP99: 99 * ms}) {
		t.Error("p99 99 ms meets a 99 ms target: the bound is strict")
	}

	// One click that did not flip its seat fails the target whatever the
	// latency.
	r.Clicks[0].Flipped = false
	if SummarizeClicks(r).Met(targets) {
		t.Error("a click that did not flip its seat meets the target")
	}
}

func TestSummarizeClicksNotPainted(t *testing.T) {
	r := ClickRun{Timeout: 5 * time.Second, EventTiming: true}
	r.Clicks = []Click{
		{Latency: 3 * ms, Painted: true, Flipped: true},
		{Latency: 5 * time.Second},
		{Latency: 5 * time.Second},
	}
	s := SummarizeClicks(r)
	if got := Figures(s.Latency); got != "> 5000 / > 5000 / > 5000 / > 5000" {
		t.Errorf("latency = %s, want every percentile from p50 up > 5000", got)
	}
	// The page had not handled the unpainted clicks: their Event Timing
	// is as unknown as their latency, not under the API's threshold.
	if got := Figures(s.EventTiming); got != "> 5000 / > 5000 / > 5000 / > 5000" {
		t.Errorf("Event Timing = %s, want > 5000 from p50 up", got)
	}
	if s.NotFlipped != 0 {
		t.Errorf("%d clicks not flipped, want 0: only painted clicks count", s.NotFlipped)
	}
	if s.Met(Targets{ClickP99: time.Hour}) {
		t.Error("clicks that never painted meet a target")
	}
	if got := SummarizeClicks(ClickRun{Clicks: r.Clicks}).EventTiming; got != nil {
		t.Errorf("Event Timing figures %v without the API", got)
	}
	if SummarizeClicks(ClickRun{}).Met(Targets{ClickP99: time.Hour}) {
		t.Error("no clicks meet a target")
	}
}

func TestWriteReport(t *testing.T) {
	m := Method{Targets: Targets{LongTasks: 200 * ms, ClickP99: 100 * ms}, Throttle: 4, Quiet: 2 * time.Second,
		Rate: 50, ClickTimeout: 5 * time.Second, GiveUp: 3, ClickBudget: 90 * time.Second}
	clicks := &ClickRun{EventTiming: true, Window: time.Second, Messages: 18, Changes: 50, Sockets: 2, Other: 0.25}
	for i := 0; i < 10; i++ {
		clicks.Clicks = append(clicks.Clicks, Click{Latency: 40 * ms, Painted: true, Flipped: true, EventTiming: 40 * ms})
	}
	cells := []Cell{
		{Hall: "Large", Seats: 360, Throttle: 4, Viewer: "signed in",
			Loads:  []Load{{Tasks: tasks(120 * ms), Reached: true, Idle: 2 * time.Second, Other: 0.1}},
			Clicks: clicks},
		{Hall: "Large", Seats: 360, Throttle: 4, Viewer: "guest",
			Loads: []Load{{Tasks: tasks(300 * ms), Reached: true, Idle: 2 * time.Second}}},
		{Hall: "Mega", Seats: 1000, Throttle: 4, Viewer: "signed in",
			Loads:  []Load{{Cap: 30 * time.Second, Blocked: 28 * time.Second, Other: -1}},
			Clicks: &ClickRun{Skipped: "the page did not reach idle in 30s"}},
		{Hall: "Mega", Seats: 1000, Throttle: 1, Viewer: "guest",
			Loads: []Load{{Tasks: tasks(100 * ms), Reached: true, Idle: time.Second}}},
	}
	var sb strings.Builder
	WriteReport(&sb, cells, m)
	out := sb.String()
	for _, want := range []string{
		"### Large, 360 seats",
		"| 4x | signed in | 1 | 120 / 120 | 1 / 1 | 120 | 2.0 / 2.0 | PASS | 10 | 40.0 / 40.0 / 40.0 / 40.0 | 40.0 / 40.0 / 40.0 / 40.0 | 18.0 / 50.0 | PASS | 0.10 / 0.25 |",
		"| 4x | guest | 1 | 300 / 300 | 1 / 1 | 300 | 2.0 / 2.0 | MISS | - | - | - | - | - | 0.00 / - |",
		"### Mega, 1000 seats",
		"| 4x | signed in | 1 (1 capped) | ≥ 28000 / ≥ 28000 | 1 / 1 | ≥ 28000 | not within 30s | MISS | not measured: the page did not reach idle in 30s | - | - | - | MISS | ? / - |",
		"| 1x | guest | 1 | 100 / 100 | 1 / 1 | 100 | 1.0 / 1.0 | (PASS) |",
		"- Mega, 4x, signed in: load 1 did not reach idle in 30s: 0 long tasks were reported (0.00 ms), then the page did not answer for the last 28.0 s",
		"- Large, 4x, signed in: the page's websocket was closed and opened again 1 time while clicking",
		"Targets at 4x: long tasks under 200 ms in total, click-to-paint p99 under 100 ms",
		"a click with no frame within 5s counts as > 5000; 3 of those in a row, or 1m30s of clicking, end the run",
		"- Large, 4x, signed in: the Event Timing API reported 10 of the 10 painted clicks",
	} {
		if !strings.Contains(out, want) && !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// Every table row has as many cells as its header.
	var header int
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		n := strings.Count(line, "|")
		if strings.HasPrefix(line, "| CPU |") {
			header = n
		} else if n != header {
			t.Errorf("row with %d bars under a header with %d: %s", n, header, line)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") && len(line) > 105 {
			t.Errorf("text line of %d bytes: %s", len(line), line)
		}
	}
}
