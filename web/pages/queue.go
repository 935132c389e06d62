package pages

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"
)

// queueRefresh is how often a queue page without script reloads itself.
const queueRefresh = 20

// QueuePage is a show's waiting room, /shows/{show_id}/queue: it puts the
// visitor in the queue (or keeps their place, by the ticket in their
// cookie), shows their place and wait, follows the room's front live, and
// moves on to the show page when they are let in. With the room off, or
// once admitted, it sends them there at once.
func (s *Handlers) QueuePage(c echo.Context) error {
	showID, err := parseShowParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	st, err := s.Rooms.Join(ctx, showID, web.QueueTicket(c, showID), session.UserID(c))
	if err != nil {
		return problem.Lookup("show", err)
	}
	s.SetQueueTicket(c, showID, st.Ticket)
	showPath := "/shows/" + strconv.FormatInt(showID, 10)
	if st.State == waitroom.Admitted {
		return web.SeeOther(c, showPath)
	}
	info, err := s.showInfo(ctx, showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	if info.show.Cancelled {
		return web.SeeOther(c, showPath) // which says so
	}
	sh := info.show
	v := components.QueueView{
		Heading:   s.showHeading(sh, info.movie, info.citySlug),
		ShowHref:  showPath,
		LiveURL:   queuePath(showID) + "/live",
		Number:    st.Number,
		Through:   st.Front.Through,
		PerMinute: st.Front.PerMinute,
		Known:     st.Known,
		Position:  format.Count(st.Position),
		Ahead:     format.Count(st.Position - 1),
		Wait:      Wait(st.ETA),
		Shopping:  hoursOrMinutes(s.Config.AdmissionTTL),
	}
	if room, err := s.Store.Room(ctx, showID); err == nil && !room.OpensAt.IsZero() && !st.Known {
		v.OpensAt = format.Clock(room.OpensAt, sh.TimeZone) + " " + format.ZoneAbbrev(room.OpensAt, sh.TimeZone)
		if !sameDay(room.OpensAt, time.Now(), sh.TimeZone) {
			v.OpensAt = format.Date(room.OpensAt, sh.TimeZone) + ", " + v.OpensAt
		}
	}
	m := s.Meta(c, "Queue: "+sh.MovieTitle)
	m.RefreshWithoutScript = queueRefresh
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return web.Render(c, http.StatusOK, components.QueuePage(m, v))
}

func sameDay(a, b time.Time, tz string) bool {
	z := format.Zone(tz)
	return a.In(z).Format(time.DateOnly) == b.In(z).Format(time.DateOnly)
}

// hoursOrMinutes says a span like "5 minutes".
func hoursOrMinutes(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		return format.Plural(int(d/time.Hour), "hour")
	}
	return format.Plural(int(d.Round(time.Minute)/time.Minute), "minute")
}

// Wait says an estimated wait as a person would: "less than a minute",
// "about 4 minutes", "about 1 hour 20 minutes". The page's script says it
// the same way as the front moves.
func Wait(d time.Duration) string {
	minutes := int((d + time.Minute - 1) / time.Minute)
	switch {
	case d < time.Minute:
		return "less than a minute"
	case minutes < 60:
		return "about " + format.Plural(minutes, "minute")
	case minutes%60 == 0:
		return "about " + format.Plural(minutes/60, "hour")
	}
	return fmt.Sprintf("about %s %s", format.Plural(minutes/60, "hour"), format.Plural(minutes%60, "minute"))
}

func queuePath(showID int64) string { return "/shows/" + strconv.FormatInt(showID, 10) + "/queue" }

// queued sends the caller to the show's waiting room, and says so, when
// the room is on and they have not been let in: the show page is for
// those admitted. until is when an admission the caller has lapses unused
// (zero with the room off).
func (s *Handlers) queued(c echo.Context) (queued bool, until time.Time, err error) {
	showID, err := parseShowParam(c)
	if err != nil {
		return false, until, err
	}
	ok, until, err := s.Rooms.MayShop(c.Request().Context(), showID, web.QueueTicket(c, showID), session.UserID(c))
	if err != nil || ok {
		return false, until, err
	}
	return true, until, web.SeeOther(c, queuePath(showID))
}
