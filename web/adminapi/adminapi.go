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

// actor is the admin web.RequireAdmin let through.
func actor(c echo.Context) admin.Actor { return web.Actor(c) }

// pathID reads the id in path parameter name; anything but a positive
// number is a 404.
func pathID(c echo.Context, name string) (int64, error) {
	return web.ParseID(c.Param(name))
}
