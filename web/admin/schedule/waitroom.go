package schedule

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// datetimeLocal is how an <input type="datetime-local"> writes a time.
const datetimeLocal = "2006-01-02T15:04"

// roomView is showID's waiting room for its admin page; typed, when set,
// is a refused form to show again as it was typed.
func (h *Handlers) roomView(c echo.Context, showID int64, tz string, typed *adminview.RoomView) (adminview.RoomView, error) {
	r, err := h.Admin.WaitingRoom(c.Request().Context(), web.Actor(c), showID)
	if err != nil {
		return adminview.RoomView{}, problem.Lookup("show", err)
	}
	v := adminview.RoomView{
		Enabled: r.Enabled, Open: r.Open, Zone: format.ZoneAbbrev(time.Now(), tz),
		AdmitPerMinute: strconv.Itoa(r.AdmitPerMinute), MaxActive: strconv.Itoa(r.MaxActive),
		Waiting: format.Count(int64(r.Waiting)), Active: format.Count(int64(r.Active)),
		Admitted: format.Count(int64(r.AdmittedTotal)), PerMinute: strconv.FormatFloat(r.PerMinute, 'f', 0, 64),
	}
	if r.AdmitPerMinute == 0 {
		v.AdmitPerMinute, v.MaxActive = "600", "300"
	}
	if !r.OpensAt.IsZero() {
		v.OpensAt = r.OpensAt.In(format.Zone(tz)).Format(datetimeLocal)
	}
	if c.QueryParam("room") == "saved" {
		v.Saved = "Waiting room saved."
	}
	if typed != nil {
		typed.Open, typed.Waiting, typed.Active, typed.Admitted, typed.PerMinute, typed.Zone =
			v.Open, v.Waiting, v.Active, v.Admitted, v.PerMinute, v.Zone
		return *typed, nil
	}
	return v, nil
}

// RoomSubmit switches a show's waiting room on or off: POST
// /admin/shows/{id}/waiting-room.
func (h *Handlers) RoomSubmit(c echo.Context) error {
	showID, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	ctx := c.Request().Context()
	sh, err := h.Admin.AdminShow(ctx, web.Actor(c), showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	typed := adminview.RoomView{
		Enabled:        c.FormValue("enabled") == "on",
		AdmitPerMinute: strings.TrimSpace(c.FormValue("admit_per_minute")),
		MaxActive:      strings.TrimSpace(c.FormValue("max_active")),
		OpensAt:        strings.TrimSpace(c.FormValue("opens_at")),
		Errors:         map[string]string{},
	}
	set := waitroom.Settings{Enabled: typed.Enabled}
	number := func(field, raw, what string) int {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > waitroom.MaxRate {
			typed.Errors[field] = "Enter " + what + " from 1 to 100000."
		}
		return n
	}
	set.AdmitPerMinute = number("admit_per_minute", typed.AdmitPerMinute, "how many people to let in a minute,")
	set.MaxActive = number("max_active", typed.MaxActive, "how many may choose seats at once,")
	if typed.OpensAt != "" {
		at, err := time.ParseInLocation(datetimeLocal, typed.OpensAt, format.Zone(sh.TimeZone))
		switch {
		case err != nil:
			typed.Errors["opens_at"] = "Enter the date and time sales open, or leave it empty."
		case !at.Before(sh.StartsAt):
			typed.Errors["opens_at"] = "Sales must open before the show starts."
		default:
			set.OpensAt = at
		}
	}
	if len(typed.Errors) > 0 {
		typed.Message = "The waiting room was not saved."
		return h.renderShow(c, http.StatusUnprocessableEntity, showID, nil, "", "", &typed, nil)
	}
	if _, err := h.Admin.SetWaitingRoom(ctx, web.Actor(c), showID, set, h.Config.AdmissionTTL); err != nil {
		if errors.Is(err, waitroom.ErrInvalidSettings) {
			typed.Message = "The waiting room was not saved."
			return h.renderShow(c, http.StatusUnprocessableEntity, showID, nil, "", "", &typed, nil)
		}
		return problem.Lookup("show", err)
	}
	return web.SeeOther(c, adminpage.ShowPath(showID)+"?room=saved#room-title")
}
