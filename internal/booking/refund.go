package booking

import (
	"cmp"
	"slices"
	"time"
)

// RefundTier refunds Percent of the price when cancelling at least Before the show starts.
type RefundTier struct {
	Before  time.Duration
	Percent int
}

// RefundPolicy decides what a cancelled booking gets back.
type RefundPolicy struct {
	Tiers []RefundTier
}

// DefaultRefundPolicy is the policy of a theatre that set none: a full refund
// up to 24 hours before the show, half up to 2 hours before, none after.
var DefaultRefundPolicy = RefundPolicy{Tiers: []RefundTier{
	{Before: 24 * time.Hour, Percent: 100},
	{Before: 2 * time.Hour, Percent: 50},
}}

// Refund returns the amount refunded for cancelling a booking of amount
// minor units when untilShow remains before it starts. ok is false when no
// tier allows cancelling any more. Amounts round down to the minor unit.
func (p RefundPolicy) Refund(amount int64, untilShow time.Duration) (refund int64, ok bool) {
	tiers := slices.Clone(p.Tiers)
	slices.SortFunc(tiers, func(a, b RefundTier) int { return cmp.Compare(b.Before, a.Before) })
	for _, t := range tiers {
		if untilShow >= t.Before {
			return amount * int64(t.Percent) / 100, true
		}
	}
	return 0, false
}
