package adminapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: scheduling shows and their prices.

// CreateShow is not built yet.
func (h *Handlers) CreateShow(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// ScheduleShows is not built yet.
func (h *Handlers) ScheduleShows(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// TheatreShows is not built yet.
func (h *Handlers) TheatreShows(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// UpdatePrices is not built yet.
func (h *Handlers) UpdatePrices(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}
