package schedule

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// A show's page: its live occupancy, blocking and unblocking seats, and
// cancelling it. Each step posts a form and comes back to the page (303)
// with what it did in the address (?blocked=A1,A2, ?cancelled=1&holds=..);
// a refused step renders the page again, 422 or 409, saying why.

// ShowPage is a show's live occupancy: GET /admin/shows/{id}, or with
// ?part=counts (htmx's poll) the figures alone.
func (h *Handlers) ShowPage(c echo.Context) error {
	showID, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	if c.QueryParam("part") == "counts" {
		counts, err := h.occupancyCounts(c, showID)
		if err != nil {
			return problem.Lookup("show", err)
		}
		c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		return web.Render(c, http.StatusOK, adminview.OccupancyCountsPanel(counts))
	}
	return h.renderShow(c, http.StatusOK, showID, showNoticeFromQuery(c.QueryParams()), "", "", nil, nil)
}

// AdmittedPart is the show's admitted figure, which its page polls: GET
// /admin/shows/{id}/admitted?seen=<what the page shows>. A figure the page
// already shows is answered 204, nothing to swap, so a screen reader hears
// the figure only when it changes; once the show can let no one else in
// (ended or cancelled) the answer is 286, htmx's "stop polling", with
// nothing swapped either.
func (h *Handlers) AdmittedPart(c echo.Context) error {
	showID, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	at, err := h.Admin.Attendance(c.Request().Context(), web.Actor(c), showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	v := admittedView(showID, at)
	if c.QueryParam("seen") == v.Seen() {
		if v.Poll {
			return c.NoContent(http.StatusNoContent)
		}
		c.Response().Header().Set("HX-Reswap", "none")
		return c.NoContent(htmxStopPolling)
	}
	return web.Render(c, http.StatusOK, adminview.AdmittedCount(v))
}

// htmxStopPolling is the status that tells htmx to stop an element's
// polling.
const htmxStopPolling = 286

func admittedView(showID int64, at booking.Attendance) adminview.AdmittedView {
	return adminview.AdmittedView{ShowID: showID, Admitted: at.Admitted, Sold: at.Sold, Poll: at.Open}
}

// showNoticeFromQuery says what the step that came back here did.
func showNoticeFromQuery(q url.Values) *adminview.ShowNotice {
	switch {
	case q.Get("cancelled") == "1":
		return &adminview.ShowNotice{Kind: "success", Title: "The show is cancelled",
			Text: format.Plural(queryCount(q.Get("holds")), "hold") + " released, " +
				format.Plural(queryCount(q.Get("bookings")), "booking") + " refunded in full."}
	case q.Get("rescheduled") == "1":
		told := queryCount(q.Get("told"))
		text := format.Plural(queryCount(q.Get("bookings")), "booking") + " moved with it"
		if told > 0 {
			text += "; " + format.Plural(told, "moviegoer") + " e-mailed the new time"
		}
		return &adminview.ShowNotice{Kind: "success", Title: "The show is moved to its new time", Text: text + "."}
	case q.Has("blocked"):
		seats := parseSeatIDs(q.Get("blocked"))
		if len(seats) == 0 {
			return &adminview.ShowNotice{Kind: "info", Title: "Those seats were already blocked"}
		}
		return &adminview.ShowNotice{Kind: "success", Title: format.Plural(len(seats), "seat") + " blocked: " + strings.Join(seats, ", "),
			Text: "They are off sale until you unblock them."}
	case q.Has("unblocked"):
		seats := parseSeatIDs(q.Get("unblocked"))
		if len(seats) == 0 {
			return &adminview.ShowNotice{Kind: "info", Title: "None of those seats was blocked", Text: "Nothing changed."}
		}
		return &adminview.ShowNotice{Kind: "success", Title: format.Plural(len(seats), "seat") + " unblocked: " + strings.Join(seats, ", "),
			Text: "They are on sale again."}
	}
	return nil
}

func queryCount(s string) int {
	n, _ := strconv.Atoi(s)
	return max(n, 0)
}

// seatIDs reads seat ids typed or posted: separated by commas or spaces,
// upper-cased, each once, in the order given.
func parseSeatIDs(raw ...string) []string {
	var out []string
	for _, r := range raw {
		for _, f := range strings.FieldsFunc(r, func(c rune) bool { return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' }) {
			if id := strings.ToUpper(f); !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

func (h *Handlers) occupancyCounts(c echo.Context, showID int64) (adminview.OccupancyCounts, error) {
	ctx := c.Request().Context()
	o, err := h.Admin.ShowOccupancy(ctx, web.Actor(c), showID)
	if err != nil {
		return adminview.OccupancyCounts{}, err
	}
	now, err := h.Store.Now(ctx)
	if err != nil {
		return adminview.OccupancyCounts{}, err
	}
	return occupancyCounts(o, o.Status != "CANCELLED" && now.Before(o.StartsAt), h.Config.Live != nil), nil
}

func occupancyCounts(o booking.Occupancy, poll, live bool) adminview.OccupancyCounts {
	return adminview.OccupancyCounts{
		ShowID: o.ShowID, Poll: poll, Live: live, Cancelled: o.Status == "CANCELLED",
		Available: o.Seats.Available, Held: o.Seats.Held, Booked: o.Seats.Booked, Blocked: o.Seats.Blocked,
		Revenue:     format.Total(o.Revenue, o.Currency),
		RefundsOwed: format.Total(o.RefundsOwed, o.Currency),
		RefundsPaid: format.Total(o.RefundsPaid, o.Currency),
	}
}

// renderShow renders the show's page with status, notice, and the seats
// typed with their error when a change was refused (or the waiting room's
// form, or the new start, as typed when refused).
func (h *Handlers) renderShow(c echo.Context, status int, showID int64, notice *adminview.ShowNotice, seats, seatsError string,
	room *adminview.RoomView, move *adminview.RescheduleView) error {
	ctx := c.Request().Context()
	a := web.Actor(c)
	sh, err := h.Admin.AdminShow(ctx, a, showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	o, err := h.Admin.ShowOccupancy(ctx, a, showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	cancelled := o.Status == "CANCELLED"
	// A cancelled show has no seat map: nothing of it is for sale.
	var seatMap []booking.Seat
	if !cancelled {
		if seatMap, err = h.Store.SeatMap(ctx, showID, a.UserID); err != nil {
			return problem.Lookup("show", err)
		}
	}
	now, err := h.Store.Now(ctx)
	if err != nil {
		return err
	}
	started := !now.Before(sh.StartsAt)
	zone := format.Zone(sh.TimeZone)
	v := adminview.OccupancyView{
		ShowID: showID, Movie: sh.MovieTitle, Theatre: sh.TheatreName,
		TheatreHref: "/admin/theatres/" + strconv.FormatInt(sh.TheatreID, 10), Screen: sh.ScreenName,
		When: format.Date(sh.StartsAt, sh.TimeZone) + ", " + format.Clock(sh.StartsAt, sh.TimeZone),
		Zone: format.ZoneAbbrev(sh.StartsAt, sh.TimeZone), StartsAt: sh.StartsAt.In(zone).Format(time.RFC3339),
		Cancelled: cancelled, Started: started,
		Counts: occupancyCounts(o, !cancelled && !started, h.Config.Live != nil),
		Map:    adminSeatMap(showID, sh.Currency, seatMap),
		Live:   h.Config.Live != nil && !cancelled,
		CSRF:   web.CSRFToken(c), Notice: notice, Seats: seats, SeatsError: seatsError,
	}
	if !cancelled {
		at, err := h.Admin.Attendance(ctx, a, showID)
		if err != nil {
			return problem.Lookup("show", err)
		}
		v.Admitted = admittedView(showID, at)
	}
	v.Manage = a.Can(admin.Manage, sh.TheatreID)
	if a.Can(admin.SeeAttendees, sh.TheatreID) {
		v.AttendeesHref = adminpage.ShowPath(showID) + "/attendees"
	}
	if a.Can(admin.CheckIn, sh.TheatreID) {
		v.DoorHref = adminpage.ShowPath(showID) + "/door"
	}
	if v.Manage {
		if v.Room, err = h.roomView(c, showID, sh.TimeZone, room); err != nil {
			return err
		}
		if !cancelled && !started {
			if v.Reschedule, err = h.rescheduleView(c, sh, move); err != nil {
				return err
			}
		}
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return web.Render(c, status, adminview.OccupancyPage(adminpage.Meta(h.Server, c, sh.MovieTitle+" · show"), adminpage.Nav(c, adminview.SectionTheatres), v))
}

// adminSeatMap is the show's seat map as moviegoers see it (components.SeatMapOf),
// for the admin: nothing is picked by the map's own script; admin-show.js
// picks available and blocked seats.
func adminSeatMap(showID int64, currency string, seats []booking.Seat) components.SeatMapView {
	v := components.SeatMapOf(seats, currency, nil, nil)
	v.ShowID = showID
	return v
}

// BlockSubmit takes the seats posted off sale: POST /admin/shows/{id}/blocks.
func (h *Handlers) BlockSubmit(c echo.Context) error { return h.seatChange(c, true) }

// UnblockSubmit puts the seats posted back on sale: POST
// /admin/shows/{id}/unblock.
func (h *Handlers) UnblockSubmit(c echo.Context) error { return h.seatChange(c, false) }

func (h *Handlers) seatChange(c echo.Context, block bool) error {
	showID, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	form, err := c.FormParams()
	if err != nil {
		return problem.New(http.StatusBadRequest, "bad_form", "The form could not be read.")
	}
	typed := strings.TrimSpace(form.Get("seats"))
	seats := parseSeatIDs(append([]string{typed}, form["seat"]...)...)
	ctx := c.Request().Context()
	var changed []string
	if block {
		changed, err = h.Admin.BlockSeats(ctx, web.Actor(c), showID, seats)
	} else {
		changed, err = h.Admin.UnblockSeats(ctx, web.Actor(c), showID, seats)
	}
	if err != nil {
		return h.seatChangeRefused(c, showID, err, block, strings.Join(seats, ", "))
	}
	key := "unblocked"
	if block {
		key = "blocked"
	}
	return web.SeeOther(c, adminpage.ShowPath(showID)+"?"+key+"="+url.QueryEscape(strings.Join(changed, ",")))
}

// seatChangeRefused renders the page again saying why the seats were not
// changed; an error that is not the request's (not found, forbidden, ours)
// is returned as it is.
func (h *Handlers) seatChangeRefused(c echo.Context, showID int64, err error, block bool, typed string) error {
	var taken *booking.SeatsUnavailableError
	var unknown *booking.UnknownSeatsError
	what := "unblocked"
	if block {
		what = "blocked"
	}
	var msg string
	status := http.StatusUnprocessableEntity
	switch {
	case errors.As(err, &taken):
		status = http.StatusConflict
		msg = "Held or sold, so they cannot be blocked: " + strings.Join(taken.Seats, ", ") + ". Nothing was changed."
	case errors.As(err, &unknown):
		msg = "This show has no seats " + strings.Join(unknown.Seats, ", ") + "."
	case errors.Is(err, catalog.ErrShowCancelled):
		status = http.StatusConflict
		msg = "The show is cancelled: its seats can no longer change."
	default:
		ae, internal := problem.For(err)
		if internal || ae.Status != http.StatusUnprocessableEntity {
			return problem.Lookup("show", err)
		}
		msg = ae.Message
	}
	notice := &adminview.ShowNotice{Kind: "error", Title: "No seats were " + what, Text: msg}
	return h.renderShow(c, status, showID, notice, typed, msg, nil, nil)
}

// CancelShowSubmit cancels the show: POST /admin/shows/{id}/cancel.
func (h *Handlers) CancelShowSubmit(c echo.Context) error {
	showID, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	res, err := h.Admin.CancelShow(c.Request().Context(), web.Actor(c), showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return web.SeeOther(c, adminpage.ShowPath(showID)+"?cancelled=1&holds="+strconv.Itoa(res.HoldsReleased)+
		"&bookings="+strconv.Itoa(res.BookingsRefunded))
}
