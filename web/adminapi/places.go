package adminapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: cities, theatres, grants and the audit log.

// CreateCity is not built yet.
func (h *Handlers) CreateCity(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// CreateTheatre is not built yet.
func (h *Handlers) CreateTheatre(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// Theatres is not built yet.
func (h *Handlers) Theatres(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// Theatre is not built yet.
func (h *Handlers) Theatre(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// UpdateTheatre is not built yet.
func (h *Handlers) UpdateTheatre(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// GrantAdmin is not built yet.
func (h *Handlers) GrantAdmin(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// RevokeAdmin is not built yet.
func (h *Handlers) RevokeAdmin(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}

// AuditLog is not built yet.
func (h *Handlers) AuditLog(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}
