package web

import (
	"fmt"
	"testing"
	"time"
)

// A limit's buckets count by the clock they are given: the burst, then
// nothing while the clock stands still, one more token each interval it
// moves, and a key unseen for long enough is forgotten, full again.
func TestBuckets(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	b := newBuckets(Limit{every: 6 * time.Second, burst: 5}, func() time.Time { return now })
	allowed := func(key string, n int) int {
		ok := 0
		for range n {
			if b.allow(key) {
				ok++
			}
		}
		return ok
	}
	if got := allowed("ip:192.0.2.1", 20); got != 5 {
		t.Fatalf("%d of 20 at once allowed, want the burst of 5", got)
	}
	if got := allowed("ip:192.0.2.2", 20); got != 5 {
		t.Fatalf("another key: %d of 20 allowed, want a burst of its own", got)
	}
	now = now.Add(5 * time.Second)
	if got := allowed("ip:192.0.2.1", 1); got != 0 {
		t.Fatal("a token came back before its interval")
	}
	now = now.Add(13 * time.Second) // 18 s on: three intervals
	if got := allowed("ip:192.0.2.1", 20); got != 3 {
		t.Fatalf("18 s on, %d allowed, want 3", got)
	}
	for i := range 100 {
		b.allow(fmt.Sprintf("ip:198.51.100.%d", i))
	}
	now = now.Add(b.idle + time.Second)
	b.allow("ip:203.0.113.1") // sweeps
	if n := len(b.byKey); n != 1 {
		t.Fatalf("%d keys kept after they were idle for %v, want only the one just seen", n, b.idle)
	}
}
