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
	t, ok := p.Tier(untilShow)
	if !ok {
		return 0, false
	}
	return amount * int64(t.Percent) / 100, true
}

// Tier returns the tier that applies when untilShow remains before the
// show: the one with the longest Before that untilShow still reaches. ok is
// false when none does (cancelling is closed).
func (p RefundPolicy) Tier(untilShow time.Duration) (tier RefundTier, ok bool) {
	tiers := slices.Clone(p.Tiers)
	slices.SortFunc(tiers, func(a, b RefundTier) int { return cmp.Compare(b.Before, a.Before) })
	for _, t := range tiers {
		if untilShow >= t.Before {
			return t, true
		}
	}
	return RefundTier{}, false
}
