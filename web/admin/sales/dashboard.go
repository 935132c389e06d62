package sales

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
)

// Dashboard is the admin's start: GET /admin.
func (h *Handlers) Dashboard(c echo.Context) error {
	a := web.Actor(c)
	d, err := h.Admin.Dashboard(c.Request().Context(), a)
	if err != nil {
		return err
	}
	v := adminview.DashboardView{Platform: a.Platform(), Theatres: make([]adminview.DashboardTheatre, len(d.Theatres))}
	for i, t := range d.Theatres {
		row := adminview.DashboardTheatre{ID: t.ID, Name: t.Name, City: t.CityName, Today: t.Today, Upcoming: t.Upcoming}
		if t.Next != nil {
			at := t.Next.In(theatreZone(t.TimeZone))
			row.Next, row.NextISO = format.When(*t.Next, t.TimeZone), at.Format(time.RFC3339)
			if t.NextID != nil {
				row.NextHref = adminpage.ShowPath(*t.NextID)
			}
		}
		v.Theatres[i] = row
	}
	if d.Ledger != nil {
		at := d.Ledger.At.UTC()
		v.Ledger = &adminview.LedgerView{At: format.When(at, "UTC"), AtISO: at.Format(time.RFC3339)}
		for _, p := range d.Ledger.Violations {
			v.Ledger.Violations = append(v.Ledger.Violations, adminview.LedgerViolation{Invariant: p.Invariant, Detail: p.Detail})
		}
	}
	return web.Render(c, http.StatusOK, adminview.DashboardPage(adminpage.Meta(h.Server, c, "Admin"), adminpage.Nav(c, adminview.SectionDashboard), v))
}

// theatreZone is the location of a theatre's zone (UTC if it cannot be loaded:
// the use case only stores zones that load).
func theatreZone(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	return time.UTC
}
