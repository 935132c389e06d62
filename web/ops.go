package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// healthz answers while the process serves requests.
func (s *server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 once the database answers with every migration applied.
func (s *server) readyz(c echo.Context) error {
	if err := s.store.Ready(c.Request().Context()); err != nil {
		s.log.Warn("not ready", "err", err)
		return errNotReady
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
