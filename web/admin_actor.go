package web

import (
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/web/session"
)

const actorKey = "marquee.admin"

// RequireAdmin lets through only an admin, after RequireUser (the API: a
// guest gets 401) or RequirePageUser (the pages: a guest is sent to log
// in). A moviegoer gets 403. The admin is then Actor(c).
func (s *Server) RequireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		a, err := s.Admin.Actor(c.Request().Context(), session.UserID(c))
		if err != nil {
			return err
		}
		c.Set(actorKey, a)
		return next(c)
	}
}

// Actor is the admin RequireAdmin let through.
func Actor(c echo.Context) admin.Actor {
	a, _ := c.Get(actorKey).(admin.Actor)
	return a
}

// RequirePlatformAdmin lets through only a platform admin, after
// RequireAdmin: a theatre admin gets 403 like a moviegoer.
func RequirePlatformAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !Actor(c).Platform() {
			return admin.ErrPlatformOnly
		}
		return next(c)
	}
}
