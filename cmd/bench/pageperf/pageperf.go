// Package pageperf holds the figures of the browser benchmark (bench
// -browser): what one page load measured (its long tasks, when it became
// idle), what the clicks under a stream of live seat changes measured, and
// how both are summed up and written against the targets. It knows nothing
// of the browser: the numbers come in as the page reported them.
package pageperf

import (
	"slices"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// Targets are the bounds the seat map must keep at the emulated CPU speed.
type Targets struct {
	LongTasks time.Duration // total long-task time from navigation to idle
	ClickP99  time.Duration // 99th percentile of click-to-paint
}

// Task is one long task of the page's main thread (over 50 ms, as the
// Long Tasks API reports them), by the page's clock: its start since the
// page's time origin (the navigation) and its duration.
type Task struct {
	Start, Duration time.Duration
}

// End is when the task ended, since the time origin.
func (t Task) End() time.Duration { return t.Start + t.Duration }

// Load is what one page load measured, from navigation until the page was
// idle or the cap ran out.
type Load struct {
	Tasks   []Task        // the long tasks the page reported before idle (or the cap)
	Reached bool          // idle within the cap
	Idle    time.Duration // when the idle stretch began, since the time origin (Reached only)
	Cap     time.Duration // how long the load was given
	// Blocked is, when the cap ran out, how long the page had not answered
	// (its main thread busy with a task not yet over, so not yet reported):
	// a lower bound of the long-task time it adds.
	Blocked time.Duration
	// Other is how many cores other work on the machine kept busy during
	// the load (not this benchmark, its server, database or browser); -1
	// when unknown.
	Other float64
}

// Total is the long-task time of the load: the reported tasks' durations
// plus, when the cap ran out, the stretch the page was blocked for (then a
// lower bound).
func (l Load) Total() time.Duration {
	var t time.Duration
	for _, k := range l.Tasks {
		t += k.Duration
	}
	if !l.Reached {
		t += l.Blocked
	}
	return t
}

// Longest is the longest long task, counting an unfinished blocked
// stretch at the cap as one.
func (l Load) Longest() time.Duration {
	var m time.Duration
	for _, k := range l.Tasks {
		m = max(m, k.Duration)
	}
	if !l.Reached {
		m = max(m, l.Blocked)
	}
	return m
}

// Count is the number of long tasks, counting a blocked stretch at the cap
// as one.
func (l Load) Count() int {
	if !l.Reached && l.Blocked > 0 {
		return len(l.Tasks) + 1
	}
	return len(l.Tasks)
}

// LoadSummary sums up the loads of one cell: medians and the worst load.
type LoadSummary struct {
	Loads                   int
	Capped                  int           // loads that did not reach idle within their cap
	Cap                     time.Duration // the cap of the first capped load
	TotalMedian, TotalWorst time.Duration
	CountMedian, CountWorst int
	Longest                 time.Duration // over every load
	IdleMedian, IdleWorst   time.Duration // over the loads that reached idle
	OtherMax                float64       // the most cores other work used during a load; -1 unknown
	medianCapped            bool
	worstCapped             bool
}

// Summarize sums up loads. A capped load sorts above every load that
// reached idle, whatever its figures: it is the worse load, and its totals
// are only lower bounds.
func Summarize(loads []Load) LoadSummary {
	s := LoadSummary{Loads: len(loads), OtherMax: -1}
	if len(loads) == 0 {
		return s
	}
	type ranked struct {
		total  time.Duration
		capped bool
	}
	var rs []ranked
	var counts []int
	var idles []time.Duration
	for _, l := range loads {
		rs = append(rs, ranked{l.Total(), !l.Reached})
		counts = append(counts, l.Count())
		s.OtherMax = max(s.OtherMax, l.Other)
		s.Longest = max(s.Longest, l.Longest())
		if l.Reached {
			idles = append(idles, l.Idle)
		} else {
			if s.Capped == 0 {
				s.Cap = l.Cap
			}
			s.Capped++
		}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if a.capped != b.capped {
			if a.capped {
				return 1
			}
			return -1
		}
		return int(a.total - b.total)
	})
	mid := rs[(len(rs)-1)/2]
	s.TotalMedian, s.medianCapped = mid.total, mid.capped
	s.TotalWorst, s.worstCapped = rs[len(rs)-1].total, rs[len(rs)-1].capped
	slices.Sort(counts)
	s.CountMedian, s.CountWorst = counts[(len(counts)-1)/2], counts[len(counts)-1]
	if len(idles) > 0 {
		s.IdleMedian = stats.Median(idles)
		s.IdleWorst = slices.Max(idles)
	}
	return s
}

// MedianCapped reports whether the median load is one that did not reach
// idle (so the median total is a lower bound).
func (s LoadSummary) MedianCapped() bool { return s.medianCapped }

// WorstCapped reports whether the worst load did not reach idle.
func (s LoadSummary) WorstCapped() bool { return s.worstCapped }

// Met reports whether the cell keeps the long-task target: every load
// reached idle and the worst load's total is under the target.
func (s LoadSummary) Met(t Targets) bool {
	return s.Loads > 0 && s.Capped == 0 && s.TotalWorst < t.LongTasks
}

// Signals are what tells whether a page has settled, all on one clock (the
// wall clock of the machine; the page's times converted with its time
// origin).
type Signals struct {
	SocketOpen  time.Time // the live seat map's websocket opened (zero: not yet)
	InFlight    int       // HTTP requests started and not finished
	LastNetwork time.Time // the last HTTP request started or ended, or websocket message arrived
	LastTaskEnd time.Time // the latest long task ended (zero: none yet)
	PageNow     time.Time // when the page last answered, by its own clock
}

// IdleSince returns when the page became idle: the start of a stretch of at
// least quiet, ending when the page last answered, after the live seat map's
// websocket opened, with no HTTP request in flight, no network activity and
// no long task. The page answering at all matters: a page busy with a long
// task answers only when it is over, and only then is the task reported.
func (s Signals) IdleSince(quiet time.Duration) (time.Time, bool) {
	if s.SocketOpen.IsZero() || s.InFlight > 0 || s.PageNow.IsZero() {
		return time.Time{}, false
	}
	since := s.SocketOpen
	for _, t := range []time.Time{s.LastNetwork, s.LastTaskEnd} {
		if t.After(since) {
			since = t
		}
	}
	if s.PageNow.Sub(since) < quiet {
		return time.Time{}, false
	}
	return since, true
}

// Click is one click on a seat, as the page timed it.
type Click struct {
	// Latency is from the input event (its timeStamp, taken when the
	// browser received it) to the first frame after the page's click
	// handler ran. When no frame came within the run's timeout it is the
	// timeout, a lower bound.
	Latency time.Duration
	Painted bool // a frame came within the timeout
	// Flipped: the seat's aria-pressed changed in the handler and still
	// read so when the frame came.
	Flipped bool
	// EventTiming is the Event Timing API's duration of the click (from
	// the input to the next paint after its handlers, in steps of 8 ms);
	// zero when the API reported none, which it does for a click under its
	// 16 ms threshold (or one the page has not handled yet: not Painted).
	EventTiming time.Duration
}

// ClickRun is the clicks on one page while the load generator ran.
type ClickRun struct {
	Clicks  []Click
	Timeout time.Duration // how long a click may wait for its frame
	// EventTiming says the browser supports the Event Timing API
	// (PerformanceObserver type "event").
	EventTiming bool
	Skipped     string        // why no clicks were made ("": they were)
	Stopped     string        // why the run ended before its clicks were all made
	Window      time.Duration // from the first click to the last click's frame
	Messages    int           // websocket messages the page received in the window
	Changes     int           // seat changes the load generator committed in the window
	Sockets     int           // websockets the page opened during the run (1: no reconnect)
	Other       float64       // cores other work kept busy during the run, as Load.Other
	// Stages is where the clicks' time went by Chromium's trace, when one
	// was recorded (-browser-trace), in the order the stages run.
	Stages []Stage
	// MainBusy is the share of the traced time the page's main thread ran
	// tasks (0: no trace).
	MainBusy float64
}

// Stage is one stage of Chromium's EventLatency over the clicks of a run:
// how many clicks went through it, and its median and 95th percentile.
type Stage struct {
	Name     string
	Depth    int // 0: a stage of the whole; 1: a part of the stage above it
	N        int
	P50, P95 time.Duration
}

// EventThreshold is the smallest durationThreshold the Event Timing API
// takes: a faster click leaves no entry.
const EventThreshold = 16 * time.Millisecond

// Figure is a duration that may be a bound: Over (at least D: a click that
// never painted) or Under (less than D: a click the Event Timing API did not
// report).
type Figure struct {
	D     time.Duration
	Over  bool
	Under bool
}

func (f Figure) String() string {
	switch {
	case f.Over:
		return "> " + stats.Ms(f.D)
	case f.Under:
		return "< " + stats.Ms(f.D)
	}
	return stats.Ms(f.D)
}

// figurePercentile is the p-th percentile (nearest rank) of fs, an Under
// ranking below and an Over above an exact figure of the same duration.
func figurePercentile(fs []Figure, p float64) Figure {
	if len(fs) == 0 {
		return Figure{}
	}
	s := slices.Clone(fs)
	rank := func(f Figure) int {
		switch {
		case f.Under:
			return -1
		case f.Over:
			return 1
		}
		return 0
	}
	slices.SortFunc(s, func(a, b Figure) int {
		if a.D != b.D {
			return int(a.D - b.D)
		}
		return rank(a) - rank(b)
	})
	return s[stats.Rank(len(s), p)]
}

// Percentiles are the points every latency is reported at.
var Percentiles = []float64{50, 95, 99, 100}

// ClickSummary sums up a click run.
type ClickSummary struct {
	Clicks, Painted   int
	NotFlipped        int      // painted clicks whose frame did not show the seat flipped
	Latency           []Figure // at Percentiles
	EventTiming       []Figure // at Percentiles; nil when the API is not supported
	EventEntries      int      // clicks the Event Timing API reported
	MessagesPerSecond float64
	ChangesPerSecond  float64
}

// SummarizeClicks sums up r.
func SummarizeClicks(r ClickRun) ClickSummary {
	s := ClickSummary{Clicks: len(r.Clicks)}
	var lat, et []Figure
	for _, c := range r.Clicks {
		if c.Painted {
			s.Painted++
			if !c.Flipped {
				s.NotFlipped++
			}
		}
		lat = append(lat, Figure{D: c.Latency, Over: !c.Painted})
		switch {
		case !c.Painted:
			// No entry yet because the page has not handled the click
			// at all, not because it was fast.
			et = append(et, Figure{D: c.Latency, Over: true})
		case c.EventTiming > 0:
			s.EventEntries++
			et = append(et, Figure{D: c.EventTiming})
		default:
			et = append(et, Figure{D: EventThreshold, Under: true})
		}
	}
	if len(r.Clicks) > 0 {
		for _, p := range Percentiles {
			s.Latency = append(s.Latency, figurePercentile(lat, p))
			if r.EventTiming {
				s.EventTiming = append(s.EventTiming, figurePercentile(et, p))
			}
		}
	}
	if r.Window > 0 {
		s.MessagesPerSecond = float64(r.Messages) / r.Window.Seconds()
		s.ChangesPerSecond = float64(r.Changes) / r.Window.Seconds()
	}
	return s
}

// p99 is the latency at the 99th percentile.
func (s ClickSummary) p99() Figure { return s.Latency[slices.Index(Percentiles, 99)] }

// Met reports whether the run keeps the click target: clicks were made,
// each painted and showed its seat flipped, and the p99 is under the
// target by both readings, the page's timer and (where the browser has
// it) Event Timing's, which ends at the frame's presentation.
func (s ClickSummary) Met(t Targets) bool {
	if s.Clicks == 0 || s.Painted < s.Clicks || s.NotFlipped > 0 {
		return false
	}
	p := s.p99()
	if p.Over || p.D >= t.ClickP99 {
		return false
	}
	if s.EventTiming != nil {
		e := s.EventTiming[slices.Index(Percentiles, 99)]
		return !e.Over && e.D < t.ClickP99
	}
	return true
}
