package adminapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: a show's occupancy, seat blocks and cancellation.

// ShowStatus is not built yet.
func (h *Handlers) ShowStatus(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// BlockSeats is not built yet.
func (h *Handlers) BlockSeats(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// UnblockSeats is not built yet.
func (h *Handlers) UnblockSeats(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// CancelShow is not built yet.
func (h *Handlers) CancelShow(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}
