package adminapi

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

// waitingRoomJSON is a show's waiting room: its settings, and (in a GET)
// its queue now.
type waitingRoomJSON struct {
	ShowID         int64      `json:"show_id"`
	Enabled        bool       `json:"enabled"`
	AdmitPerMinute int        `json:"admit_per_minute"`
	MaxActive      int        `json:"max_active"`
	OpensAt        *time.Time `json:"opens_at"`
	Open           bool       `json:"open"`
	Waiting        int        `json:"waiting"`
	Active         int        `json:"active"`
	Admitted       int        `json:"admitted"`
	// PerMinute is the admission rate achieved lately (the set one before
	// there is one to measure): what waiters' estimates are made from.
	PerMinute float64 `json:"per_minute"`
}

func waitingRoomView(r waitroom.Room) waitingRoomJSON {
	v := waitingRoomJSON{
		ShowID: r.ShowID, Enabled: r.Enabled, AdmitPerMinute: r.AdmitPerMinute, MaxActive: r.MaxActive,
		Open: r.Open, Waiting: r.Waiting, Active: r.Active, Admitted: r.AdmittedTotal, PerMinute: r.PerMinute,
	}
	if !r.OpensAt.IsZero() {
		at := r.OpensAt.UTC()
		v.OpensAt = &at
	}
	return v
}

// WaitingRoom answers a show's waiting room.
func (h *Handlers) WaitingRoom(c echo.Context) error {
	showID, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	r, err := h.Admin.WaitingRoom(c.Request().Context(), actor(c), showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, waitingRoomView(r))
}

// SetWaitingRoom switches a show's waiting room on or off:
// {"enabled","admit_per_minute","max_active","opens_at"} -> the room as
// stored.
func (h *Handlers) SetWaitingRoom(c echo.Context) error {
	showID, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	var body struct {
		Enabled        *bool      `json:"enabled"`
		AdmitPerMinute int        `json:"admit_per_minute"`
		MaxActive      int        `json:"max_active"`
		OpensAt        *time.Time `json:"opens_at"`
	}
	if err := web.DecodeJSON(c, &body, true); err != nil {
		return err
	}
	if body.Enabled == nil {
		return problem.New(http.StatusUnprocessableEntity, "enabled_required",
			`Say whether the waiting room is on: "enabled": true or false.`)
	}
	set := waitroom.Settings{Enabled: *body.Enabled, AdmitPerMinute: body.AdmitPerMinute, MaxActive: body.MaxActive}
	if body.OpensAt != nil {
		set.OpensAt = *body.OpensAt
	}
	r, err := h.Admin.SetWaitingRoom(c.Request().Context(), actor(c), showID, set, h.Config.AdmissionTTL)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, waitingRoomView(r))
}
