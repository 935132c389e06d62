package booking

import (
	"slices"
	"time"
)

// RefundTier refunds Percent of the price when cancelling more than Before
// ahead of the show's start.
type RefundTier struct {
	Before  time.Duration
	Percent int
}

// RefundPolicy decides what a cancelled booking gets back.
type RefundPolicy struct {
	Tiers []RefundTier
}

// DefaultRefundPolicy is the policy of a theatre that set none: a full refund
// until 24 hours before the show, half until 2 hours before, none after.
var DefaultRefundPolicy = RefundPolicy{Tiers: []RefundTier{
	{Before: 24 * time.Hour, Percent: 100},
	{Before: 2 * time.Hour, Percent: 50},
}}

// MovedPolicy is the refund policy of a booking whose show the theatre
// moved after it was booked: its moviegoer may decline the new time and
// get everything back until the show starts, whatever the theatre's own
// policy says (which never gives more).
var MovedPolicy = RefundPolicy{Tiers: []RefundTier{{Before: 0, Percent: 100}}}

// RefundDeadline is a tier of a policy pinned to one show: cancelling
// before Until gives back Percent of the price.
type RefundDeadline struct {
	Until   time.Time
	Percent int
}

// Deadlines returns the policy's tiers for a show starting at startsAt as
// they stand at now, in time order, without the ones already passed. A
// tier passes at its Until exactly, as a hold lapses at its deadline: the
// first deadline is what cancelling at now gives back, and with none left
// cancelling is closed. Every answer about a cancellation (what the hold
// and the pages promise, what CancelBooking refunds) is read from here.
func (p RefundPolicy) Deadlines(startsAt, now time.Time) []RefundDeadline {
	var out []RefundDeadline
	for _, t := range p.Tiers {
		if until := startsAt.Add(-t.Before); now.Before(until) {
			out = append(out, RefundDeadline{Until: until, Percent: t.Percent})
		}
	}
	slices.SortFunc(out, func(a, b RefundDeadline) int { return a.Until.Compare(b.Until) })
	return out
}

// PercentAt returns the percent of the price that cancelling at now gives
// back for a show starting at startsAt. ok is false when cancelling is
// closed.
func (p RefundPolicy) PercentAt(startsAt, now time.Time) (percent int, ok bool) {
	d := p.Deadlines(startsAt, now)
	if len(d) == 0 {
		return 0, false
	}
	return d[0].Percent, true
}

// RefundAt returns the amount refunded for cancelling, at now, a booking of
// amount minor units for a show starting at startsAt. ok is false when
// cancelling is closed. Amounts round down to the minor unit.
func (p RefundPolicy) RefundAt(amount int64, startsAt, now time.Time) (refund int64, ok bool) {
	percent, ok := p.PercentAt(startsAt, now)
	if !ok {
		return 0, false
	}
	return amount * int64(percent) / 100, true
}

// CancellationTerms are what cancelling a booking of a show is decided on:
// its theatre's refund policy, the show's start and the authoritative now.
type CancellationTerms struct {
	Policy   RefundPolicy
	StartsAt time.Time
	Now      time.Time
}

// Deadlines are the policy's tiers for the show from Now on (see
// RefundPolicy.Deadlines).
func (t CancellationTerms) Deadlines() []RefundDeadline {
	return t.Policy.Deadlines(t.StartsAt, t.Now)
}

// ForMovedBooking are the terms of a booking its show was moved under:
// MovedPolicy instead of the theatre's.
func (t CancellationTerms) ForMovedBooking() CancellationTerms {
	t.Policy = MovedPolicy
	return t
}

// RefundQuote is what cancelling a booking now would refund.
type RefundQuote struct {
	CancellationTerms
	AmountMinor int64
	Currency    string
	Allowed     bool // false once the policy no longer allows cancelling
}

// RefundedPayment is a payment of a user's that bought no seats (it came
// late, twice, for released seats, or for the wrong amount) and is paid
// back in full: shown in My bookings, so a person can always see what
// became of their money.
type RefundedPayment struct {
	PaymentID   string
	HoldID      string
	ShowID      int64
	Seats       []string
	AmountMinor int64
	Currency    string
	Reason      string // why it bought nothing: Reason*
	ReceivedAt  time.Time
	Refund      Refund
}
