package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components/checkout"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/payment"
)

var (
	errHoldNotActive = newError(http.StatusConflict, "hold_not_active",
		"This hold is no longer active: pick your seats again.")
	errProviderUnavailable = newError(http.StatusServiceUnavailable, "payment_provider_unavailable",
		"We could not reach the payment provider. Your seats are still held: please try again in a moment.")
)

// returnURL is the page the provider sends the shopper back to after paying
// for hold holdID. It carries the hold id only to say which hold to show:
// the page believes nothing of it beyond that (see checkoutReturn).
func (s *server) returnURL(holdID string) string {
	return strings.TrimRight(s.cfg.PublicURL, "/") + "/checkout/return?hold_id=" + url.QueryEscape(holdID)
}

// openCheckout asks the provider, server to server, for a hosted checkout of
// the caller's live hold and returns its address.
func (s *server) openCheckout(ctx context.Context, userID, holdID string) (booking.Hold, string, error) {
	h, err := s.store.Hold(ctx, userID, holdID)
	if err != nil {
		return h, "", lookup("hold", err)
	}
	if h.State != booking.HoldHeld {
		return h, "", errHoldNotActive.with("state", string(h.State))
	}
	checkoutURL, err := s.payments.CreateCheckout(ctx, h, s.returnURL(h.ID))
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("create checkout", "hold", h.ID, "err", err)
		}
		return h, "", errProviderUnavailable
	}
	return h, checkoutURL, nil
}

// checkout returns where the browser pays for the caller's live hold.
func (s *server) checkout(c echo.Context) error {
	if err := decodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	_, checkoutURL, err := s.openCheckout(c.Request().Context(), userID(c), c.Param("hold_id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]string{"checkout_url": checkoutURL})
}

// payHold is the Pay button of a hold: it opens a checkout at the provider
// and sends the browser there. Only the hold's owner may; anyone else's hold
// is not found. A hold that is no longer live is a friendly 409.
func (s *server) payHold(c echo.Context) error {
	ctx := c.Request().Context()
	// Paid already, and the webhook is on its way (a second tab, the back
	// button): show the return page rather than take the money twice.
	if h, err := s.store.Hold(ctx, userID(c), c.Param("hold_id")); err == nil && h.State == booking.HoldHeld {
		if st, err := s.payments.PaymentStatus(ctx, h.ID); err == nil && st == payment.StatusSucceeded {
			return seeOther(c, s.returnURL(h.ID))
		}
	}
	_, checkoutURL, err := s.openCheckout(ctx, userID(c), c.Param("hold_id"))
	if err != nil {
		return err
	}
	return seeOther(c, checkoutURL)
}

// checkoutReturn is the page the provider sends the shopper back to. Its
// query string only names a hold, which must be the caller's: what the page
// says comes from the stored payment outcome (written by the webhook) or,
// before there is one, from asking the provider. It never confirms anything.
func (s *server) checkoutReturn(c echo.Context) error {
	r, err := s.returnView(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, checkout.ReturnPage(s.meta(c, checkout.Title(r)), r))
}

// checkoutReturnStatus is the return page's changing part, polled by htmx
// while the payment is being confirmed. An htmx poll that finds nothing new
// is answered 204, so nothing is swapped and nothing is read out again.
func (s *server) checkoutReturnStatus(c echo.Context) error {
	r, err := s.returnView(c)
	if err != nil {
		return err
	}
	if r.State == checkout.Confirming && isHTMX(c) {
		return c.NoContent(http.StatusNoContent)
	}
	return render(c, http.StatusOK, checkout.Status(r))
}

// returnView decides what the return page says about the caller's hold.
func (s *server) returnView(c echo.Context) (checkout.Return, error) {
	ctx := c.Request().Context()
	uid := userID(c)
	h, err := s.store.Hold(ctx, uid, c.QueryParam("hold_id"))
	if err != nil {
		return checkout.Return{}, lookup("hold", err)
	}
	r := checkout.Return{
		HoldID: h.ID, Seats: strings.Join(seatOrder(h.Seats), ", "), Amount: money(h.AmountMinor, h.Currency),
		ShowHref: "/shows/" + strconv.FormatInt(h.ShowID, 10), HoldLive: h.State == booking.HoldHeld,
		CSRF: csrfToken(c),
	}
	payments, err := s.store.PaymentsForHold(ctx, uid, h.ID)
	if err != nil {
		return r, err
	}
	if len(payments) > 0 {
		outcomeView(&r, payments)
		return r, nil
	}
	// No outcome stored yet: the webhook may be on its way, or there was
	// no payment. Only the provider can tell, and only for telling.
	status, err := s.payments.PaymentStatus(ctx, h.ID)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("payment status", "hold", h.ID, "err", err)
		}
		status = payment.StatusPending
	}
	switch {
	case status == payment.StatusDeclined:
		r.State = checkout.Declined
	case status == payment.StatusNone:
		r.State = checkout.NotPaid
	case status == payment.StatusPending && !r.HoldLive:
		// An open checkout nobody paid, for a hold that has ended.
		r.State = checkout.NotPaid
	default:
		// Succeeded (the webhook is on its way) or pending while the hold lasts.
		r.State = checkout.Confirming
	}
	return r, nil
}

// outcomeView fills r from the stored payments of its hold, the one that
// booked it first (see Store.PaymentsForHold).
func outcomeView(r *checkout.Return, payments []booking.HoldPayment) {
	first := payments[0]
	if first.Outcome == booking.OutcomeBooked {
		r.State, r.BookingHref = checkout.Booked, "/bookings/"+first.BookingID
		var extra int64
		for _, p := range payments[1:] {
			if p.Refund != nil {
				extra += p.Refund.AmountMinor
			}
		}
		if extra > 0 {
			r.ExtraRefund = money(extra, first.Currency)
		}
		return
	}
	r.State, r.Reason, r.RefundDone = checkout.RefundRequired, refundReason(first.Reason), true
	var owed int64
	for _, p := range payments {
		if p.Refund != nil {
			owed += p.Refund.AmountMinor
			r.RefundDone = r.RefundDone && p.Refund.Status == booking.RefundSucceeded
		}
	}
	r.Refund = money(owed, first.Currency)
}

// refundReason says, for a person, why a payment booked nothing.
func refundReason(reason string) string {
	switch reason {
	case booking.ReasonHoldExpired:
		return "Your hold on these seats had expired before your payment reached us, so the seats were released and not booked."
	case booking.ReasonHoldCancelled:
		return "You had released these seats before your payment reached us, so they were not booked."
	case booking.ReasonAmountMismatch:
		return "The payment did not match the price of your seats, so nothing was booked."
	case booking.ReasonAlreadyConfirmed:
		return "These seats had already been paid for by an earlier payment."
	}
	return "Your payment arrived but could not be used to book these seats."
}
