// Package counter serves the box office's pages: the week's shows to
// sell, a show's counter (its live seat map and the sale form) and the
// ticket to print.
package counter

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/marquee-tickets/marquee/components"
	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/admin/door"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Handlers are the box office's pages, on the shared server.
type Handlers struct{ *web.Server }

// week is how far ahead the box office lists shows.
const week = 7 * 24 * time.Hour

// IndexPage lists the coming week's shows the actor may sell:
// GET /admin/box-office.
func (h *Handlers) IndexPage(c echo.Context) error {
	shows, err := h.Admin.StaffShows(c.Request().Context(), web.Actor(c), admin.Sell, 0, week)
	if err != nil {
		return err
	}
	v := adminview.BoxOfficeView{Shows: door.ShowLinks(shows, "/sell")}
	return web.Render(c, http.StatusOK, adminview.BoxOfficePage(adminpage.Meta(h.Server, c, "Box office"),
		adminpage.Nav(c, adminview.SectionBoxOffice), v))
}

// Page is a show's counter: GET /admin/shows/:show_id/sell.
func (h *Handlers) Page(c echo.Context) error {
	return h.render(c, http.StatusOK, adminview.CounterView{Key: newKey()})
}

// Submit sells the seats of the form: POST /admin/shows/:show_id/sell.
func (h *Handlers) Submit(c echo.Context) error {
	id, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	v := adminview.CounterView{Key: c.FormValue("key"), Seats: c.FormValue("seats"), PaidBy: c.FormValue("paid_by"),
		Name: c.FormValue("name"), Email: c.FormValue("email"), Reason: c.FormValue("reason")}
	seats := strings.FieldsFunc(strings.ToUpper(v.Seats), func(r rune) bool { return r == ',' || r == ';' || r == ' ' })
	b, err := h.Admin.Sell(c.Request().Context(), web.Actor(c), booking.CounterSale{ShowID: id, Seats: seats,
		PaidBy: booking.PaidBy(v.PaidBy), Name: v.Name, Email: v.Email, Reason: v.Reason, Key: v.Key})
	if err == nil {
		return web.SeeOther(c, "/admin/bookings/"+b.ID+"/print")
	}
	v.Errors = map[string]string{}
	for _, fe := range catalog.FieldErrors(err) {
		name := strings.TrimPrefix(fe.Field, "customer.")
		v.Errors[name] = problem.Sentence(fe.Message)
	}
	var taken *booking.SeatsUnavailableError
	var unknown *booking.UnknownSeatsError
	switch {
	case len(v.Errors) > 0:
		v.Message = "Check the fields marked below."
	case errors.As(err, &taken):
		v.Errors["seats"] = "Taken meanwhile: " + strings.Join(taken.Seats, ", ") + ". Pick other seats."
		v.Key = newKey()
	case errors.As(err, &unknown):
		v.Errors["seats"] = "This show has no seat " + strings.Join(unknown.Seats, ", ") + "."
	case errors.Is(err, booking.ErrNoSeats):
		v.Errors["seats"] = "Pick at least one seat."
	default:
		return problem.Lookup("show", err)
	}
	return h.render(c, http.StatusUnprocessableEntity, v)
}

func (h *Handlers) render(c echo.Context, status int, v adminview.CounterView) error {
	ctx := c.Request().Context()
	id, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	a := web.Actor(c)
	sh, err := h.Admin.CounterShow(ctx, a, id)
	if err != nil {
		return problem.Lookup("show", err)
	}
	seats, err := h.Store.SeatMap(ctx, id, a.UserID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	m := components.SeatMapOf(seats, sh.Currency, nil, nil)
	m.ShowID = id
	v.CSRF, v.ShowID, v.Movie, v.Screen, v.Theatre, v.Map = web.CSRFToken(c), id, sh.MovieTitle, sh.ScreenName, sh.TheatreName, m
	v.When = format.Date(sh.StartsAt, sh.TimeZone) + ", " + format.Clock(sh.StartsAt, sh.TimeZone)
	v.Live = h.Config.Live != nil
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return web.Render(c, status, adminview.CounterPage(adminpage.Meta(h.Server, c, "Sell: "+sh.MovieTitle),
		adminpage.Nav(c, adminview.SectionBoxOffice), v))
}

// PrintPage is a sold ticket to print: GET /admin/bookings/:booking_id/print.
func (h *Handlers) PrintPage(c echo.Context) error {
	hist, err := h.Admin.Booking(c.Request().Context(), web.Actor(c), c.Param("booking_id"))
	if err != nil {
		return problem.Lookup("booking", err)
	}
	b := hist.Booking
	if b.Status != booking.BookingConfirmed {
		return problem.NotFound("ticket")
	}
	png, err := qrcode.Encode(h.Config.Tickets.Code(b.Code, b.ShowID), qrcode.Medium, 320)
	if err != nil {
		return err
	}
	paid := map[booking.Channel]string{booking.Online: "Paid online", booking.BoxOffice: "Paid at the box office",
		booking.Complimentary: "Complimentary"}[b.Channel]
	v := adminview.TicketPrintView{Movie: b.MovieTitle, Screen: b.ScreenName, Theatre: b.TheatreName,
		When:  format.Date(b.StartsAt, b.TimeZone) + ", " + format.Clock(b.StartsAt, b.TimeZone),
		Seats: strings.Join(b.Seats, ", "), Name: b.CustomerName, Code: b.Code, Paid: paid,
		QR:          "data:image/png;base64," + base64.StdEncoding.EncodeToString(png),
		BookingHref: "/admin/bookings/" + b.ID}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return web.Render(c, http.StatusOK, adminview.TicketPrintPage(adminpage.Meta(h.Server, c, "Ticket"),
		adminpage.Nav(c, adminview.SectionBoxOffice), v))
}

// newKey is a fresh sale's idempotency key: the form carries it, so a sale
// submitted twice sells once.
func newKey() string { return "counter-" + rand.Text() }
