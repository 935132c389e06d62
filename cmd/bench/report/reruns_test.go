package report_test

import (
	"bytes"
	"testing"

	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/cmd/bench/report"
)

func TestReruns(t *testing.T) {
	quiet, busy := cpu.Use{Other: 0.1}, cpu.Use{Other: 0.6}
	r := &report.Reruns{MaxOther: 0.5, Limit: 3}
	marks := []string{r.Mark(1, quiet), r.Mark(2, quiet), r.Mark(3, busy)}
	if marks[0] != "" || marks[1] != "" || marks[2] != " †" {
		t.Errorf("marks = %q, want only the still disturbed one marked", marks)
	}
	var b bytes.Buffer
	r.Write(&b, "cell")
	want := "\nA cell during which other work took more than 0.50 cores was run again (at most 3 times):\n" +
		"2 were, and 1 (marked †) were still disturbed on their last run.\n"
	if b.String() != want {
		t.Errorf("Write = %q, want %q", b.String(), want)
	}
	b.Reset()
	r.Write(&b, "cell")
	if want := "2 were"; bytes.Contains(b.Bytes(), []byte(want)) || !bytes.Contains(b.Bytes(), []byte("0 were, and 0")) {
		t.Errorf("a second Write = %q, want a new tally of nothing", b.String())
	}

	never := &report.Reruns{}
	if never.Mark(1, cpu.Use{Other: 1.9}) != "" || never.Disturbed(cpu.Use{Other: 1.9}) {
		t.Error("with no bound nothing is disturbed")
	}
	b.Reset()
	never.Write(&b, "cell")
	if b.Len() != 0 {
		t.Errorf("with no bound Write printed %q", b.String())
	}
}
