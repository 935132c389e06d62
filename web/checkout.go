package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
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
