package report

import (
	"fmt"
	"io"

	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
)

// Reruns judges measurements against the -max-other bound and tallies, for
// the report, how many were run again and how many were still disturbed on
// their last run.
type Reruns struct {
	MaxOther float64 // cores of other work that make a measurement disturbed; 0: never
	Limit    int     // -reruns: the most runs again of one measurement

	reran, still int
}

// Disturbed reports whether other work took more than MaxOther cores.
func (r *Reruns) Disturbed(u cpu.Use) bool { return r.MaxOther > 0 && u.Other > r.MaxOther }

// Mark counts a measurement that took tries runs, the last of which used u,
// and returns the mark its row carries: " †" when still disturbed.
func (r *Reruns) Mark(tries int, u cpu.Use) string {
	if tries > 1 {
		r.reran++
	}
	if r.Disturbed(u) {
		r.still++
		return " †"
	}
	return ""
}

// Write prints the tally of the measurements marked since the last Write
// (nothing when MaxOther is 0) and starts a new one. what names them
// ("cell", "measurement").
func (r *Reruns) Write(w io.Writer, what string) {
	reran, still := r.reran, r.still
	r.reran, r.still = 0, 0
	if r.MaxOther <= 0 {
		return
	}
	fmt.Fprintf(w, "\nA %s during which other work took more than %.2f cores was run again (at most %d times):\n",
		what, r.MaxOther, r.Limit)
	fmt.Fprintf(w, "%d were, and %d (marked †) were still disturbed on their last run.\n", reran, still)
}
