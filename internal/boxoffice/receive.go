package boxoffice

import (
	"context"
	"errors"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Ignored is the outcome of a report of a failed (declined) payment:
// nothing changes and its payment id is not recorded, so a later report of
// the same id as succeeded is processed normally.
const Ignored booking.Outcome = "IGNORED"

// Receiver records what the provider reports about one payment, whichever
// way the report came: by signed webhook, or by reconciliation asking the
// provider after the webhook failed to arrive. Both go through Receive, so
// a payment is processed one way only, and once: its payment id is the
// idempotency key of Store.ConfirmPayment, and a second report of it, by
// either way, returns the stored outcome.
type Receiver struct {
	Store   *postgres.Store
	Metrics *metrics.Metrics // may be nil
}

// Receive records payment p, verified by the caller, as succeeded or not.
// A succeeded payment becomes its one stored outcome: BOOKED while its hold
// is valid, else REFUND_REQUIRED with a refund queued (see
// Store.ConfirmPayment, whose errors it returns: *booking.AmountMismatchError
// for a payment recorded for review, booking.ErrPaymentConflict for a
// payment id reused with another hold, amount or currency). A failed one
// is Ignored. A report no real payment could make (p.Validate) is refused
// with *booking.InvalidPaymentError, whatever its status, and nothing of it
// is recorded.
func (r *Receiver) Receive(ctx context.Context, p booking.Payment, succeeded bool) (booking.Confirmation, error) {
	if err := p.Validate(); err != nil {
		return booking.Confirmation{}, err
	}
	if !succeeded {
		r.count("ignored")
		return booking.Confirmation{PaymentID: p.ID, HoldID: p.HoldRef, Outcome: Ignored}, nil
	}
	c, err := r.Store.ConfirmPayment(ctx, p)
	var mismatch *booking.AmountMismatchError
	switch {
	case errors.As(err, &mismatch):
		r.count("amount_mismatch")
	case errors.Is(err, booking.ErrPaymentConflict):
		r.count("conflict")
	case err != nil:
	case c.Outcome == booking.OutcomeBooked:
		r.count("booked")
	default:
		r.count("refund_required")
	}
	return c, err
}

func (r *Receiver) count(outcome string) {
	if r.Metrics != nil {
		r.Metrics.Payments.WithLabelValues(outcome).Inc()
	}
}
