package sales

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
)

// auditPageLimit is how many entries the audit page shows.
const auditPageLimit = 200

// AuditPage is the audit log, newest first, for platform admins: GET
// /admin/audit?theatre_id=&actor=&from=&to=.
func (h *Handlers) AuditPage(c echo.Context) error {
	ctx := c.Request().Context()
	a := web.Actor(c)
	if !a.Platform() {
		return admin.ErrPlatformOnly
	}
	q := c.QueryParams()
	v := adminview.AuditView{Email: strings.TrimSpace(q.Get("actor")), From: q.Get("from"), To: q.Get("to"),
		Errors: map[string]string{}, Limit: auditPageLimit}
	f := audit.Filter{ActorEmail: v.Email, Limit: auditPageLimit}
	if raw := q.Get("theatre_id"); raw != "" {
		id, err := web.ParseID(raw)
		if err != nil {
			v.Errors["theatre_id"] = "Pick a theatre from the list."
		}
		f.TheatreID = id
	}
	if len(v.Email) > 254 || strings.ContainsFunc(v.Email, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		v.Errors["actor"] = "Type an admin's email address."
	}
	for _, d := range []struct {
		field string
		into  *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if raw := q.Get(d.field); raw != "" {
			t, err := time.Parse(time.DateOnly, raw)
			if err != nil {
				v.Errors[d.field] = "Type a date as YYYY-MM-DD."
				continue
			}
			*d.into = t
		}
	}
	if v.Errors["from"] == "" && v.Errors["to"] == "" && !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		v.Errors["to"] = "The last day comes before the first."
	}
	theatres, err := h.Admin.Theatres(ctx, a)
	if err != nil {
		return err
	}
	names, zones := map[int64]string{}, map[int64]string{}
	for _, t := range theatres {
		names[t.ID], zones[t.ID] = t.Name, t.TimeZone
		v.Theatres = append(v.Theatres, adminview.TheatreOption{ID: t.ID, Name: t.Name, Selected: t.ID == f.TheatreID})
	}
	m, nv := adminpage.Meta(h.Server, c, "Audit log"), adminpage.Nav(c, adminview.SectionAudit)
	if len(v.Errors) > 0 {
		return web.Render(c, http.StatusUnprocessableEntity, adminview.AuditPage(m, nv, v))
	}
	records, err := h.Admin.AuditLog(ctx, a, f)
	if err != nil {
		return err
	}
	for _, r := range records {
		// A theatre's entry in its zone, as its pages say times; the
		// others (a city, a movie) in UTC.
		zone := cmp.Or(zones[r.TheatreID], "UTC")
		row := adminview.AuditRow{
			When: format.When(r.At, zone), WhenISO: r.At.UTC().Format(time.RFC3339),
			Who: r.ActorEmail, Action: format.AuditAction(r.Action), ActionCode: r.Action, Object: r.Object, Before: compactJSON(r.Before), After: compactJSON(r.After),
		}
		if r.TheatreID != 0 {
			row.Theatre = names[r.TheatreID]
			if row.Theatre == "" {
				row.Theatre = "theatre " + strconv.FormatInt(r.TheatreID, 10)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return web.Render(c, http.StatusOK, adminview.AuditPage(m, nv, v))
}

// compactJSON is an entry's before or after as one line of JSON ("" for
// none).
func compactJSON(v any) string {
	raw, ok := v.(json.RawMessage)
	if !ok || raw == nil || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
