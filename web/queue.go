package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// QueueTicketHeader carries a waiting-room ticket for a client without
// cookies.
const QueueTicketHeader = "Queue-Ticket"

// queueCookie names the cookie of a show's waiting-room ticket: one per
// show, so waiting for one show never costs a place in another's queue.
func queueCookie(showID int64) string { return "queue_" + strconv.FormatInt(showID, 10) }

// QueueTicket is the caller's waiting-room ticket for showID: the header's,
// else the cookie's, else "".
func QueueTicket(c echo.Context, showID int64) string {
	if t := c.Request().Header.Get(QueueTicketHeader); t != "" {
		return t
	}
	if ck, err := c.Cookie(queueCookie(showID)); err == nil {
		return ck.Value
	}
	return ""
}

// SetQueueTicket keeps ticket in the caller's cookie for showID, for as
// long as a ticket is good.
func (s *Server) SetQueueTicket(c echo.Context, showID int64, ticket string) {
	if ticket == "" {
		return
	}
	c.SetCookie(&http.Cookie{
		Name: queueCookie(showID), Value: ticket, Path: "/",
		MaxAge: int(waitroom.TicketLife.Seconds()), HttpOnly: true, Secure: s.Secure(), SameSite: http.SameSiteLaxMode,
	})
}
