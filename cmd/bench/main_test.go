package main

import (
	"maps"
	"slices"
	"testing"
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
