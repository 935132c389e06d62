package adminapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: the sales report.

// SalesReport is not built yet.
func (h *Handlers) SalesReport(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This is not built yet.")
}
