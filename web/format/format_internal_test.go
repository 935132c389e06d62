package format

import (
	"slices"
	"testing"
)

func TestSeatOrder(t *testing.T) {
	got := SeatOrder([]string{"C10", "C9", "D11", "AA1", "B2", "A10", "A2", "X"})
	want := []string{"A2", "A10", "B2", "C9", "C10", "D11", "X", "AA1"}
	if !slices.Equal(got, want) {
		t.Fatalf("seatOrder = %v, want %v", got, want)
	}
}

func TestMoney(t *testing.T) {
	for minor, want := range map[int64]string{0: "₹0", 45000: "₹450", 45050: "₹450.50", 45005: "₹450.05", 12345600: "₹1,23,456", -2500: "-₹25"} {
		if got := Money(minor, "INR"); got != want {
			t.Errorf("Money(%d) = %q, want %q", minor, got, want)
		}
	}
	if got := Money(1999, "USD"); got != "$19.99" {
		t.Errorf("USD: %q", got)
	}
	if got := Money(123456789, "USD"); got != "$1,234,567.89" {
		t.Errorf("USD is grouped in thousands, not lakhs: %q", got)
	}
	if got := Money(123456789, "INR"); got != "₹12,34,567.89" {
		t.Errorf("INR is grouped in lakhs: %q", got)
	}
	if got := Money(1500, "JPY"); got != "¥1,500" {
		t.Errorf("JPY has no decimals: %q", got)
	}
	if got := Money(1500, "KWD"); got != "KWD\u00a01.500" {
		t.Errorf("KWD has three decimals: %q", got)
	}
	if got := Money(500, "CHF"); got != "CHF\u00a05" {
		t.Errorf("CHF: %q", got)
	}
}
