package booking

import "time"

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
