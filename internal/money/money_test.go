package money_test

import (
	"errors"
	"math"
	"testing"

	"github.com/marquee-tickets/marquee/internal/money"
)

func TestSumRefusesToWrap(t *testing.T) {
	if got, err := money.Sum(1500, 1500, -375); err != nil || got != 2625 {
		t.Fatalf("Sum = %d, %v; want 2625", got, err)
	}
	if _, err := money.Sum(9_000_000_000_000_000_000, 9_000_000_000_000_000_000); !errors.Is(err, money.ErrOverflow) {
		t.Fatalf("two 9e18 amounts: err = %v, want ErrOverflow", err)
	}
	if _, err := money.Add(math.MinInt64, -1); !errors.Is(err, money.ErrOverflow) {
		t.Fatalf("MinInt64-1: err = %v, want ErrOverflow", err)
	}
}

func TestBounds(t *testing.T) {
	for _, c := range []struct {
		minor         int64
		price, amount bool
	}{
		{0, true, true},
		{money.MaxPriceMinor, true, true},
		{money.MaxPriceMinor + 1, false, true},
		{money.MaxAmountMinor, false, true},
		{money.MaxAmountMinor + 1, false, false},
		{-1, false, false},
		{math.MaxInt64, false, false},
	} {
		if got := money.ValidPrice(c.minor); got != c.price {
			t.Errorf("ValidPrice(%d) = %v", c.minor, got)
		}
		if got := money.ValidAmount(c.minor); got != c.amount {
			t.Errorf("ValidAmount(%d) = %v", c.minor, got)
		}
	}
}
