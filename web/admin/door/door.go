// Package door serves the admin pages of a show's door: tonight's shows
// of the theatres an usher works for, and the page that checks tickets in
// with a phone's camera (static/js/door.js), by typed code without it, and
// offline from the list it downloaded.
package door

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Handlers are the door's pages, on the shared server.
type Handlers struct{ *web.Server }

// IndexPage lists tonight's shows (started in the last three hours or
// starting in the next twelve) at the theatres where the actor may check
// tickets in: GET /admin/door.
func (h *Handlers) IndexPage(c echo.Context) error {
	shows, err := h.Admin.StaffShows(c.Request().Context(), web.Actor(c), admin.CheckIn, -3*time.Hour, 12*time.Hour)
	if err != nil {
		return err
	}
	v := adminview.DoorIndexView{Shows: ShowLinks(shows, "/door")}
	return web.Render(c, http.StatusOK, adminview.DoorIndexPage(adminpage.Meta(h.Server, c, "Door"),
		adminpage.Nav(c, adminview.SectionDoor), v))
}

// ShowLinks are shows as a staff list links them: to each show's page
// tail (its door, its counter).
func ShowLinks(shows []admin.StaffShow, tail string) []adminview.DoorShow {
	out := make([]adminview.DoorShow, len(shows))
	for i, s := range shows {
		out[i] = adminview.DoorShow{Href: adminpage.ShowPath(s.ID) + tail, Movie: s.MovieTitle, Screen: s.ScreenName,
			Theatre: s.Theatre, When: format.Date(s.StartsAt, s.TimeZone) + ", " + format.Clock(s.StartsAt, s.TimeZone)}
	}
	return out
}

// Page is a show's door: GET /admin/shows/:show_id/door.
func (h *Handlers) Page(c echo.Context) error {
	return h.render(c, http.StatusOK, nil, "", c.QueryParam("gate"))
}

// Submit checks in a typed code without JavaScript:
// POST /admin/shows/:show_id/door {code, gate}.
func (h *Handlers) Submit(c echo.Context) error {
	id, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	code, gate := c.FormValue("code"), c.FormValue("gate")
	a, err := h.Admin.CheckIn(c.Request().Context(), web.Actor(c), id, code, gate)
	if err != nil {
		return problem.Lookup("show", err)
	}
	status := http.StatusOK
	if a.Result != booking.Admitted {
		status = http.StatusConflict
		if a.Result == booking.UnknownTicket {
			status = http.StatusNotFound
		}
	}
	answer := Answer(a, h.zone(c, id))
	if a.Result == booking.Admitted {
		code = "" // ready for the next one
	}
	return h.render(c, status, &answer, code, gate)
}

// zone is the time zone of show id's theatre ("" if it cannot be read:
// the page that follows says why).
func (h *Handlers) zone(c echo.Context, id int64) string {
	d, err := h.Admin.Door(c.Request().Context(), web.Actor(c), id)
	if err != nil {
		return ""
	}
	return d.TimeZone
}

func (h *Handlers) render(c echo.Context, status int, answer *adminview.DoorAnswer, code, gate string) error {
	id, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	// The camera and the scanner's WebAssembly, for this page only.
	web.AllowCamera(c)
	d, err := h.Admin.Door(c.Request().Context(), web.Actor(c), id)
	if err != nil {
		return problem.Lookup("show", err)
	}
	v := adminview.DoorView{CSRF: web.CSRFToken(c), ShowID: id, Movie: d.Show.MovieTitle, Screen: d.Show.ScreenName,
		Theatre: d.Show.TheatreName, When: format.Date(d.Show.StartsAt, d.TimeZone) + ", " + format.Clock(d.Show.StartsAt, d.TimeZone),
		Admitted: d.Admitted, Gate: strings.TrimSpace(gate), Code: code, Answer: answer, ShowHref: adminpage.ShowPath(id)}
	for _, t := range d.Tickets {
		if t.Status == booking.BookingConfirmed {
			v.Tickets++
		}
	}
	for _, x := range d.Doubles {
		v.Doubles = append(v.Doubles, adminview.DoorDouble{Seats: strings.Join(x.Seats, ", "), Name: x.Name,
			First: who(x.First, x.FirstBy, x.FirstGate, d.TimeZone), Again: who(x.Again, x.AgainBy, x.AgainGate, d.TimeZone)})
	}
	return web.Render(c, status, adminview.DoorPage(adminpage.Meta(h.Server, c, "Door: "+d.Show.MovieTitle),
		adminpage.Nav(c, adminview.SectionDoor), v))
}

// who says when, by whom and at which door a ticket was let in.
func who(at time.Time, by, gate, tz string) string {
	s := "at " + format.Clock(at, tz) + " by " + by
	if gate != "" {
		s += " (" + gate + ")"
	}
	return s
}

// Answer is a scan's answer in the words the door shows; static/js/door.js
// says the same of the API's answers.
func Answer(a booking.Admission, tz string) adminview.DoorAnswer {
	seats := strings.Join(a.Seats, ", ")
	switch a.Result {
	case booking.Admitted:
		return adminview.DoorAnswer{Kind: "admitted", Title: "Admitted", Detail: seats + " · " + a.Name}
	case booking.AlreadyAdmitted:
		d := "Already admitted at " + format.Clock(a.AdmittedAt, tz) + " by " + a.By
		if a.Gate != "" {
			d += " at " + a.Gate
		}
		return adminview.DoorAnswer{Kind: "again", Title: "Already admitted", Detail: d + " · " + seats}
	case booking.WrongShow:
		o := a.OtherShow
		return adminview.DoorAnswer{Kind: "other-show", Title: "Another show",
			Detail: "This ticket is for " + o.Movie + ", " + format.Date(o.StartsAt, o.TimeZone) + " " + format.Clock(o.StartsAt, o.TimeZone) + ", " + o.Screen}
	case booking.TicketCancelled:
		return adminview.DoorAnswer{Kind: "cancelled", Title: "Cancelled", Detail: "This ticket was cancelled or refunded · " + seats}
	}
	return adminview.DoorAnswer{Kind: "unknown", Title: "Not a ticket", Detail: "No ticket of ours has this code."}
}

// channelWords says how a booking was sold.
var channelWords = map[booking.Channel]string{
	booking.Online: "Online", booking.BoxOffice: "Box office", booking.Complimentary: "Complimentary",
}

// AttendeesPage lists a show's attendees: GET /admin/shows/:show_id/attendees.
func (h *Handlers) AttendeesPage(c echo.Context) error {
	id, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	l, err := h.Admin.Attendees(c.Request().Context(), web.Actor(c), id)
	if err != nil {
		return problem.Lookup("show", err)
	}
	tz := l.Show.TimeZone
	v := adminview.AttendeesView{ShowID: id, Movie: l.Show.MovieTitle, ShowHref: adminpage.ShowPath(id),
		When: format.Date(l.Show.StartsAt, tz) + ", " + format.Clock(l.Show.StartsAt, tz)}
	for _, a := range l.Attendees {
		in := "No"
		if a.CheckedInAt != nil {
			in = format.Clock(*a.CheckedInAt, tz)
			v.Admitted++
		}
		v.Rows = append(v.Rows, adminview.AttendeeRow{Name: a.Name, Email: a.Email, Seats: strings.Join(a.Seats, ", "),
			Channel: channelWords[a.Channel], CheckedIn: in, BookingHref: "/admin/bookings/" + a.BookingID})
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return web.Render(c, http.StatusOK, adminview.AttendeesPage(adminpage.Meta(h.Server, c, "Attendees: "+l.Show.MovieTitle),
		adminpage.Nav(c, adminview.SectionTheatres), v))
}

// AttendeesCSV is the list as CSV: GET /admin/shows/:show_id/attendees.csv.
func (h *Handlers) AttendeesCSV(c echo.Context) error {
	id, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	l, err := h.Admin.Attendees(c.Request().Context(), web.Actor(c), id)
	if err != nil {
		return problem.Lookup("show", err)
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return web.DownloadCSV(c, l.CSV)
}
