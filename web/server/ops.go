package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/labstack/echo/v4"
)

// readyTimeout bounds /readyz: a load balancer asks often and must learn
// quickly that a database gone silent makes this instance unready.
const readyTimeout = 2 * time.Second

var errNotReady = &problem.Error{
	Status: http.StatusServiceUnavailable, Code: "not_ready", Message: "The service is not ready.",
	Header: map[string]string{"Retry-After": strconv.Itoa(problem.UnavailableRetryAfter)},
}

// ops answers the operations endpoints.
type ops struct{ *web.Server }

// Healthz answers while the process serves requests.
func (s ops) Healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// Readyz answers 200 once the database answers with every migration
// applied, and 503 whenever it does not: down, restarting, or out of reach.
func (s ops) Readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
	defer cancel()
	if err := s.Store.Ready(ctx); err != nil {
		s.Log.WarnContext(ctx, "not ready", "err", err)
		return errNotReady
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}
