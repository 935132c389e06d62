package money_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/money"
)

func TestPatternOf(t *testing.T) {
	for code, want := range map[string]money.Pattern{
		"INR": {Prefix: "₹", Group: 2, Digits: 2},
		"USD": {Prefix: "$", Group: 3, Digits: 2},
		"EUR": {Prefix: "€", Group: 3, Digits: 2},
		"JPY": {Prefix: "¥", Group: 3, Digits: 0},
		"KWD": {Prefix: "KWD\u00a0", Group: 3, Digits: 3},
	} {
		if got := money.PatternOf(code); got != want {
			t.Errorf("PatternOf(%s) = %#v, want %#v", code, got, want)
		}
	}
}
