package payment

import (
	"context"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// Provider is a payment provider with a hosted checkout: the sandbox that
// ships with Marquee, or a real one (Stripe, Razorpay) behind an adapter.
// Every call is server to server. The provider reports payments by signed
// webhook (see Verify); when a webhook is lost, reconciliation asks
// PaymentStatus instead, and both reports go through Receiver.
type Provider interface {
	// CreateCheckout opens a hosted checkout for hold h and returns the
	// address the shopper's browser goes to. The checkout takes money only
	// while h is valid (before h.ExpiresAt). After paying or declining the
	// shopper is sent to links.Return; leaving without paying, to links.Back.
	CreateCheckout(ctx context.Context, h booking.Hold, links Links) (checkoutURL string, err error)

	// PaymentStatus says how paying for hold holdID went, as far as the
	// provider knows, with every charge that took money for it. The return
	// page tells the shopper from it; reconciliation books or refunds each
	// charge from it exactly as the charge's webhook would have.
	PaymentStatus(ctx context.Context, holdID string) (Report, error)

	// Refund pays refund r back. The refund id is the provider's
	// idempotency key, so a retry never pays twice.
	Refund(ctx context.Context, r booking.Refund) error
}

// Links are the merchant's pages a hosted checkout sends the shopper to.
type Links struct {
	Return string // after paying or declining: the return page
	Back   string // leaving without paying, e.g. once the hold has run out: the show
}

// Report is the provider's account of paying for one hold.
type Report struct {
	Status Status
	// Charges are the payments that took money for the hold, oldest first,
	// each with what its webhook carries (id, hold, amount, currency).
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
