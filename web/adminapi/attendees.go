package adminapi

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

type attendeeJSON struct {
	BookingID   string     `json:"booking_id"`
	Name        string     `json:"name"`
	Email       string     `json:"email"`
	Seats       []string   `json:"seats"`
	Channel     string     `json:"channel"`
	CheckedInAt *time.Time `json:"checked_in_at"`
}

// Attendees lists a show's attendees:
// GET /api/v1/admin/shows/{show_id}/attendees, JSON or (Accept: text/csv) CSV.
func (h *Handlers) Attendees(c echo.Context) error {
	id, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	l, err := h.Admin.Attendees(c.Request().Context(), actor(c), id)
	if err != nil {
		return problem.Lookup("show", err)
	}
	if wantsCSV(c) {
		return web.DownloadCSV(c, l.CSV)
	}
	out := make([]attendeeJSON, len(l.Attendees))
	for i, a := range l.Attendees {
		out[i] = attendeeJSON{BookingID: a.BookingID, Name: a.Name, Email: a.Email, Seats: problem.NonNil(a.Seats),
			Channel: string(a.Channel), CheckedInAt: a.CheckedInAt}
		if a.CheckedInAt != nil {
			t := a.CheckedInAt.UTC()
			out[i].CheckedInAt = &t
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"attendees": out})
}
