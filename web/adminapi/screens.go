package adminapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: screens, seat layouts, movies and posters.

// CreateScreen is not built yet.
func (h *Handlers) CreateScreen(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// Screen is not built yet.
func (h *Handlers) Screen(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// ReplaceLayout is not built yet.
func (h *Handlers) ReplaceLayout(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// CreateMovie is not built yet.
func (h *Handlers) CreateMovie(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// UploadPoster is not built yet.
func (h *Handlers) UploadPoster(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}
