package schedule

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Moving a show to another time from its page: the new start by the
// theatre's wall clock, what the move does to the bookings said before it
// is sent, and a refusal said at the field.

// rescheduleView is the show's reschedule form; typed, when set, is a
// refused one to show again as it was typed.
func (h *Handlers) rescheduleView(c echo.Context, sh catalog.AdminShow, typed *adminview.RescheduleView) (adminview.RescheduleView, error) {
	move, err := h.Admin.PreviewMove(c.Request().Context(), web.Actor(c), sh.ID)
	if err != nil {
		return adminview.RescheduleView{}, problem.Lookup("show", err)
	}
	v := adminview.RescheduleView{
		StartsAt: sh.StartsAt.In(format.Zone(sh.TimeZone)).Format(datetimeLocal),
		Zone:     format.ZoneAbbrev(sh.StartsAt, sh.TimeZone),
		Length:   format.Duration(int(move.Length / time.Minute)),
		Effect:   moveEffect(move.ShowAudience),
		Button:   "Move the show",
	}
	if move.People > 0 {
		v.Button = "Move the show and e-mail " + format.Plural(move.People, "moviegoer")
	}
	if typed != nil {
		v.StartsAt, v.Error = typed.StartsAt, typed.Error
	}
	return v, nil
}

// moveEffect says what moving the show does to its bookings, before it is
// done.
func moveEffect(who booking.ShowAudience) string {
	if who.Bookings == 0 {
		return "Nobody has booked this show yet, so nobody needs to be told."
	}
	moves := "moves"
	if who.Bookings > 1 {
		moves = "move"
	}
	text := fmt.Sprintf("%s %s with the show, the same seats and tickets.", format.Plural(who.Bookings, "booking"), moves)
	const decline = "may cancel for a full refund until the show starts, whatever the refund policy says."
	switch {
	case who.People == 1:
		text += " Its moviegoer is e-mailed the new time and " + decline
	case who.People > 1:
		text += fmt.Sprintf(" Each of their %s is e-mailed the new time, once, and %s", format.Plural(who.People, "moviegoer"), decline)
	}
	if who.Unreachable > 0 {
		text += fmt.Sprintf(" %s sold at the box office gave no e-mail address: tell those customers yourselves.",
			format.Plural(who.Unreachable, "booking"))
	}
	return text
}

// RescheduleSubmit moves the show to the start typed, by the theatre's
// wall clock: POST /admin/shows/{id}/reschedule.
func (h *Handlers) RescheduleSubmit(c echo.Context) error {
	showID, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	ctx := c.Request().Context()
	a := web.Actor(c)
	// Only those who may move it learn anything of the form's mistakes.
	if _, err := h.Admin.PreviewMove(ctx, a, showID); err != nil {
		return problem.Lookup("show", err)
	}
	sh, err := h.Admin.AdminShow(ctx, a, showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	typed := &adminview.RescheduleView{StartsAt: strings.TrimSpace(c.FormValue("starts_at"))}
	startsAt, problemText := wallClockStart(typed.StartsAt, sh.TimeZone)
	status := http.StatusUnprocessableEntity
	if problemText == "" {
		moved, err := h.Admin.RescheduleShow(ctx, a, showID, startsAt)
		if err == nil {
			return web.SeeOther(c, adminpage.ShowPath(showID)+"?rescheduled=1&bookings="+strconv.Itoa(moved.BookingsMoved)+
				"&told="+strconv.Itoa(moved.MoviegoersTold))
		}
		if status, problemText, err = h.moveRefused(c, sh, err); err != nil {
			return err
		}
	}
	typed.Error = problemText
	notice := &adminview.ShowNotice{Kind: "error", Title: "The show was not moved", Text: problemText}
	return h.renderShow(c, status, showID, notice, "", "", nil, typed)
}

// wallClockStart reads a datetime-local start in the theatre's zone tz,
// or says what is wrong with it.
func wallClockStart(typed, tz string) (time.Time, string) {
	if typed == "" {
		return time.Time{}, "Give the new date and time of the show."
	}
	at, err := time.Parse(datetimeLocal, typed)
	if err != nil {
		if at, err = time.Parse(datetimeLocal+":05", typed); err != nil {
			return time.Time{}, "Give the new date and time of the show, such as 2027-03-26T18:30."
		}
	}
	loc := format.Zone(tz)
	startsAt, ok := admin.WallTime(at.Year(), at.Month(), at.Day(), at.Hour(), at.Minute(), loc)
	if !ok {
		return time.Time{}, fmt.Sprintf("%s does not exist on %s in %s: the clocks go forward then. Pick another time.",
			at.Format("15:04"), at.Format(time.DateOnly), tz)
	}
	return startsAt, ""
}

// moveRefused says why the use case refused the move, for the field; an
// error that is not the form's is returned as it is.
func (h *Handlers) moveRefused(c echo.Context, sh catalog.AdminShow, err error) (int, string, error) {
	var overlap *catalog.ScheduleOverlapError
	switch {
	case errors.As(err, &overlap):
		other, lerr := h.Store.Show(c.Request().Context(), overlap.ConflictingShowID)
		if lerr != nil {
			return 0, "", fmt.Errorf("the show in the way: %w", lerr)
		}
		return http.StatusConflict, fmt.Sprintf("The screen is busy then: %s starts at %s. Nothing was changed.",
			other.MovieTitle, format.When(overlap.ConflictingStartsAt, sh.TimeZone)), nil
	case errors.Is(err, catalog.ErrSameStart):
		return http.StatusUnprocessableEntity, "The show already starts then: give the new time to move it to. Nothing was changed.", nil
	case errors.Is(err, catalog.ErrShowInPast):
		return http.StatusUnprocessableEntity, "A show cannot start in the past: pick a later date or time.", nil
	case errors.Is(err, catalog.ErrShowTooFarAhead):
		return http.StatusUnprocessableEntity, fmt.Sprintf("A show can start at most %d days (two years) from now: pick an earlier date.",
			int(catalog.MaxScheduleAhead/(24*time.Hour))), nil
	case errors.Is(err, catalog.ErrShowStarted):
		return http.StatusConflict, "The show has started meanwhile, so it can no longer be moved.", nil
	case errors.Is(err, catalog.ErrShowCancelled):
		return http.StatusConflict, "The show was cancelled meanwhile, so it can no longer be moved.", nil
	case errors.Is(err, catalog.ErrMovieChanged):
		return http.StatusConflict, "The movie's running time changed while the show was being moved: nothing was changed. Send the form again.", nil
	}
	return 0, "", problem.Lookup("show", err)
}
