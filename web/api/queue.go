package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"
)

// queueJSON is a place in a show's waiting room.
type queueJSON struct {
	Ticket *string `json:"ticket"`
	State  string  `json:"state"`
	// Position (1: next in) and EtaS are null before the pre-queue's
	// shuffle, and once the ticket waits no more.
	Position      *int64     `json:"position"`
	EtaS          *int64     `json:"eta_s"`
	AdmittedUntil *time.Time `json:"admitted_until"`
}

func queueView(st boxoffice.QueueStatus) queueJSON {
	v := queueJSON{State: string(st.State)}
	if st.Ticket != "" {
		v.Ticket = &st.Ticket
	}
	switch {
	case st.State == waitroom.Waiting && st.Known:
		eta := int64(st.ETA / time.Second)
		v.Position, v.EtaS = &st.Position, &eta
	case st.State == waitroom.Admitted:
		zero := int64(0)
		v.EtaS = &zero
		if !st.AdmittedUntil.IsZero() {
			until := st.AdmittedUntil.UTC()
			v.AdmittedUntil = &until
		}
	}
	return v
}

// JoinQueue puts the caller in a show's waiting room, or keeps them where
// they are: the ticket they send (cookie or Queue-Ticket) keeps its place
// while it is good. With the room off the answer is ADMITTED.
func (s *Handlers) JoinQueue(c echo.Context) error {
	showID, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return problem.NotFound("show")
	}
	if err := web.DecodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	st, err := s.Rooms.Join(c.Request().Context(), showID, web.QueueTicket(c, showID), session.UserID(c))
	if err != nil {
		return problem.Lookup("show", err)
	}
	s.SetQueueTicket(c, showID, st.Ticket)
	return c.JSON(http.StatusCreated, queueView(st))
}

// QueueStatus is the caller's place in a show's waiting room now; asking
// keeps a waiting ticket's place.
func (s *Handlers) QueueStatus(c echo.Context) error {
	showID, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return problem.NotFound("show")
	}
	st, err := s.Rooms.Status(c.Request().Context(), showID, web.QueueTicket(c, showID))
	if err != nil {
		return problem.Lookup("queue ticket for this show", err)
	}
	return c.JSON(http.StatusOK, queueView(st))
}
