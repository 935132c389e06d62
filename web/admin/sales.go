package admin

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: a show's live occupancy, blocks, cancellation, sales, payments to check and the audit log.

// ShowPage is not built yet.
func (h *Handlers) ShowPage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// BlockSubmit is not built yet.
func (h *Handlers) BlockSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// UnblockSubmit is not built yet.
func (h *Handlers) UnblockSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// CancelShowSubmit is not built yet.
func (h *Handlers) CancelShowSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// SalesPage is not built yet.
func (h *Handlers) SalesPage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// ReconciliationPage is not built yet.
func (h *Handlers) ReconciliationPage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// ReconcileSubmit is not built yet.
func (h *Handlers) ReconcileSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// AuditPage is not built yet.
func (h *Handlers) AuditPage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}
