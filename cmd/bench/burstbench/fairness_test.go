package burstbench

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestKendallTauB(t *testing.T) {
	seq := func(n int) []int64 {
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(i + 1)
		}
		return s
	}
	const n = 2000
	swapped := seq(n)
	swapped[700], swapped[701] = swapped[701], swapped[700]
	reversed := seq(n)
	for i := range reversed {
		reversed[i] = int64(n - i)
	}
	for _, tc := range []struct {
		name string
		x, y []int64
		want float64
	}{
		{"the same order", seq(n), seq(n), 1},
		{"the other way round", seq(n), reversed, -1},
		// One neighbouring pair swapped: 1 of n(n-1)/2 pairs disagrees.
		{"one pair swapped", seq(n), swapped, 1 - 4.0/(n*(n-1))},
		// scipy.stats.kendalltau's example, with ties in both: tau-b.
		{"ties in both", []int64{12, 2, 1, 12, 2}, []int64{1, 4, 7, 1, 0}, -0.47140452079103173},
		// Tied alike in both: no pair disagrees, and the tie does not
		// pull tau below 1.
		{"a tie in both at once", []int64{1, 1, 2, 3}, []int64{5, 5, 6, 7}, 1},
		// A tie in x only: (2-0) / sqrt((3-1) * 3).
		{"a tie in one", []int64{1, 1, 2}, []int64{1, 2, 3}, 2 / math.Sqrt(6)},
	} {
		got, ok := kendallTauB(tc.x, tc.y)
		if !ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: tau-b = %v, %v; want %v", tc.name, got, ok, tc.want)
		}
	}
	// A shuffle is near 0: not a check of the arithmetic, of its sense.
	shuffled := seq(n)
	rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if got, ok := kendallTauB(seq(n), shuffled); !ok || math.Abs(got) > 0.1 {
		t.Errorf("a shuffle: tau-b = %v, %v; want about 0", got, ok)
	}
	for _, tc := range []struct {
		name string
		x, y []int64
	}{
		{"none", nil, nil},
		{"one", []int64{1}, []int64{1}},
		{"every x tied", []int64{3, 3, 3}, []int64{1, 2, 3}},
		{"every y tied", []int64{1, 2, 3}, []int64{7, 7, 7}},
	} {
		if got, ok := kendallTauB(tc.x, tc.y); ok {
			t.Errorf("%s: tau-b = %v, defined; want undefined", tc.name, got)
		}
	}
}

func TestEstimateErrors(t *testing.T) {
	s := time.Second
	es := []estimate{
		{eta: 10 * s, waited: 10 * s}, // 0
		{eta: 15 * s, waited: 10 * s}, // 0.5, 5 s
		{eta: 5 * s, waited: 10 * s},  // 0.5, 5 s
		{eta: 12 * s, waited: 10 * s}, // 0.2, 2 s
		{eta: 3 * s, waited: 0},       // no wait: left out
	}
	rel, abs, n := estimateErrors(es)
	// The lower middle of 0, 0.2, 0.5, 0.5 and of 0, 2, 5, 5 s.
	if n != 4 || math.Abs(rel-0.2) > 1e-12 || abs != 2*s {
		t.Errorf("estimateErrors = %v, %v over %d; want 0.2, 2s over 4", rel, abs, n)
	}
	if rel, abs, n := estimateErrors(es[:3]); n != 3 || rel != 0.5 || abs != 5*s {
		t.Errorf("estimateErrors of 3 = %v, %v over %d; want the middle, 0.5 and 5s", rel, abs, n)
	}
	if rel, abs, n := estimateErrors(es[4:]); n != 0 || rel != 0 || abs != 0 {
		t.Errorf("estimateErrors of no wait = %v, %v over %d; want nothing counted", rel, abs, n)
	}
}

func TestFairnessOf(t *testing.T) {
	opens := time.Date(2026, 12, 10, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) int64 { return opens.Add(d).UnixMicro() }
	// Three in the pre-queue, shuffled into 1-3; then four in arrival
	// order.
	joined := []int64{at(-3 * time.Second), at(-2 * time.Second), at(-time.Second), at(0), at(time.Second), at(2 * time.Second), at(3 * time.Second)}
	numbers := []int64{3, 1, 2, 4, 5, 6, 7}
	f := fairnessOf(joined, numbers, opens)
	if !f.ok || f.tau != 1 || f.n != 4 || f.preQueue != 3 {
		t.Errorf("fairnessOf = %+v; want tau 1 over the 4 who joined at or after the opening, 3 shuffled before", f)
	}
	// The last two joining in the same microsecond: their order is not
	// known, and tau-b counts their pair as neither, 5 of 6 pairs agreeing.
	tied := append([]int64(nil), joined...)
	tied[6] = tied[5]
	if f := fairnessOf(tied, numbers, opens); !f.ok || math.Abs(f.tau-5/math.Sqrt(30)) > 1e-12 {
		t.Errorf("fairnessOf with a tie = %+v; want tau-b 5/sqrt(30)", f)
	}
	// Without an opening time every ticket counts, the shuffle too.
	f = fairnessOf(joined, numbers, time.Time{})
	if !f.ok || f.tau >= 1 || f.n != 7 || f.preQueue != 0 {
		t.Errorf("fairnessOf without an opening = %+v; want all 7 counted, tau below 1", f)
	}
	// One served out of turn after the opening.
	f = fairnessOf(joined, []int64{3, 1, 2, 5, 4, 6, 7}, opens)
	if !f.ok || f.tau >= 1 {
		t.Errorf("fairnessOf with two swapped = %+v; want tau below 1", f)
	}
}

func TestQueueNumber(t *testing.T) {
	for html, want := range map[string]int64{
		`<main id="main" class="mx-auto" data-queue-number="4217" data-show="51">`: 4217,
		`<main id="main" class="mx-auto" data-show="51">`:                          0,
		`<main data-queue-number="">`:                                              0,
		`<main data-queue-number="0">`:                                             0,
		`<main data-queue-number="12`:                                              0,
	} {
		if got := queueNumber([]byte(html)); got != want {
			t.Errorf("queueNumber(%s) = %d, want %d", html, got, want)
		}
	}
}

func TestRoomView(t *testing.T) {
	s := time.Second
	r := &roomView{samples: []roomSample{
		{at: 1 * s, waiting: 40},                         // the pre-queue
		{at: 5 * s, waiting: 80, active: 0, admitted: 0}, // the opening time
		{at: 6 * s, open: true, waiting: 90, active: 12, admitted: 10},
		{at: 15 * s, waiting: 10, active: 31, admitted: 100},  // the last with anyone waiting
		{at: 16 * s, waiting: 0, active: 20, admitted: 110},   // nobody waits: not the rate's
		{at: 17 * s, waiting: 0, active: 300, admitted: 1000}, // nor this
	}}
	if active, waiting := r.most(); active != 300 || waiting != 90 {
		t.Errorf("most = %d active, %d waiting; want 300 and 90", active, waiting)
	}
	// 100 admitted from 5 s to 15 s.
	if got, ok := r.rate(5 * s); !ok || math.Abs(got-600) > 1e-9 {
		t.Errorf("rate = %v, %v; want 600 a minute", got, ok)
	}
	if got, ok := r.rate(15 * s); ok {
		t.Errorf("rate from one sample = %v: want none", got)
	}
	if at, ok := r.openedBy(); !ok || at != 6*s {
		t.Errorf("openedBy = %v, %v; want 6s, the first sample open", at, ok)
	}
}
