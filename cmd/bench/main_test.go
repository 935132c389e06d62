package main

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/burstbench"
)

func TestParseFlags(t *testing.T) {
	if got, err := parseCounts("-clients", "1, 8,64", 1024); err != nil || !slices.Equal(got, []int{1, 8, 64}) {
		t.Errorf("parseCounts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "8,x", "1025"} {
		if _, err := parseCounts("-clients", bad, 1024); err == nil {
			t.Errorf("parseCounts(%q): no error", bad)
		}
	}
	if got, err := parseRates("-browser-cpu", "4,1.5"); err != nil || !slices.Equal(got, []float64{4, 1.5}) {
		t.Errorf("parseRates = %v, %v", got, err)
	}
	for _, bad := range []string{"0.5", "21", "fast"} {
		if _, err := parseRates("-browser-cpu", bad); err == nil {
			t.Errorf("parseRates(%q): no error", bad)
		}
	}
	known := []string{"none", "design", "naive1"}
	if got, err := parseChoice("-live-ways", "none, design", known, "none"); err != nil || !slices.Equal(slices.Sorted(maps.Keys(got)), []string{"design", "none"}) {
		t.Errorf("parseChoice = %v, %v", got, err)
	}
	if _, err := parseChoice("-live-ways", "design", known, "none"); err == nil {
		t.Error("parseChoice without the baseline: no error")
	}
	if _, err := parseChoice("-live-ways", "none,other", known, "none"); err == nil {
		t.Error("parseChoice of an unknown way: no error")
	}
}

func TestParseBurstFlags(t *testing.T) {
	if got, err := parseRooms("on, off"); err != nil || !slices.Equal(got, []bool{true, false}) {
		t.Errorf("parseRooms = %v, %v; want on then off", got, err)
	}
	if got, err := parsePicks("best,hand"); err != nil || !slices.Equal(got, []burstbench.Pick{burstbench.BestAvailable, burstbench.ByHand}) {
		t.Errorf("parsePicks = %v, %v; want best then hand", got, err)
	}
	for _, bad := range []string{"", "yes", "off,maybe"} {
		if _, err := parseRooms(bad); err == nil {
			t.Errorf("parseRooms(%q): no error", bad)
		}
	}
	for _, bad := range []string{"", "any", "hand,seat"} {
		if _, err := parsePicks(bad); err == nil {
			t.Errorf("parsePicks(%q): no error", bad)
		}
	}
	for s, want := range map[string][2]time.Duration{
		"1s-3s":    {time.Second, 3 * time.Second},
		"500ms-1s": {500 * time.Millisecond, time.Second},
		"2s":       {2 * time.Second, 2 * time.Second},
		"0":        {0, 0},
		" 0 - 1m ": {0, time.Minute},
	} {
		if got, err := parseThink(s); err != nil || got != want {
			t.Errorf("parseThink(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "3s-1s", "1s-2m", "-1s", "soon", "1s-3s-5s"} {
		if got, err := parseThink(bad); err == nil {
			t.Errorf("parseThink(%q) = %v: no error", bad, got)
		}
	}
}
