package stats

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var sorted []time.Duration
	for i := 1; i <= 100; i++ {
		sorted = append(sorted, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{
		{50, 50 * time.Millisecond},
		{95, 95 * time.Millisecond},
		{99, 99 * time.Millisecond},
		{99.5, 100 * time.Millisecond},
		{100, 100 * time.Millisecond},
		{0, 1 * time.Millisecond},
	} {
		if got := Percentile(sorted, c.p); got != c.want {
			t.Errorf("Percentile(1..100 ms, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	// Few samples: p99 of three is the largest, p50 the middle one.
	three := []time.Duration{time.Millisecond, 2 * time.Millisecond, 30 * time.Millisecond}
	if got := Percentile(three, 99); got != 30*time.Millisecond {
		t.Errorf("p99 of %v = %v, want 30ms", three, got)
	}
	if got := Percentile(three, 50); got != 2*time.Millisecond {
		t.Errorf("p50 of %v = %v, want 2ms", three, got)
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("Percentile(nil) = %v, want 0", got)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{7}, 7},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{9, 1, 5, 3}, 3}, // the lower middle: one of the samples
	} {
		in := append([]time.Duration(nil), c.in...)
		if got := Median(in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Fatalf("Median reordered its argument: %v, was %v", in, c.in)
			}
		}
	}
}

func TestMs(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{1234 * time.Microsecond, "1.23"},
		{12340 * time.Microsecond, "12.3"},
		{123400 * time.Microsecond, "123"},
		{10600 * time.Millisecond, "10600"},
	} {
		if got := Ms(c.d); got != c.want {
			t.Errorf("Ms(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
