package browserbench

import (
	"encoding/json"
	"testing"
	"time"
)

func rawEvents(t *testing.T, js string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Two clicks' EventLatency slices on one reused id, a mouse press between
// them (left out), and a stage with a part inside it.
func TestClickStages(t *testing.T) {
	ev := rawEvents(t, `[
	 {"name":"EventLatency","ph":"b","ts":1000,"pid":1,"id2":{"local":"0x1"},"args":{"event_latency":{"event_type":"MOUSE_RELEASED"}}},
	 {"name":"RendererMainProcessing","ph":"b","ts":1000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"RendererMainProcessing","ph":"e","ts":3000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"Submit","ph":"b","ts":3000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"Swap","ph":"b","ts":3500,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"Swap","ph":"e","ts":4000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"Submit","ph":"e","ts":5000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"EventLatency","ph":"e","ts":5000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"EventLatency","ph":"b","ts":6000,"pid":1,"id2":{"local":"0x1"},"args":{"event_latency":{"event_type":"MOUSE_PRESSED"}}},
	 {"name":"RendererMainProcessing","ph":"b","ts":6000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"RendererMainProcessing","ph":"e","ts":96000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"EventLatency","ph":"e","ts":96000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"EventLatency","ph":"b","ts":100000,"pid":1,"id2":{"local":"0x1"},"args":{"event_latency":{"event_type":"MOUSE_RELEASED"}}},
	 {"name":"RendererMainProcessing","ph":"b","ts":100000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"RendererMainProcessing","ph":"e","ts":104000,"pid":1,"id2":{"local":"0x1"}},
	 {"name":"EventLatency","ph":"e","ts":104000,"pid":1,"id2":{"local":"0x1"}}
	]`)
	got := clickStages(ev)
	want := []struct {
		name     string
		depth, n int
		p50, p95 time.Duration
	}{
		{whole, 0, 2, 4 * time.Millisecond, 4 * time.Millisecond},
		{"RendererMainProcessing", 0, 2, 2 * time.Millisecond, 4 * time.Millisecond},
		{"Submit", 0, 1, 2 * time.Millisecond, 2 * time.Millisecond},
		{"Swap", 1, 1, 500 * time.Microsecond, 500 * time.Microsecond},
	}
	if len(got) != len(want) {
		t.Fatalf("stages = %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Depth != w.depth || g.N != w.n || g.P50 != w.p50 || g.P95 != w.p95 {
			t.Errorf("stage %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestMainThreadBusy(t *testing.T) {
	ev := rawEvents(t, `[
	 {"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"CrRendererMain"}},
	 {"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"Compositor"}},
	 {"name":"RunTask","ph":"X","ts":1000,"dur":2000,"pid":1,"tid":1},
	 {"name":"Paint","ph":"X","ts":1500,"dur":500,"pid":1,"tid":1},
	 {"name":"RunTask","ph":"X","ts":2500,"dur":1000,"pid":1,"tid":1},
	 {"name":"Draw","ph":"X","ts":1000,"dur":9000,"pid":1,"tid":2}
	]`)
	// Main thread busy 1000-3500 of the span 1000-10000.
	if got, want := mainThreadBusy(ev), 2500.0/9000; got < want-1e-9 || got > want+1e-9 {
		t.Fatalf("busy = %v, want %v", got, want)
	}
}
