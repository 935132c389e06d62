package adminapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

type staffJSON struct {
	TheatreID int64          `json:"theatre_id"`
	UserID    string         `json:"user_id"`
	Email     string         `json:"email"`
	Name      string         `json:"name"`
	Role      auth.StaffRole `json:"role"`
}

func staffView(theatreID int64, m catalog.StaffMember) staffJSON {
	return staffJSON{TheatreID: theatreID, UserID: m.ID, Email: m.Email, Name: m.Name, Role: m.StaffRole}
}

// Staff lists a theatre's staff: GET /api/v1/admin/theatres/{theatre_id}/staff.
func (h *Handlers) Staff(c echo.Context) error {
	id, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	list, err := h.Admin.Staff(c.Request().Context(), actor(c), id)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	out := make([]staffJSON, len(list))
	for i, m := range list {
		out[i] = staffView(id, m)
	}
	return c.JSON(http.StatusOK, map[string]any{"staff": out})
}

// GrantStaff gives an account a role at a theatre, or changes it:
// POST /api/v1/admin/theatres/{theatre_id}/staff {"email","role"}.
func (h *Handlers) GrantStaff(c echo.Context) error {
	id, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	var req struct {
		Email string         `json:"email"`
		Role  auth.StaffRole `json:"role"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	m, err := h.Admin.GrantStaff(c.Request().Context(), actor(c), id, req.Email, req.Role)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	h.UserChanged(m.ID) // the header links the admin pages
	return c.JSON(http.StatusCreated, staffView(id, m))
}

// RevokeStaff ends an account's role at a theatre:
// DELETE /api/v1/admin/theatres/{theatre_id}/staff/{user_id}.
func (h *Handlers) RevokeStaff(c echo.Context) error {
	id, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	if err := h.Admin.RevokeStaff(c.Request().Context(), actor(c), id, c.Param("user_id")); err != nil {
		return problem.Lookup("theatre or account", err)
	}
	h.UserChanged(c.Param("user_id"))
	return c.NoContent(http.StatusNoContent)
}
