package browserbench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"github.com/marquee-tickets/marquee/cmd/bench/pageperf"
)

// A click run can be recorded as a Chromium trace (-browser-trace), to see
// where a click's time goes after the page's main thread is done with it:
// Chromium's EventLatency slices split each input's way to the screen into
// stages (the input's trip to the renderer, the main thread, the commit,
// raster and activation, the compositor frame's trip to presentation).
// Event Timing ends at presentation; the page's own timer ends after the
// main thread's frame. The stages say what lies between.

// traceCategories are the categories recorded: EventLatency is in input
// and benchmark; cc and viz show the compositor, raster and display.
var traceCategories = []string{"input", "benchmark", "latency", "cc", "viz", "gpu", "renderer.scheduler", "devtools.timeline", "toplevel"}

// traceRecorder collects a tab's trace events once tracing has started.
type traceRecorder struct {
	mu     sync.Mutex
	events []json.RawMessage
	done   chan struct{} // closed on Tracing.tracingComplete
	lost   bool          // the browser says its buffer dropped events
}

// event is the tab's protocol listener's share for tracing.
func (r *traceRecorder) event(ev any) {
	switch e := ev.(type) {
	case *tracing.EventDataCollected:
		r.mu.Lock()
		for _, v := range e.Value {
			r.events = append(r.events, json.RawMessage(bytes.Clone(v)))
		}
		r.mu.Unlock()
	case *tracing.EventTracingComplete:
		r.mu.Lock()
		r.lost = e.DataLossOccurred
		r.mu.Unlock()
		close(r.done)
	}
}

// startTrace starts recording the tab's trace.
func (t *tab) startTrace() error {
	t.trace.mu.Lock()
	t.trace.events, t.trace.done = nil, make(chan struct{})
	t.trace.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.ctx, 30*time.Second)
	defer cancel()
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, tracing.Start, tracing.StartParams{
			TransferMode: tracing.StartTransferModeReportEvents,
			TraceConfig: &tracing.TraceConfig{
				RecordMode:         tracing.TraceConfigRecordModeRecordAsMuchAsPossible,
				IncludedCategories: traceCategories,
				ExcludedCategories: []string{"*"},
			},
		})
		if err != nil {
			return fmt.Errorf("start tracing: %w", err)
		}
		return nil
	}))
}

// stopTrace ends the recording and writes it to path as a JSON trace
// (chrome://tracing, ui.perfetto.dev), returning the events.
func (t *tab) stopTrace(path string) ([]json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(t.ctx, 2*time.Minute)
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, tracing.End, cdp.Empty{})
		return err
	}))
	if err != nil {
		return nil, fmt.Errorf("end tracing: %w", err)
	}
	select {
	case <-t.trace.done:
	case <-ctx.Done():
		return nil, errors.New("the browser did not finish handing over its trace within 2 minutes")
	}
	t.trace.mu.Lock()
	events, lost := t.trace.events, t.trace.lost
	t.trace.mu.Unlock()
	if lost {
		return events, errors.New("the browser's trace buffer dropped events")
	}
	b, err := json.Marshal(struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}{events})
	if err != nil {
		return events, err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return events, fmt.Errorf("write the trace: %w", err)
	}
	return events, nil
}

// clickStages sums up the EventLatency slices of mouse releases (a click's
// last input) in events: the stages of each, in the order they ran. An
// EventLatency and its stages are nested async slices of one id (ids are
// reused, so begins and ends are paired in time order per process and id).
// A stage that lies within another of its click is a part of it (depth 1).
func clickStages(events []json.RawMessage) []pageperf.Stage {
	type slice struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		TS   float64 `json:"ts"` // microseconds
		PID  int     `json:"pid"`
		ID   string  `json:"id"`
		ID2  struct {
			Local  string `json:"local"`
			Global string `json:"global"`
		} `json:"id2"`
		Args struct {
			EventLatency struct {
				Type string `json:"event_type"`
			} `json:"event_latency"`
		} `json:"args"`
	}
	type span struct{ b, e float64 }
	type click struct {
		kind   string
		stages map[string]span
	}
	type key struct {
		pid int
		id  string
	}
	byID := map[key][]slice{}
	for _, raw := range events {
		var s slice
		if json.Unmarshal(raw, &s) != nil || (s.Ph != "b" && s.Ph != "e") {
			continue
		}
		id := cmp.Or(s.ID, s.ID2.Local, s.ID2.Global)
		if id == "" {
			continue
		}
		byID[key{s.PID, id}] = append(byID[key{s.PID, id}], s)
	}
	var clicks []click
	for _, ss := range byID {
		slices.SortStableFunc(ss, func(a, b slice) int { return cmp.Compare(a.TS, b.TS) })
		var cur *click
		begun := map[string]float64{}
		for _, s := range ss {
			switch {
			case s.Name == "EventLatency" && s.Ph == "b":
				cur = &click{kind: s.Args.EventLatency.Type, stages: map[string]span{}}
				clear(begun)
				begun[whole] = s.TS
			case s.Name == "EventLatency":
				if cur != nil && cur.kind == "MOUSE_RELEASED" {
					cur.stages[whole] = span{begun[whole], s.TS}
					clicks = append(clicks, *cur)
				}
				cur = nil
			case cur == nil:
			case s.Ph == "b":
				begun[s.Name] = s.TS
			default:
				if b, ok := begun[s.Name]; ok {
					cur.stages[s.Name] = span{b, s.TS}
					delete(begun, s.Name)
				}
			}
		}
	}
	// Stages in the order they run: by their median start relative to the
	// click's first stage.
	durations := map[string][]time.Duration{}
	starts := map[string][]float64{}
	depth := map[string]int{}
	for _, c := range clicks {
		first := math.Inf(1)
		for _, sp := range c.stages {
			first = min(first, sp.b)
		}
		for name, sp := range c.stages {
			durations[name] = append(durations[name], time.Duration((sp.e-sp.b)*float64(time.Microsecond)))
			starts[name] = append(starts[name], sp.b-first)
			for other, o := range c.stages {
				if other != name && other != whole && name != whole && o.b <= sp.b && sp.e <= o.e && (o.b < sp.b || sp.e < o.e) {
					depth[name] = 1
				}
			}
		}
	}
	var out []pageperf.Stage
	order := map[string]float64{}
	for name, ds := range durations {
		slices.Sort(ds)
		st := starts[name]
		slices.Sort(st)
		order[name] = st[len(st)/2]
		out = append(out, pageperf.Stage{
			Name: name, Depth: depth[name], N: len(ds),
			P50: ds[nearestRank(len(ds), 0.50)], P95: ds[nearestRank(len(ds), 0.95)],
		})
	}
	slices.SortStableFunc(out, func(a, b pageperf.Stage) int {
		if a.Name == whole || b.Name == whole {
			return cmp.Compare(b2i(b.Name == whole), b2i(a.Name == whole))
		}
		return cmp.Or(cmp.Compare(order[a.Name], order[b.Name]), cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// whole names the EventLatency slice itself among its stages: from the
// input's creation to the frame's presentation, as Event Timing measures.
const whole = "EventLatency (the whole: input to presentation)"

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nearestRank is the index of the p-th percentile of n sorted values.
func nearestRank(n int, p float64) int {
	return min(n-1, max(0, int(math.Ceil(p*float64(n)))-1))
}

// mainThreadBusy is the share of the trace's span during which the busiest
// renderer main thread (the page's: the other tabs are closed) ran tasks:
// the union of its complete slices, nested ones counted once.
func mainThreadBusy(events []json.RawMessage) float64 {
	type slice struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		TS   float64 `json:"ts"`
		Dur  float64 `json:"dur"`
		PID  int     `json:"pid"`
		TID  int     `json:"tid"`
		Args struct {
			Name string `json:"name"`
		} `json:"args"`
	}
	type thread struct{ pid, tid int }
	mains := map[thread]bool{}
	spans := map[thread][][2]float64{}
	first, last := math.Inf(1), math.Inf(-1)
	for _, raw := range events {
		var s slice
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		th := thread{s.PID, s.TID}
		switch {
		case s.Ph == "M" && s.Name == "thread_name" && s.Args.Name == "CrRendererMain":
			mains[th] = true
		case s.Ph == "X" && s.TS > 0:
			spans[th] = append(spans[th], [2]float64{s.TS, s.TS + s.Dur})
			first, last = min(first, s.TS), max(last, s.TS+s.Dur)
		}
	}
	busiest := 0.0
	for th := range mains {
		ss := spans[th]
		slices.SortFunc(ss, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
		busy, end := 0.0, math.Inf(-1)
		for _, s := range ss {
			if s[0] > end {
				busy += s[1] - s[0]
				end = s[1]
			} else if s[1] > end {
				busy += s[1] - end
				end = s[1]
			}
		}
		busiest = max(busiest, busy)
	}
	if last <= first {
		return 0
	}
	return busiest / (last - first)
}
