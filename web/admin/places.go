package admin

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: the dashboard, theatres and their admins.

// Dashboard is not built yet.
func (h *Handlers) Dashboard(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// TheatresPage is not built yet.
func (h *Handlers) TheatresPage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// CreateTheatreSubmit is not built yet.
func (h *Handlers) CreateTheatreSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// CreateCitySubmit is not built yet.
func (h *Handlers) CreateCitySubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// TheatrePage is not built yet.
func (h *Handlers) TheatrePage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// UpdateTheatreSubmit is not built yet.
func (h *Handlers) UpdateTheatreSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// GrantSubmit is not built yet.
func (h *Handlers) GrantSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// RevokeSubmit is not built yet.
func (h *Handlers) RevokeSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}
