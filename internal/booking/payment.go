package booking

import (
	"fmt"
	"time"

	"github.com/marquee-tickets/marquee/internal/money"
)

// Outcome is what a verified successful payment did.
type Outcome string

const (
	// OutcomeBooked: the payment bought its still-held seats.
	OutcomeBooked Outcome = "BOOKED"
	// OutcomeRefundRequired: the payment bought nothing and is owed back.
	OutcomeRefundRequired Outcome = "REFUND_REQUIRED"
)

// Why a payment bought nothing.
const (
	ReasonHoldExpired      = "hold_expired"
	ReasonHoldCancelled    = "hold_cancelled"
	ReasonAlreadyConfirmed = "already_confirmed"
	ReasonAmountMismatch   = "amount_mismatch"
	ReasonUnknownHold      = "unknown_hold"
)

// Payment is a successful charge reported by the payment provider, already
// verified (signature, timestamp) by the caller.
type Payment struct {
	ID          string // the provider's payment id: the idempotency key of confirmation
	HoldRef     string // the hold id as the provider sent it
	AmountMinor int64
	Currency    string
	// CapturedAt is when the provider took the money, as it reports it;
	// zero when it does not say. A payment captured before its hold's
	// deadline books it during the hold's payment grace.
	CapturedAt time.Time
}

// MaxPaymentID is the longest payment id a provider may report.
const MaxPaymentID = 255

// ValidPaymentID reports whether id is a payment id Marquee records: 1 to
// MaxPaymentID letters, digits and "_.:-". Every provider's ids fit, and
// an id of these characters means the same in a URL path, a query, a form
// field and a log line, so it can never name another address.
func ValidPaymentID(id string) bool {
	if len(id) == 0 || len(id) > MaxPaymentID {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// InvalidPaymentError is a provider's report of a payment that cannot be
// a real one: nothing of it is recorded.
type InvalidPaymentError struct{ Field, Message string }

func (e *InvalidPaymentError) Error() string { return "invalid payment: " + e.Field + ": " + e.Message }

// Validate reports the first field of p that no real payment has: an id
// outside ValidPaymentID, a hold id that is not a key (ValidKey), or an
// amount outside 0..money.MaxAmountMinor. Every way a report comes in (the
// webhook, reconciliation) is checked by it before anything is recorded.
func (p Payment) Validate() error {
	switch {
	case !ValidPaymentID(p.ID):
		return &InvalidPaymentError{Field: "payment_id",
			Message: fmt.Sprintf("payment_id must be 1 to %d letters, digits, '_', '.', ':' or '-'.", MaxPaymentID)}
	case !ValidKey(p.HoldRef):
		return &InvalidPaymentError{Field: "hold_id", Message: "hold_id must be 1 to 255 printable ASCII characters."}
	case !money.ValidAmount(p.AmountMinor):
		return &InvalidPaymentError{Field: "amount_minor",
			Message: fmt.Sprintf("amount_minor must be a whole number of minor units from 0 to %d.", money.MaxAmountMinor)}
	}
	return nil
}

// Settlement is what a verified successful payment does to the hold it
// names: it books the hold's seats, or it buys nothing and is owed back in
// full for Reason. EndLapsed asks the store to end the hold first, as the
// sweeper would: it is still marked HELD but has let its seats go.
type Settlement struct {
	Book      bool
	Reason    string // why it bought nothing: one of the Reason constants
	EndLapsed bool
}

// Mismatch is why payment p cannot be for hold h whatever the time:
// ReasonUnknownHold when it names no hold (found false), ReasonAmountMismatch
// when its amount or currency differs from the hold's; else "". Neither
// changes under a lock, so the store decides them before taking any.
func (p Payment) Mismatch(h Hold, found bool) string {
	switch {
	case !found:
		return ReasonUnknownHold
	case h.AmountMinor != p.AmountMinor || h.Currency != p.Currency:
		return ReasonAmountMismatch
	}
	return ""
}

// Settle decides what payment p, received at now, does to hold h, found or
// not (found false: p names no hold). It is the one rule of book or refund,
// applied by the store under the hold's locks with h read again under them:
//
//   - a payment for no hold, or whose amount or currency differs from its
//     hold's, buys nothing (and is reported as a mismatch);
//   - the first payment in time for a HELD hold books it (Hold.PaidInTime);
//   - one too late for a hold in its payment grace buys nothing and leaves
//     the hold its seats, for a payment captured in time;
//   - one for a lapsed, expired, cancelled or already confirmed hold buys
//     nothing.
func Settle(h Hold, found bool, p Payment, now time.Time) Settlement {
	if reason := p.Mismatch(h, found); reason != "" {
		return Settlement{Reason: reason}
	}
	switch {
	case h.PaidInTime(p.CapturedAt, now):
		return Settlement{Book: true}
	case h.State == HoldHeld && !h.Lapsed(now):
		return Settlement{Reason: ReasonHoldExpired}
	case h.State == HoldHeld:
		return Settlement{Reason: ReasonHoldExpired, EndLapsed: true}
	case h.State == HoldExpired:
		return Settlement{Reason: ReasonHoldExpired}
	case h.State == HoldCancelled:
		return Settlement{Reason: ReasonHoldCancelled}
	default: // CONFIRMED by another payment
		return Settlement{Reason: ReasonAlreadyConfirmed}
	}
}

// Confirmation is the stored outcome of one provider payment id. A repeat
// delivery of the same payment returns it unchanged.
type Confirmation struct {
	PaymentID string
	HoldID    string
	Outcome   Outcome
	Reason    string // empty when BOOKED
	BookingID string // set when BOOKED
}

// HoldPayment is a recorded payment for a hold as its owner may see it: its
// outcome, what it charged and, when money is owed back, the refund.
type HoldPayment struct {
	Confirmation
	AmountMinor int64
	Currency    string
	Refund      *Refund // nil when nothing is owed back
}

// PaymentCheck is where a hold stands when reconciliation is about to ask
// the provider about its payments.
type PaymentCheck struct {
	HoldID    string
	ExpiresAt time.Time // the hold's deadline
	// Settled: an outcome is stored for a payment of the hold (its webhook
	// arrived, or an earlier check processed it).
	Settled bool
	Now     time.Time // the store's clock when this was read
}
