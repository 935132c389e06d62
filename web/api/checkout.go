package api

import (
	"net/http"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"

	"github.com/labstack/echo/v4"
)

// Checkout returns where the browser pays for the caller's live hold: 201
// for a checkout opened now, 200 for the one already open for the hold.
func (s *Handlers) Checkout(c echo.Context) error {
	if err := web.DecodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	_, co, err := s.BoxOffice.OpenCheckout(c.Request().Context(), session.UserID(c), c.Param("hold_id"))
	if err != nil {
		return problem.Lookup("hold", err)
	}
	status := http.StatusCreated
	if co.Reused {
		status = http.StatusOK
	}
	return c.JSON(status, map[string]string{"checkout_url": co.URL})
}
