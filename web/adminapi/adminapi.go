// Package adminapi serves the theatre admin's JSON API under
// /api/v1/admin (docs/api.md, Admin): each handler parses, calls a use case
// of internal/admin with the signed-in admin, and answers JSON.
package adminapi

import (
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/web"
)

// Handlers are the admin API's handlers, on the shared server.
type Handlers struct{ *web.Server }

const actorKey = "marquee.admin"

// RequireAdmin lets through only an admin (after web.RequireUser, which
// answers 401 to a guest): a moviegoer gets 403 on every admin route.
// The admin is then actor(c).
func (h *Handlers) RequireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		a, err := h.Admin.Actor(c.Request().Context(), web.UserID(c))
		if err != nil {
			return err
		}
		c.Set(actorKey, a)
		return next(c)
	}
}

// actor is the admin RequireAdmin let through.
func actor(c echo.Context) admin.Actor {
	a, _ := c.Get(actorKey).(admin.Actor)
	return a
}

// pathID reads the id in path parameter name; anything but a positive
// number is a 404.
func pathID(c echo.Context, name string) (int64, error) {
	return web.ParseID(c.Param(name))
}
