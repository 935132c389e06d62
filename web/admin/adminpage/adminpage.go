// Package adminpage is what every admin page shares, whichever part of
// the admin pages serves it: the layout's wide frame, the navigation, the
// ids of the path, the platform admin's gate, and the addresses one part
// links to in another.
package adminpage

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/web"
)

// Meta is the layout's part of an admin page titled title; admin pages use
// the wide frame (tables, the seat map, the layout editor).
func Meta(s *web.Server, c echo.Context, title string) components.Meta {
	m := s.Meta(c, title)
	m.Wide = true
	return m
}

// Nav is the admin navigation of a page in section.
func Nav(c echo.Context, section string) adminview.Nav {
	a := web.Actor(c)
	return adminview.Nav{Current: section, Platform: a.Platform(),
		Manage: a.CanAnywhere(admin.Manage), Sell: a.CanAnywhere(admin.Sell), CheckIn: a.CanAnywhere(admin.CheckIn)}
}

// PathID reads the id in path parameter name; anything but a positive
// number is a 404.
func PathID(c echo.Context, name string) (int64, error) {
	return web.ParseID(c.Param(name))
}

// PlatformOnly refuses a theatre admin, before a form of what only a
// platform admin may do is read: they get the 403 page, not its field
// errors, and nothing of the theatre it names.
func PlatformOnly(c echo.Context) error {
	if !web.Actor(c).Platform() {
		return admin.ErrPlatformOnly
	}
	return nil
}

// ShowPath is the address of a show's page: its live occupancy, seat
// blocks, cancellation and waiting room.
func ShowPath(id int64) string { return "/admin/shows/" + strconv.FormatInt(id, 10) }
