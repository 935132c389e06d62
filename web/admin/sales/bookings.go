package sales

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// A booking, for its theatre's staff: GET /admin/bookings finds one by its
// ticket code (?q=), GET /admin/bookings/:booking_id shows it with the
// e-mails about it, POST /admin/bookings/:booking_id/resend mails its
// ticket again.

// BookingsPage finds a booking by ticket code or id, or asks for one.
func (h *Handlers) BookingsPage(c echo.Context) error {
	q := strings.TrimSpace(c.QueryParam("q"))
	if q == "" {
		return web.Render(c, http.StatusOK, adminview.BookingFindPage(adminpage.Meta(h.Server, c, "Find a booking"),
			adminpage.Nav(c, adminview.SectionBookings), adminview.BookingFindView{}))
	}
	id, err := h.Admin.FindBooking(c.Request().Context(), web.Actor(c), q)
	if errors.Is(err, booking.ErrNotFound) {
		return web.Render(c, http.StatusNotFound, adminview.BookingFindPage(adminpage.Meta(h.Server, c, "Find a booking"),
			adminpage.Nav(c, adminview.SectionBookings),
			adminview.BookingFindView{Query: q, Error: "No booking of your theatres has that ticket code or id. Check the code on the ticket: 12 letters and digits."}))
	}
	if err != nil {
		return err
	}
	return web.SeeOther(c, "/admin/bookings/"+id)
}

// BookingPage shows one booking and its e-mails.
func (h *Handlers) BookingPage(c echo.Context) error {
	var notice *adminview.ShowNotice
	if c.QueryParam("done") == "resend" {
		notice = &adminview.ShowNotice{Kind: "success", Title: "Ticket queued", Text: "It is on its way to the moviegoer; it shows below once sent."}
	}
	return h.renderBooking(c, http.StatusOK, notice)
}

func (h *Handlers) renderBooking(c echo.Context, status int, notice *adminview.ShowNotice) error {
	bh, err := h.Admin.Booking(c.Request().Context(), web.Actor(c), c.Param("booking_id"))
	if err != nil {
		return problem.Lookup("booking", err)
	}
	b := bh.Booking
	v := adminview.BookingView{
		CSRF: web.CSRFToken(c), ID: b.ID, Code: b.Code, Confirmed: b.Status == booking.BookingConfirmed,
		Movie: b.MovieTitle, ShowHref: adminpage.ShowPath(b.ShowID),
		When:    format.When(b.StartsAt, b.TimeZone),
		Theatre: b.TheatreName, Screen: b.ScreenName, Seats: strings.Join(format.SeatOrder(b.Seats), ", "),
		Paid: format.Money(b.AmountMinor, b.Currency), Customer: b.CustomerName, Email: b.CustomerEmail, Notice: notice,
		Status: bookingStatus(b),
	}
	if r := b.Refund; r != nil {
		v.Refund = format.Money(r.AmountMinor, r.Currency) + ", " + strings.ToLower(string(r.Status))
	}
	for _, m := range bh.Mails {
		v.Mails = append(v.Mails, mailRow(m, b.TimeZone))
	}
	return web.Render(c, status, adminview.BookingPage(adminpage.Meta(h.Server, c, "Booking "+b.Code), adminpage.Nav(c, adminview.SectionBookings), v))
}

func bookingStatus(b postgres.StaffBooking) string {
	switch {
	case b.Status == booking.BookingConfirmed:
		return "Confirmed"
	case b.CancelledBy == booking.CancelledByTheatre:
		return "Cancelled by the theatre"
	default:
		return "Cancelled by the moviegoer"
	}
}

func mailRow(m postgres.MailRecord, tz string) adminview.MailRow {
	at := m.CreatedAt
	r := adminview.MailRow{Kind: m.Kind.Label(), Recipient: m.Recipient, LastError: m.LastError}
	switch m.Status {
	case "SENT":
		r.State, r.Status = "sent", "Sent"
		if m.SentAt != nil {
			at = *m.SentAt
		}
	case "FAILED":
		r.State, r.Status = "failed", "Failed: gave up"
	case "NOT_SENT":
		r.State, r.Status = "not-sent", "Not sent (before e-mail was on)"
	default:
		r.State, r.Status = "waiting", "Waiting to be sent"
		if m.Attempts > 0 {
			r.Status = "Retrying"
		}
	}
	r.When = format.When(at, tz)
	r.WhenISO = at.UTC().Format(time.RFC3339)
	if m.Attempts > 1 || (m.Attempts == 1 && m.Status != "SENT") {
		r.Attempts = ", " + format.Plural(m.Attempts, "attempt")
	}
	return r
}

// ResendSubmit queues the booking's ticket again.
func (h *Handlers) ResendSubmit(c echo.Context) error {
	err := h.Admin.ResendTicket(c.Request().Context(), web.Actor(c), c.Param("booking_id"))
	if errors.Is(err, booking.ErrNoTicket) {
		return h.renderBooking(c, http.StatusConflict,
			&adminview.ShowNotice{Kind: "error", Title: "Nothing was sent", Text: "This booking is cancelled: it has no ticket to send."})
	}
	if err != nil {
		return problem.Lookup("booking", err)
	}
	return web.SeeOther(c, "/admin/bookings/"+c.Param("booking_id")+"?done=resend")
}
