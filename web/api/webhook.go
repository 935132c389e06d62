package api

import (
	"net/http"
	"regexp"
	"time"

	"github.com/marquee-tickets/marquee/web"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/payment"
)

// Payment statuses the provider reports.
const (
	paymentSucceeded = "succeeded"
	paymentFailed    = "failed"
)

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

type webhookRequest struct {
	PaymentID   string `json:"payment_id"`
	HoldID      string `json:"hold_id"`
	AmountMinor *int64 `json:"amount_minor"`
	Currency    string `json:"currency"`
	Status      string `json:"status"`
	// CapturedAt, optional, is when the provider took the money (RFC 3339):
	// a payment captured before its hold's deadline books it during the
	// hold's payment grace.
	CapturedAt *time.Time `json:"captured_at"`
}

// validate names the first field a person must correct, if any: the
// payment's own rules (booking.Payment.Validate: its id, hold id and
// amount), then the report's.
func (r webhookRequest) validate() error {
	invalid := func(field, message string) error {
		return &booking.InvalidPaymentError{Field: field, Message: message}
	}
	if r.AmountMinor == nil {
		return invalid("amount_minor", "amount_minor is required: a whole number of minor units.")
	}
	if err := r.payment().Validate(); err != nil {
		return err
	}
	switch {
	case !currencyPattern.MatchString(r.Currency):
		return invalid("currency", "currency must be an ISO 4217 code such as INR.")
	case r.Status != paymentSucceeded && r.Status != paymentFailed:
		return invalid("status", `status must be "succeeded" or "failed".`)
	}
	return nil
}

// payment is the payment the report describes; AmountMinor must be set.
func (r webhookRequest) payment() booking.Payment {
	p := booking.Payment{ID: r.PaymentID, HoldRef: r.HoldID, AmountMinor: *r.AmountMinor, Currency: r.Currency}
	if r.CapturedAt != nil {
		p.CapturedAt = *r.CapturedAt
	}
	return p
}

type confirmationJSON struct {
	PaymentID string `json:"payment_id"`
	HoldID    string `json:"hold_id"`
	Outcome   string `json:"outcome"`
	Reason    string `json:"reason,omitempty"`
	BookingID string `json:"booking_id,omitempty"`
}

// PaymentWebhook takes the provider's report of a payment. Nothing of the
// body is believed, or even parsed, before its signature checks out.
func (s *Handlers) PaymentWebhook(c echo.Context) error {
	body, err := web.ReadBody(c)
	if err != nil {
		return err
	}
	header := c.Request().Header.Get(payment.SignatureHeader)
	if len(s.Config.WebhookSecret) == 0 {
		// Anyone can sign with an empty key: without a secret, believe no one.
		return payment.ErrBadSignature
	}
	if err := payment.Verify(s.Config.WebhookSecret, header, body, time.Now(), payment.DefaultTolerance); err != nil {
		return err
	}
	var req webhookRequest
	if err := web.ParseJSON(c.Request().Header.Get(echo.HeaderContentType), body, &req, true); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	// The same use case reconciliation processes a charge with: a payment
	// is received one way, whichever way its report came.
	conf, err := s.BoxOffice.Receiver().Receive(c.Request().Context(), req.payment(), req.Status == paymentSucceeded)
	if err != nil {
		return err
	}
	if conf.Outcome == boxoffice.Ignored {
		// A declined payment changes nothing, and its id stays free: the
		// shopper may retry and succeed under the same id.
		return c.JSON(http.StatusOK, map[string]string{"outcome": string(boxoffice.Ignored)})
	}
	return c.JSON(http.StatusOK, confirmationJSON{
		PaymentID: conf.PaymentID, HoldID: conf.HoldID, Outcome: string(conf.Outcome),
		Reason: conf.Reason, BookingID: conf.BookingID,
	})
}
