package admin

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
)

// Not built yet: movies, posters, scheduling and prices.

// MoviesPage is not built yet.
func (h *Handlers) MoviesPage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// CreateMovieSubmit is not built yet.
func (h *Handlers) CreateMovieSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// MoviePage is not built yet.
func (h *Handlers) MoviePage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// UploadPosterSubmit is not built yet.
func (h *Handlers) UploadPosterSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// SchedulePage is not built yet.
func (h *Handlers) SchedulePage(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// CreateShowSubmit is not built yet.
func (h *Handlers) CreateShowSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// BulkScheduleSubmit is not built yet.
func (h *Handlers) BulkScheduleSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}

// PricesSubmit is not built yet.
func (h *Handlers) PricesSubmit(c echo.Context) error {
	return web.NewError(http.StatusNotImplemented, "not_implemented", "This page is not built yet.")
}
