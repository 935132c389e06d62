// Package stats computes the benchmark's summary figures from raw samples:
// exact (nearest-rank) percentiles of durations, medians, and how a
// duration is printed in milliseconds.
package stats

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Percentile returns the p-th percentile (nearest rank) of sorted, exactly:
// the smallest sample with at least p% of the samples at or below it. It is
// 0 for no samples.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[Rank(len(sorted), p)]
}

// Rank is the index of the p-th percentile (nearest rank) among n sorted
// samples, n > 0.
func Rank(n int, p float64) int {
	rank := int(math.Ceil(float64(n) * p / 100))
	return min(max(rank, 1), n) - 1
}

// Median is the middle of ds (the lower middle of an even count, so it is
// always one of the samples); ds need not be sorted. It is 0 for none.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[(len(s)-1)/2]
}

// Ms formats d in milliseconds with sensible precision.
func Ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}
