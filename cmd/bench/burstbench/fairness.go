package burstbench

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// kendallTauB is Kendall's tau-b between x and y, paired by index: 1 when
// every pair of people is ordered alike by both (arrival and admission in
// the same order: first come, first served), -1 when every pair is
// ordered the other way round. A pair tied in x or in y counts as neither
// agreeing nor disagreeing, and tau-b's denominator leaves out the pairs
// tied in each: pairs tied in both do not pull it below 1, a pair tied in
// one only does, a little (two people who joined in the same microsecond
// and were numbered one after the other). ok is false when tau is
// undefined: fewer than two pairs, or every pair tied in x or in y.
//
// It compares every pair, n²/2 comparisons: 5e7 for 10,000 people, well
// under a second, once per cell.
func kendallTauB(x, y []int64) (tau float64, ok bool) {
	n := min(len(x), len(y))
	var agree, disagree, tiedX, tiedY int64
	for i := range n {
		xi, yi := x[i], y[i]
		for j := i + 1; j < n; j++ {
			dx, dy := cmp.Compare(xi, x[j]), cmp.Compare(yi, y[j])
			switch {
			case dx == 0 && dy == 0:
				tiedX++
				tiedY++
			case dx == 0:
				tiedX++
			case dy == 0:
				tiedY++
			case dx == dy:
				agree++
			default:
				disagree++
			}
		}
	}
	pairs := int64(n) * int64(n-1) / 2
	den := math.Sqrt(float64(pairs-tiedX) * float64(pairs-tiedY))
	if den == 0 {
		return 0, false
	}
	return float64(agree-disagree) / den, true
}

// estimate is a waiting person's first estimate of their wait, and the
// wait it turned out to be, both from the moment the estimate was given.
type estimate struct {
	eta    time.Duration // eta_s as given
	waited time.Duration // until the person learned they were admitted
}

// estimateErrors is the median of the estimates' relative errors,
// |eta - waited| / waited, and of their absolute errors; n is how many
// estimates were counted. An estimate whose wait was not positive has no
// relative error and is left out. A median of an even count is the lower
// middle, as stats.Median's, so it is always one of the errors.
func estimateErrors(es []estimate) (relative float64, absolute time.Duration, n int) {
	var rel []float64
	var abs []time.Duration
	for _, e := range es {
		if e.waited <= 0 {
			continue
		}
		d := (e.eta - e.waited).Abs()
		rel = append(rel, float64(d)/float64(e.waited))
		abs = append(abs, d)
	}
	if len(rel) == 0 {
		return 0, 0, 0
	}
	slices.Sort(rel)
	slices.Sort(abs)
	return rel[(len(rel)-1)/2], abs[(len(abs)-1)/2], len(rel)
}
