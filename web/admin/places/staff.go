package places

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// A theatre's staff, for its managers and platform admins: GET
// /admin/theatres/:theatre_id/staff lists them, POST there grants a role
// by e-mail (or changes it), POST .../staff/:user_id/revoke ends it.

// staffDone are what a change that worked says (?done=).
var staffDone = map[string]string{
	"granted": "Role granted. It applies from their next page.",
	"revoked": "Access revoked.",
}

// StaffPage lists the theatre's staff.
func (h *Handlers) StaffPage(c echo.Context) error {
	return h.renderStaff(c, http.StatusOK, adminview.StaffView{Status: staffDone[c.QueryParam("done")]})
}

// StaffSubmit grants the role sent to the account of the e-mail sent.
func (h *Handlers) StaffSubmit(c echo.Context) error {
	id, err := adminpage.PathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	v := adminview.StaffView{Email: strings.TrimSpace(c.FormValue("email")), Role: c.FormValue("role")}
	m, err := h.Admin.GrantStaff(c.Request().Context(), web.Actor(c), id, v.Email, auth.StaffRole(v.Role))
	if err == nil {
		h.UserChanged(m.ID) // the header links the admin pages
		return web.SeeOther(c, fmt.Sprintf("/admin/theatres/%d/staff?done=granted", id))
	}
	if errors.Is(err, auth.ErrUnknownAccount) {
		v.EmailError = "No account has this e-mail. Ask the person to sign up first, then grant them a role."
	} else {
		for _, fe := range catalog.FieldErrors(err) {
			switch fe.Field {
			case "email":
				v.EmailError = "Enter the e-mail address of their account."
			case "role":
				v.RoleError = "Choose manager, box office or usher."
			}
		}
		if v.EmailError == "" && v.RoleError == "" {
			return problem.Lookup("theatre", err)
		}
	}
	return h.renderStaff(c, http.StatusUnprocessableEntity, v)
}

// StaffRevokeSubmit ends an account's role at the theatre.
func (h *Handlers) StaffRevokeSubmit(c echo.Context) error {
	id, err := adminpage.PathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	if err := h.Admin.RevokeStaff(c.Request().Context(), web.Actor(c), id, c.Param("user_id")); err != nil {
		return problem.Lookup("theatre or account", err)
	}
	h.UserChanged(c.Param("user_id"))
	return web.SeeOther(c, fmt.Sprintf("/admin/theatres/%d/staff?done=revoked", id))
}

func (h *Handlers) renderStaff(c echo.Context, status int, v adminview.StaffView) error {
	d, err := h.placeTheatre(c)
	if err != nil {
		return err
	}
	staff, err := h.Admin.Staff(c.Request().Context(), web.Actor(c), d.ID)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	me := web.Actor(c).UserID
	v.CSRF, v.TheatreID, v.TheatreName = web.CSRFToken(c), d.ID, d.Name
	for _, m := range staff {
		v.Staff = append(v.Staff, adminview.StaffRow{UserID: m.ID, Name: m.Name, Email: m.Email, Role: string(m.StaffRole), Me: m.ID == me})
	}
	return web.Render(c, status, adminview.StaffPage(adminpage.Meta(h.Server, c, "Staff of "+d.Name),
		adminpage.Nav(c, adminview.SectionTheatres), v))
}
