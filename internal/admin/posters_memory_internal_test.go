//go:build !race

package admin

import (
	"bytes"
	"image"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The heap's peak is measured without the race detector: under it every
// allocation carries shadow memory the heap does not count, and decoding
// the largest poster takes some fifty times longer (minutes, not seconds)
// while proving nothing about races, as it runs on one goroutine.
// `make test` (scripts/test.sh) runs it in a pass of its own.

// The largest poster accepted of each kind stays within PosterMemory, as
// the heap measures it while it is decoded and resized.
func TestLargestAcceptedPosterMemory(t *testing.T) {
	const bound = 200 << 20
	for _, tc := range []struct {
		name      string
		colorType byte
		depth     int
	}{
		{"8-bit RGBA", pgtest.PNGRGBA, 8},
		{"16-bit RGBA", pgtest.PNGRGBA, 16},
		{"8-bit grey", pgtest.PNGGray, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The tallest 2:3 image its header lets through.
			w, h := largestAccepted(t, tc.colorType, tc.depth)
			data := pgtest.PlainPNG(w, h, tc.colorType, tc.depth)
			peak, took := heapPeak(t, func() {
				p, err := (&Service{}).encodePoster(t.Context(), data)
				if err != nil || p.Width == 0 {
					t.Fatalf("encodePoster(%dx%d) = %v", w, h, err)
				}
			})
			t.Logf("%d x %d: estimate %d MiB, heap peak %d MiB over the start, %v",
				w, h, posterMemory(config(t, data), "image/png", data)>>20, peak>>20, took.Round(time.Millisecond))
			if peak > bound {
				t.Fatalf("%d x %d took %d MiB of heap, over %d MiB", w, h, peak>>20, bound>>20)
			}
		})
	}
}

func config(t *testing.T, data []byte) image.Config {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// largestAccepted is the largest w x h, w = 2h/3, whose header
// checkPosterSize lets through.
func largestAccepted(t *testing.T, colorType byte, depth int) (int, int) {
	ok := func(h int) bool {
		data := pgtest.PlainPNG(h*2/3, h, colorType, depth)
		return checkPosterSize(config(t, data), "image/png", data) == nil
	}
	lo, hi := 960, PosterMaxSide+1 // ok(lo), !ok(hi)
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo * 2 / 3, lo
}

// heapPeak runs f and returns the most heap in use while it ran, over
// what was in use before, sampling every millisecond with the collector
// made eager, so that garbage is not counted as in use.
func heapPeak(t *testing.T, f func()) (uint64, time.Duration) {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > before.HeapAlloc && m.HeapAlloc-before.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc - before.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	f()
	took := time.Since(start)
	close(stop)
	<-stopped
	return peak.Load(), took
}
