package adminapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Cities, theatres, who administers them, and the audit log.

type cityJSON struct {
	CityID int64  `json:"city_id"`
	Name   string `json:"name"`
	Slug   string `json:"slug"`
}

// CreateCity adds a city: POST /api/v1/admin/cities {"name","slug"}.
func (h *Handlers) CreateCity(c echo.Context) error {
	var req struct {
		Name string `json:"name"`
		Slug string `json:"slug"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	city, err := h.Admin.CreateCity(c.Request().Context(), actor(c), req.Name, req.Slug)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, cityJSON{CityID: city.ID, Name: city.Name, Slug: city.Slug})
}

type theatreJSON struct {
	TheatreID int64 `json:"theatre_id"`
	admin.TheatreRecord
}

func theatreView(t catalog.AdminTheatre) theatreJSON {
	return theatreJSON{TheatreID: t.ID, TheatreRecord: admin.Record(t)}
}

type screenJSON struct {
	ScreenID int64  `json:"screen_id"`
	Name     string `json:"name"`
	Seats    int    `json:"seats"`
	Retired  bool   `json:"retired"`
}

type adminJSON struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
	Name   string `json:"name"`
}

type theatreDetailJSON struct {
	theatreJSON
	Screens []screenJSON `json:"screens"`
	Admins  []adminJSON  `json:"admins"`
}

// theatreRequest is the body of a theatre's creation or change: a field
// left out is nil.
type theatreRequest struct {
	City                  *string             `json:"city"`
	Name                  *string             `json:"name"`
	Address               *string             `json:"address"`
	TimeZone              *string             `json:"timezone"`
	Currency              *string             `json:"currency"`
	CleaningBufferMinutes *int                `json:"cleaning_buffer_minutes"`
	RefundTiers           *[]admin.TierRecord `json:"refund_tiers"`
	catalog.TheatreSettingsPatch
}

func (r theatreRequest) input() admin.TheatreInput {
	return admin.TheatreInput{City: r.City, Name: r.Name, Address: r.Address, TimeZone: r.TimeZone, Currency: r.Currency,
		CleaningBufferMinutes: r.CleaningBufferMinutes, RefundTiers: r.RefundTiers, Settings: r.TheatreSettingsPatch}
}

// CreateTheatre adds a theatre to a city: POST /api/v1/admin/theatres.
func (h *Handlers) CreateTheatre(c echo.Context) error {
	var req theatreRequest
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	t, err := h.Admin.CreateTheatre(c.Request().Context(), actor(c), req.input())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, theatreView(t))
}

// Theatres lists the caller's theatres: GET /api/v1/admin/theatres.
func (h *Handlers) Theatres(c echo.Context) error {
	theatres, err := h.Admin.Theatres(c.Request().Context(), actor(c))
	if err != nil {
		return err
	}
	out := make([]theatreJSON, len(theatres))
	for i, t := range theatres {
		out[i] = theatreView(t)
	}
	return c.JSON(http.StatusOK, map[string]any{"theatres": out})
}

// Theatre is one theatre with its screens and admins:
// GET /api/v1/admin/theatres/{theatre_id}.
func (h *Handlers) Theatre(c echo.Context) error {
	id, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	d, err := h.Admin.Theatre(c.Request().Context(), actor(c), id)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	out := theatreDetailJSON{theatreJSON: theatreView(d.AdminTheatre),
		Screens: make([]screenJSON, len(d.Screens)), Admins: []adminJSON{}}
	for i, sc := range d.Screens {
		out.Screens[i] = screenJSON{ScreenID: sc.ID, Name: sc.Name, Seats: sc.Seats, Retired: sc.Retired}
	}
	for _, m := range d.Staff {
		if m.StaffRole == auth.StaffManager { // the theatre's admins, as before staff roles
			out.Admins = append(out.Admins, adminJSON{UserID: m.ID, Email: m.Email, Name: m.Name})
		}
	}
	return c.JSON(http.StatusOK, out)
}

// UpdateTheatre changes the fields sent: PATCH /api/v1/admin/theatres/{theatre_id}.
func (h *Handlers) UpdateTheatre(c echo.Context) error {
	id, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	var req theatreRequest
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	t, err := h.Admin.UpdateTheatre(c.Request().Context(), actor(c), id, req.input())
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	return c.JSON(http.StatusOK, theatreView(t))
}

// GrantAdmin makes an account an admin of a theatre:
// POST /api/v1/admin/theatres/{theatre_id}/admins {"email"}.
func (h *Handlers) GrantAdmin(c echo.Context) error {
	id, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	var req struct {
		Email string `json:"email"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	u, err := h.Admin.GrantTheatre(c.Request().Context(), actor(c), id, req.Email)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	h.UserChanged(u.ID) // the header links the admin pages
	return c.JSON(http.StatusCreated, map[string]any{"theatre_id": id, "user_id": u.ID, "email": u.Email})
}

// RevokeAdmin ends an account's grant of a theatre:
// DELETE /api/v1/admin/theatres/{theatre_id}/admins/{user_id}.
func (h *Handlers) RevokeAdmin(c echo.Context) error {
	id, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	if err := h.Admin.RevokeTheatre(c.Request().Context(), actor(c), id, c.Param("user_id")); err != nil {
		return problem.Lookup("theatre or account", err)
	}
	h.UserChanged(c.Param("user_id"))
	return c.NoContent(http.StatusNoContent)
}

type auditJSON struct {
	ID        int64           `json:"id"`
	At        time.Time       `json:"at"`
	Actor     auditActorJSON  `json:"actor"`
	TheatreID *int64          `json:"theatre_id"`
	Action    string          `json:"action"`
	Object    string          `json:"object"`
	Before    json.RawMessage `json:"before"`
	After     json.RawMessage `json:"after"`
}

type auditActorJSON struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
}

// AuditLog reads the audit log, newest first: GET /api/v1/admin/audit
// ?theatre_id=&actor=<email>&from=YYYY-MM-DD&to=YYYY-MM-DD&limit=.
func (h *Handlers) AuditLog(c echo.Context) error {
	f, err := auditFilter(c)
	if err != nil {
		return err
	}
	records, err := h.Admin.AuditLog(c.Request().Context(), actor(c), f)
	if err != nil {
		return err
	}
	out := make([]auditJSON, len(records))
	for i, r := range records {
		out[i] = auditJSON{ID: r.ID, At: r.At.UTC(), Actor: auditActorJSON{UserID: r.ActorID, Email: r.ActorEmail},
			Action: r.Action, Object: r.Object, Before: rawJSON(r.Before), After: rawJSON(r.After)}
		if r.TheatreID != 0 {
			out[i].TheatreID = &r.TheatreID
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": out})
}

// rawJSON is an entry's before or after as the store read it; none is null.
func rawJSON(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok && raw != nil {
		return raw
	}
	return json.RawMessage("null")
}

// auditFilter reads the audit log's query; anything it cannot read is a 400.
func auditFilter(c echo.Context) (audit.Filter, error) {
	var f audit.Filter
	q := c.QueryParams()
	if v := q.Get("theatre_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return f, problem.BadQuery("theatre_id", "theatre_id must be a theatre's id, a positive number.")
		}
		f.TheatreID = id
	}
	if v := q.Get("actor"); v != "" {
		if len(v) > 254 || strings.IndexFunc(v, unicode.IsControl) >= 0 {
			return f, problem.BadQuery("actor", "actor must be an admin's email address.")
		}
		f.ActorEmail = strings.TrimSpace(v)
	}
	day := func(param string) (time.Time, error) {
		v := q.Get(param)
		if v == "" {
			return time.Time{}, nil
		}
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return d, problem.BadQuery(param, param+" must be a date, YYYY-MM-DD.")
		}
		return d, nil
	}
	var err error
	if f.From, err = day("from"); err != nil {
		return f, err
	}
	if f.To, err = day("to"); err != nil {
		return f, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		return f, problem.BadQuery("to", "to must not be before from.")
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > admin.MaxAuditEntries {
			return f, problem.BadQuery("limit", "limit must be a number from 1 to 500.")
		}
		f.Limit = n
	}
	return f, nil
}
