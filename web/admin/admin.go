// Package admin serves the theatre admin's pages under /admin: theatres and
// grants, screens and the seat-layout editor, movies, scheduling, a show's
// live occupancy with seat blocks and cancellation, sales, payments to
// check and the audit log. Each handler parses the form, calls a use case
// of internal/admin with the signed-in admin, and renders a component of
// components/admin.
package admin

import (
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/web"
)

// Handlers are the admin pages' handlers, on the shared server.
type Handlers struct{ *web.Server }

const actorKey = "marquee.admin.page"

// RequireAdminPage lets through only an admin (after web.RequirePageUser,
// which sends a guest to log in): a moviegoer gets the friendly 403 page.
// The admin is then actor(c).
func (h *Handlers) RequireAdminPage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		a, err := h.Admin.Actor(c.Request().Context(), web.UserID(c))
		if err != nil {
			return err
		}
		c.Set(actorKey, a)
		return next(c)
	}
}

// actor is the admin RequireAdminPage let through.
func actor(c echo.Context) admin.Actor {
	a, _ := c.Get(actorKey).(admin.Actor)
	return a
}

// meta is the layout's part of an admin page titled title; admin pages use
// the wide frame (tables, the seat map, the layout editor).
func (h *Handlers) meta(c echo.Context, title string) components.Meta {
	m := h.Meta(c, title)
	m.Wide = true
	return m
}

// nav is the admin navigation of a page in section.
func nav(c echo.Context, section string) adminview.Nav {
	return adminview.Nav{Current: section, Platform: actor(c).Platform()}
}

// pathID reads the id in path parameter name; anything but a positive
// number is a 404.
func pathID(c echo.Context, name string) (int64, error) {
	return web.ParseID(c.Param(name))
}
