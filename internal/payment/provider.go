package payment

import (
	"context"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// Provider is a payment provider with a hosted checkout: the sandbox that
// ships with Marquee, or a real one (Stripe, Razorpay) behind an adapter.
// Every call is server to server; the provider reports payments themselves
// by signed webhook (see Verify), and only the webhook books seats.
type Provider interface {
	// CreateCheckout opens a hosted checkout for hold h and returns the
	// address the shopper's browser goes to. After paying or declining the
	// shopper is sent to returnURL.
	CreateCheckout(ctx context.Context, h booking.Hold, returnURL string) (checkoutURL string, err error)

	// PaymentStatus says how paying for hold holdID went, as far as the
	// provider knows. It is for telling the shopper, never for booking.
	PaymentStatus(ctx context.Context, holdID string) (Status, error)

	// Refund pays refund r back. The refund id is the provider's
	// idempotency key, so a retry never pays twice.
	Refund(ctx context.Context, r booking.Refund) error
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
	// StatusSucceeded: money was taken; the webhook carries the outcome.
	StatusSucceeded Status = "succeeded"
)
