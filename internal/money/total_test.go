package money_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/money"
)

func TestTotalPlusNeverWraps(t *testing.T) {
	big := money.Exact(9e18)
	if got := big.Plus(big); !got.Overflow || got.Int64() != nil {
		t.Fatalf("9e18 + 9e18 = %+v, want an overflow", got)
	}
	if got := big.Plus(money.Exact(-9e18)).Plus(money.Exact(5)); got.Overflow || got.Minor != 5 {
		t.Fatalf("9e18 - 9e18 + 5 = %+v, want 5", got)
	}
	if got := (money.Total{Overflow: true}).Plus(money.Exact(1)); !got.Overflow {
		t.Fatal("an overflow plus a number is a number")
	}
	if p := money.Exact(1500).Int64(); p == nil || *p != 1500 {
		t.Fatalf("Exact(1500).Int64() = %v", p)
	}
}
