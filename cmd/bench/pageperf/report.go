package pageperf

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// Cell is one hall at one CPU slowdown as one kind of viewer.
type Cell struct {
	Hall     string
	Seats    int
	Throttle float64 // CPU slowdown (1: none)
	Viewer   string  // "signed in" or "guest"
	Loads    []Load
	Clicks   *ClickRun // nil: no clicks for this viewer
}

// Method is how the figures were taken, for the report's text.
type Method struct {
	Targets      Targets
	Throttle     float64       // the CPU slowdown the targets are set for
	Quiet        time.Duration // how long a page is quiet before it counts as idle
	Rate         float64       // seat changes per second during the clicks
	ClickTimeout time.Duration
	GiveUp       int           // clicks in a row without a frame that end a run
	ClickBudget  time.Duration // the longest a click run goes on
}

// verdict is PASS or MISS; in brackets at a slowdown the targets are not
// set for.
func (m Method) verdict(c Cell, met bool) string {
	v := "MISS"
	if met {
		v = "PASS"
	}
	if c.Throttle != m.Throttle {
		return "(" + v + ")"
	}
	return v
}

// WriteReport writes one markdown table per hall, in the order the cells
// came, and the notes the figures need.
func WriteReport(w io.Writer, cells []Cell, m Method) {
	fmt.Fprintf(w, "\n## Long tasks and click-to-paint\n\n")
	fmt.Fprint(w, wrap(fmt.Sprintf("Long tasks: the main thread's tasks over 50 ms (PerformanceObserver 'longtask', "+
		"installed before any script of the page runs) from navigation until the page was idle: the live seat map's "+
		"websocket had opened, no HTTP request was in flight, and the page then answered after %s with no long task, "+
		"no request and no websocket message in between; nothing changed seats meanwhile. Total, count and longest; "+
		"median and worst of the loads. A load that did not become idle within its cap is marked ≥: its figures count "+
		"the stretch the page had not answered for at the cap as one more task, a lower bound, and it ends the cell's loads. "+
		"Click-to-paint (signed-in viewer, on its last page): real mouse clicks on seats of the last row (each picked, "+
		"then unpicked) while other users' holds and releases, %.0f changes/s on average through the store, change the "+
		"rest of the hall; from the click event's timeStamp to the end of the first frame after the app's handler "+
		"(requestAnimationFrame, then a MessageChannel message), with aria-pressed checked flipped; a click with no frame "+
		"within %s counts as > %s; %d of those in a row, or %s of clicking, end the run. Event Timing: the same clicks' 'event' entries "+
		"(durationThreshold 16, so a click under 16 ms has none: < 16). messages/s: websocket messages the page received "+
		"while clicking / changes committed meanwhile. other cores: what the machine's other work kept busy (all cores' "+
		"busy time less this program's, its server's, the database backends' and Chromium's), the most during one load / "+
		"during the clicks. Targets at %gx: long tasks under %s ms in total, click-to-paint p99 under %s ms; in brackets "+
		"the same bounds at another slowdown, for reference.",
		m.Quiet, m.Rate, m.ClickTimeout, stats.Ms(m.ClickTimeout), m.GiveUp, m.ClickBudget, m.Throttle,
		stats.Ms(m.Targets.LongTasks), stats.Ms(m.Targets.ClickP99)), 105))

	var halls []string
	byHall := map[string][]Cell{}
	for _, c := range cells {
		if _, ok := byHall[c.Hall]; !ok {
			halls = append(halls, c.Hall)
		}
		byHall[c.Hall] = append(byHall[c.Hall], c)
	}
	var notes []string
	for _, h := range halls {
		cs := byHall[h]
		fmt.Fprintf(w, "\n### %s, %d seats\n\n", h, cs[0].Seats)
		fmt.Fprintf(w, "| CPU | viewer | loads | long tasks ms, median / worst | count, median / worst | longest ms | idle at s, median / worst | < %s ms | clicks | click-to-paint ms p50 / p95 / p99 / max | Event Timing ms p50 / p95 / p99 / max | messages/s / changes/s | both p99 < %s ms | other cores, loads / clicks |\n",
			stats.Ms(m.Targets.LongTasks), stats.Ms(m.Targets.ClickP99))
		fmt.Fprintf(w, "|--:|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|---|--:|\n")
		for _, c := range cs {
			s := Summarize(c.Loads)
			other := cores(s.OtherMax) + " / -"
			if c.Clicks != nil && c.Clicks.Skipped == "" {
				other = cores(s.OtherMax) + " / " + cores(c.Clicks.Other)
			}
			fmt.Fprintf(w, "| %gx | %s | %s | %s / %s | %d / %d | %s | %s | %s | %s | %s |\n",
				c.Throttle, c.Viewer, loadsCell(s), bound(s.TotalMedian, s.MedianCapped()), bound(s.TotalWorst, s.WorstCapped()),
				s.CountMedian, s.CountWorst, bound(s.Longest, s.Capped > 0), idleCell(s), m.verdict(c, s.Met(m.Targets)),
				clicksCells(c, m), other)
			notes = append(notes, cellNotes(c)...)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n")
		for _, n := range notes {
			// A list item, its following lines indented under its text.
			item := strings.TrimSuffix(wrap("- "+n, 103), "\n")
			fmt.Fprintln(w, strings.ReplaceAll(item, "\n", "\n  "))
		}
	}
	for _, c := range cells {
		writeStages(w, c)
	}
}

// writeStages writes where the clicks of c went by Chromium's trace, when
// one was recorded: EventLatency's stages of the mouse releases.
func writeStages(w io.Writer, c Cell) {
	if c.Clicks == nil || len(c.Clicks.Stages) == 0 {
		return
	}
	fmt.Fprintf(w, "\n#### Where a click's time went: %s, %gx, %s (Chromium trace)\n\n", c.Hall, c.Throttle, c.Viewer)
	fmt.Fprintf(w, "The page's main thread ran tasks %.0f%% of the traced time.\n\n", 100*c.Clicks.MainBusy)
	fmt.Fprintf(w, "| EventLatency stage | clicks | p50 ms | p95 ms |\n|---|--:|--:|--:|\n")
	for _, st := range c.Clicks.Stages {
		name := st.Name
		if st.Depth > 0 {
			name = "&nbsp;&nbsp;" + name
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s |\n", name, st.N, stats.Ms(st.P50), stats.Ms(st.P95))
	}
}

// cores is a number of cores other work used, "?" when unknown.
func cores(v float64) string {
	if v < 0 {
		return "?"
	}
	return fmt.Sprintf("%.2f", v)
}

func loadsCell(s LoadSummary) string {
	if s.Capped > 0 {
		return fmt.Sprintf("%d (%d capped)", s.Loads, s.Capped)
	}
	return fmt.Sprint(s.Loads)
}

// bound is d in ms, "≥ d" when it is only a lower bound.
func bound(d time.Duration, lower bool) string {
	if lower {
		return "≥ " + stats.Ms(d)
	}
	return stats.Ms(d)
}

func idleCell(s LoadSummary) string {
	if s.Loads == s.Capped {
		return fmt.Sprintf("not within %s", s.Cap)
	}
	secs := func(d time.Duration) string { return fmt.Sprintf("%.1f", d.Seconds()) }
	v := secs(s.IdleMedian) + " / " + secs(s.IdleWorst)
	if s.Capped > 0 {
		v += fmt.Sprintf(", %d not within %s", s.Capped, s.Cap)
	}
	return v
}

// clicksCells are the last five columns of a cell's row.
func clicksCells(c Cell, m Method) string {
	r := c.Clicks
	switch {
	case r == nil:
		return "- | - | - | - | -"
	case r.Skipped != "":
		return fmt.Sprintf("not measured: %s | - | - | - | %s", r.Skipped, m.verdict(c, false))
	}
	s := SummarizeClicks(*r)
	et := "not supported"
	if s.EventTiming != nil {
		et = Figures(s.EventTiming)
	}
	return fmt.Sprintf("%d | %s | %s | %.1f / %.1f | %s", s.Clicks, Figures(s.Latency), et,
		s.MessagesPerSecond, s.ChangesPerSecond, m.verdict(c, s.Met(m.Targets)))
}

// Figures joins fs with " / ", as the tables print percentiles.
func Figures(fs []Figure) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, " / ")
}

// cellNotes says what a row's figures alone do not.
func cellNotes(c Cell) []string {
	var out []string
	where := fmt.Sprintf("%s, %gx, %s", c.Hall, c.Throttle, c.Viewer)
	for i, l := range c.Loads {
		if !l.Reached {
			out = append(out, fmt.Sprintf("%s: load %d did not reach idle in %s: %s reported (%s ms), then the page did not answer for the last %.1f s",
				where, i+1, l.Cap, plural(len(l.Tasks), "long task was", "long tasks were"), stats.Ms(l.Total()-l.Blocked), l.Blocked.Seconds()))
		}
	}
	r := c.Clicks
	if r == nil || r.Skipped != "" {
		return out
	}
	s := SummarizeClicks(*r)
	if r.Stopped != "" {
		out = append(out, fmt.Sprintf("%s: the clicks stopped after %d: %s", where, s.Clicks, r.Stopped))
	}
	if s.Painted < s.Clicks {
		out = append(out, fmt.Sprintf("%s: %d of %d clicks had no frame within %s", where, s.Clicks-s.Painted, s.Clicks, r.Timeout))
	}
	if s.NotFlipped > 0 {
		out = append(out, fmt.Sprintf("%s: %d of %d clicks did not show their seat flipped (aria-pressed) in the frame", where, s.NotFlipped, s.Clicks))
	}
	if r.Sockets > 1 {
		out = append(out, fmt.Sprintf("%s: the page's websocket was closed and opened again %s while clicking (the server lets a page that falls behind go, and the page reconnects)", where, plural(r.Sockets-1, "time", "times")))
	}
	if r.EventTiming && s.Painted > 0 {
		out = append(out, fmt.Sprintf("%s: the Event Timing API reported %d of the %d painted clicks (the others under 16 ms)", where, s.EventEntries, s.Painted))
	}
	return out
}

// wrap breaks text into lines of at most width bytes at spaces.
func wrap(text string, width int) string {
	var sb strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		if i > 0 {
			if line+1+len(word) > width {
				sb.WriteByte('\n')
				line = 0
			} else {
				sb.WriteByte(' ')
				line++
			}
		}
		sb.WriteString(word)
		line += len(word)
	}
	sb.WriteByte('\n')
	return sb.String()
}

// plural is "n one" or "n many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
