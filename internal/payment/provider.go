package payment

import (
	"context"
	"errors"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// Provider is a payment provider with a hosted checkout: the sandbox that
// ships with Marquee, or a real one (Stripe, Razorpay) behind an adapter.
// Every call is server to server. The provider reports payments by signed
// webhook (see Verify); when a webhook is lost, reconciliation asks
// PaymentStatus instead, and both reports go through Receiver.
type Provider interface {
	// CreateCheckout opens a hosted checkout for hold h, or returns the one
	// already open for it (Reused): one open checkout per hold, however
	// many times and however concurrently it is asked, like a real
	// provider's checkout session under an idempotency key. A new one is
	// opened only when the last was declined. A hold one of whose checkouts
	// was paid gets none: ErrAlreadyPaid; nor does one past its deadline:
	// ErrDeadlinePassed. The checkout takes money only before h.ExpiresAt,
	// and never for a hold another checkout of which was paid. After paying
	// or declining the shopper is sent to links.Return; leaving without
	// paying, to links.Back.
	CreateCheckout(ctx context.Context, h booking.Hold, links Links) (Checkout, error)

	// PaymentStatus says how paying for hold holdID went, as far as the
	// provider knows, with every charge that took money for it. The return
	// page tells the shopper from it; reconciliation books or refunds each
	// charge from it exactly as the charge's webhook would have.
	PaymentStatus(ctx context.Context, holdID string) (Report, error)

	// Refund pays refund r back. The refund id is the provider's
	// idempotency key, so a retry never pays twice.
	Refund(ctx context.Context, r booking.Refund) error
}

// Checkout is a hosted checkout as CreateCheckout answered it.
type Checkout struct {
	URL    string // where the shopper's browser goes to pay
	Reused bool   // it was already open for the hold: no new one was made
}

// Errors of CreateCheckout.
var (
	// ErrAlreadyPaid: a checkout of the hold was paid; no other opens.
	ErrAlreadyPaid = errors.New("payment: the hold is already paid")
	// ErrDeadlinePassed: the hold's deadline has passed; nothing can be paid.
	ErrDeadlinePassed = errors.New("payment: the hold's deadline has passed")
)

// Links are the merchant's pages a hosted checkout sends the shopper to.
type Links struct {
	Return string // after paying or declining: the return page
	Back   string // leaving without paying, e.g. once the hold has run out: the show
}

// Report is the provider's account of paying for one hold.
type Report struct {
	Status Status
	// Charges are the payments that took money for the hold, oldest first,
	// each with what its webhook carries (id, hold, amount, currency, and
	// when the money was captured).
	Charges []booking.Payment
}

// Status is the provider's view of the payment for a hold.
type Status string

const (
	// StatusNone: no checkout was ever opened for the hold.
	StatusNone Status = "none"
	// StatusPending: a checkout is open and nothing is decided yet.
	StatusPending Status = "pending"
	// StatusDeclined: the last attempt was declined; nothing was charged.
	StatusDeclined Status = "declined"
	// StatusSucceeded: money was taken (see Report.Charges).
	StatusSucceeded Status = "succeeded"
)
