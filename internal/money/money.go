// Package money owns amounts of money: the bounds every amount Marquee
// accepts must keep, sums that refuse to wrap, and what Marquee knows of
// each currency (currency.go): which codes are current, their minor units,
// how an amount is written and how a typed price is read.
//
// An amount is an int64 count of its currency's minor units (ISO 4217:
// cents for USD, paise for INR, yen for JPY, fils for KWD).
package money

import (
	"errors"
	"math"
)

// MaxPriceMinor is the largest price of one seat, in minor units of any
// currency: 1,000,000,000 (ten million dollars, euros or rupees; a billion
// yen). A price above it is refused when it is set, so that no hold of up
// to MaxSeats seats can come near int64's range.
const MaxPriceMinor int64 = 1_000_000_000

// MaxAmountMinor is the largest amount of one payment or refund Marquee
// records, in minor units: 1,000,000,000,000. A provider's report of more
// is refused as malformed before anything is recorded; a real hold cannot
// cost more (MaxPriceMinor times a thousand seats).
const MaxAmountMinor int64 = 1_000_000_000_000

// ErrOverflow is returned by Sum when a total leaves int64's range.
var ErrOverflow = errors.New("money: total out of range")

// ValidAmount reports whether minor is an amount a payment or refund may
// carry: 0 to MaxAmountMinor.
func ValidAmount(minor int64) bool { return minor >= 0 && minor <= MaxAmountMinor }

// ValidPrice reports whether minor is a price a seat may have: 0 to
// MaxPriceMinor.
func ValidPrice(minor int64) bool { return minor >= 0 && minor <= MaxPriceMinor }

// Add returns a+b, or ErrOverflow when the sum leaves int64's range.
func Add(a, b int64) (int64, error) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, ErrOverflow
	}
	return a + b, nil
}

// Sum adds amounts, or returns ErrOverflow when any partial sum leaves
// int64's range.
func Sum(amounts ...int64) (int64, error) {
	var total int64
	for _, a := range amounts {
		var err error
		if total, err = Add(total, a); err != nil {
			return 0, err
		}
	}
	return total, nil
}
