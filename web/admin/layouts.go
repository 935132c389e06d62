package admin

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: screens and the seat-layout editor.

// NewScreenPage is not built yet.
func (h *Handlers) NewScreenPage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// CreateScreenSubmit is not built yet.
func (h *Handlers) CreateScreenSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// ScreenPage is not built yet.
func (h *Handlers) ScreenPage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// SaveLayoutSubmit is not built yet.
func (h *Handlers) SaveLayoutSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// LayoutPreview is not built yet.
func (h *Handlers) LayoutPreview(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}
