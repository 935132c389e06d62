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

// actor is the admin web.RequireAdmin let through.
func actor(c echo.Context) admin.Actor { return web.Actor(c) }

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

// platformOnly refuses a theatre admin, before a form of what only a
// platform admin may do is read: they get the 403 page, not its field
// errors, and nothing of the theatre it names.
func platformOnly(c echo.Context) error {
	if !actor(c).Platform() {
		return admin.ErrPlatformOnly
	}
	return nil
}
