package server

import (
	"net/http"

	"github.com/marquee-tickets/marquee/web"

	"github.com/labstack/echo/v4"
)

var errNotReady = web.NewError(http.StatusServiceUnavailable, "not_ready", "The service is not ready.")

// ops answers the operations endpoints.
type ops struct{ *web.Server }

// Healthz answers while the process serves requests.
func (s ops) Healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// Readyz answers 200 once the database answers with every migration applied.
func (s ops) Readyz(c echo.Context) error {
	if err := s.Store.Ready(c.Request().Context()); err != nil {
		s.Log.Warn("not ready", "err", err)
		return errNotReady
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
