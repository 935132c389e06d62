package api

import (
	"net/http"

	"github.com/marquee-tickets/marquee/web"

	"github.com/labstack/echo/v4"
)

// Checkout returns where the browser pays for the caller's live hold.
func (s *Handlers) Checkout(c echo.Context) error {
	if err := web.DecodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	_, checkoutURL, err := s.BoxOffice.OpenCheckout(c.Request().Context(), web.UserID(c), c.Param("hold_id"))
	if err != nil {
		return web.Lookup("hold", err)
	}
	return c.JSON(http.StatusCreated, map[string]string{"checkout_url": checkoutURL})
}
