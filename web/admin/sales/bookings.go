package sales

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
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// A booking, for its theatre's staff: GET /admin/bookings finds bookings
// by ticket code, e-mail or name (?q=), GET /admin/bookings/:booking_id
// shows one with the e-mails about it, and its forms refund it
// (POST …/refund), record a counter refund handed back (POST
// …/refund/paid), move it to another show (POST …/move) and mail its
// ticket again (POST …/resend).

// BookingsPage finds bookings, or asks what to look for. A search that
// finds one booking opens it.
func (h *Handlers) BookingsPage(c echo.Context) error {
	q := strings.TrimSpace(c.QueryParam("q"))
	render := func(status int, v adminview.BookingFindView) error {
		return web.Render(c, status, adminview.BookingFindPage(adminpage.Meta(h.Server, c, "Find a booking"),
			adminpage.Nav(c, adminview.SectionBookings), v))
	}
	if q == "" {
		return render(http.StatusOK, adminview.BookingFindView{})
	}
	found, err := h.Admin.SearchBookings(c.Request().Context(), web.Actor(c), 0, q)
	var fe *catalog.FieldError
	if errors.As(err, &fe) {
		return render(http.StatusUnprocessableEntity, adminview.BookingFindView{Query: q, Error: problem.Sentence(fe.Message)})
	}
	if err != nil {
		return err
	}
	switch len(found) {
	case 0:
		return render(http.StatusNotFound, adminview.BookingFindView{Query: q,
			Error: "No booking of your theatres matches. Try the 12-character code on the ticket, the customer's e-mail, or part of their name."})
	case 1:
		return web.SeeOther(c, "/admin/bookings/"+found[0].ID)
	}
	v := adminview.BookingFindView{Query: q, Searched: true}
	for _, b := range found {
		v.Found = append(v.Found, adminview.BookingFound{
			Href: "/admin/bookings/" + b.ID, Code: b.Code, Status: bookingStatus(b), Movie: b.MovieTitle,
			When: format.When(b.StartsAt, b.TimeZone), Seats: strings.Join(format.SeatOrder(b.Seats), ", "),
			Customer: b.CustomerName, Email: b.CustomerEmail, Channel: channelWords(b.Channel),
		})
	}
	return render(http.StatusOK, v)
}

// BookingPage shows one booking and its e-mails.
func (h *Handlers) BookingPage(c echo.Context) error {
	var notice *adminview.ShowNotice
	switch c.QueryParam("done") {
	case "resend":
		notice = &adminview.ShowNotice{Kind: "success", Title: "Ticket queued", Text: "It is on its way to the customer; it shows below once sent."}
	case "refund":
		notice = &adminview.ShowNotice{Kind: "success", Title: "Booking refunded", Text: "Its seats are back on sale and the customer is told by e-mail."}
	case "handed-back":
		notice = &adminview.ShowNotice{Kind: "success", Title: "Refund recorded", Text: "The refund is recorded as handed back at the counter."}
	case "move":
		notice = &adminview.ShowNotice{Kind: "success", Title: "Booking moved", Text: "The new ticket is on its way to the customer by e-mail."}
	}
	return h.renderBooking(c, http.StatusOK, adminview.BookingView{Notice: notice})
}

// renderBooking renders the booking page over v, which carries a form's
// state and errors, or a notice.
func (h *Handlers) renderBooking(c echo.Context, status int, v adminview.BookingView) error {
	ctx, a := c.Request().Context(), web.Actor(c)
	bh, err := h.Admin.Booking(ctx, a, c.Param("booking_id"))
	if err != nil {
		return problem.Lookup("booking", err)
	}
	b := bh.Booking
	v.CSRF, v.ID, v.Code, v.Confirmed = web.CSRFToken(c), b.ID, b.Code, b.Status == booking.BookingConfirmed
	v.Movie, v.ShowHref, v.When = b.MovieTitle, adminpage.ShowPath(b.ShowID), format.When(b.StartsAt, b.TimeZone)
	v.Theatre, v.Screen, v.Seats = b.TheatreName, b.ScreenName, strings.Join(format.SeatOrder(b.Seats), ", ")
	v.Paid, v.Customer, v.Email, v.Channel = format.Money(b.AmountMinor, b.Currency), b.CustomerName, b.CustomerEmail, channelWords(b.Channel)
	v.Status = bookingStatus(b)
	if r := b.Refund; r != nil {
		v.Refund = format.Money(r.AmountMinor, r.Currency) + ", " + strings.ToLower(string(r.Status))
		v.CounterRefundOwed = booking.CounterPayment(b.PaymentID) && r.Status == booking.RefundPending
		if v.CounterRefundOwed {
			v.Refund = format.Money(r.AmountMinor, r.Currency)
		}
	}
	if v.Confirmed {
		v.FullRefund = v.Paid
		if percent, ok := bh.Terms.Policy.PercentAt(bh.Terms.StartsAt, bh.Terms.Now); ok {
			refund, _ := bh.Terms.Policy.RefundAt(b.AmountMinor, bh.Terms.StartsAt, bh.Terms.Now)
			v.PolicyRefund = fmt.Sprintf("%s now (%d%%)", format.Money(refund, b.Currency), percent)
		} else {
			v.PolicyRefund = "nothing now (its last deadline has passed)"
		}
		targets, err := h.Admin.MoveTargets(ctx, a, b.ID)
		if err != nil {
			return err
		}
		for _, t := range targets {
			v.MoveTargets = append(v.MoveTargets, adminview.MoveTarget{ID: t.ID,
				Label: format.When(t.StartsAt, t.TimeZone) + ", " + t.ScreenName + " (" + format.Plural(t.Seats.Available, "seat") + " free)"})
		}
	}
	for _, m := range bh.Mails {
		v.Mails = append(v.Mails, mailRow(m, b.TimeZone))
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return web.Render(c, status, adminview.BookingPage(adminpage.Meta(h.Server, c, "Booking "+b.Code), adminpage.Nav(c, adminview.SectionBookings), v))
}

// RefundSubmit refunds the booking, by the policy or in full.
func (h *Handlers) RefundSubmit(c echo.Context) error {
	v := adminview.BookingView{RefundFull: c.FormValue("full") == "true", Reason: c.FormValue("reason")}
	_, err := h.Admin.RefundBooking(c.Request().Context(), web.Actor(c), c.Param("booking_id"),
		booking.StaffRefund{Full: v.RefundFull, Reason: v.Reason})
	if err == nil {
		return web.SeeOther(c, "/admin/bookings/"+c.Param("booking_id")+"?done=refund")
	}
	return h.refused(c, v, err)
}

// CounterRefundSubmit records a counter sale's refund as handed back.
func (h *Handlers) CounterRefundSubmit(c echo.Context) error {
	if _, err := h.Admin.SettleCounterRefund(c.Request().Context(), web.Actor(c), c.Param("booking_id")); err != nil {
		return h.refused(c, adminview.BookingView{}, err)
	}
	return web.SeeOther(c, "/admin/bookings/"+c.Param("booking_id")+"?done=handed-back")
}

// MoveSubmit moves the booking to seats of another show.
func (h *Handlers) MoveSubmit(c echo.Context) error {
	v := adminview.BookingView{MoveSeats: c.FormValue("seats")}
	to, err := strconv.ParseInt(c.FormValue("show_id"), 10, 64)
	if err != nil || to <= 0 {
		v.Errors = map[string]string{"show_id": "Pick the show to move the booking to."}
		return h.renderBooking(c, http.StatusUnprocessableEntity, v)
	}
	v.MoveShow = to
	seats := strings.FieldsFunc(strings.ToUpper(v.MoveSeats), func(r rune) bool { return r == ',' || r == ';' || r == ' ' })
	if _, err := h.Admin.MoveBooking(c.Request().Context(), web.Actor(c), c.Param("booking_id"), to, seats); err != nil {
		return h.refused(c, v, err)
	}
	return web.SeeOther(c, "/admin/bookings/"+c.Param("booking_id")+"?done=move")
}

// refused renders the booking page again with why a form's action was
// refused: at its field when it names one, else as a notice. Anything
// else (not found, not allowed) is the error page's.
func (h *Handlers) refused(c echo.Context, v adminview.BookingView, err error) error {
	answer, internal := problem.For(problem.Lookup("booking", err))
	if internal || answer.Status == http.StatusNotFound || answer.Status == http.StatusForbidden {
		return problem.Lookup("booking", err)
	}
	v.Errors = map[string]string{}
	for _, fe := range catalog.FieldErrors(err) {
		v.Errors[fe.Field] = problem.Sentence(fe.Message)
	}
	var taken *booking.SeatsUnavailableError
	var unknown *booking.UnknownSeatsError
	switch {
	case len(v.Errors) > 0:
	case errors.As(err, &taken):
		v.Errors["seats"] = "Taken: " + strings.Join(taken.Seats, ", ") + ". Pick other seats."
	case errors.As(err, &unknown):
		v.Errors["seats"] = "That show has no seat " + strings.Join(unknown.Seats, ", ") + "."
	case v.MoveShow != 0 && answer.Status == http.StatusUnprocessableEntity:
		v.Errors["seats"] = answer.Message
	default:
		v.Notice = &adminview.ShowNotice{Kind: "error", Title: "Nothing was changed", Text: answer.Message}
	}
	return h.renderBooking(c, answer.Status, v)
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

func channelWords(ch booking.Channel) string {
	switch ch {
	case booking.BoxOffice:
		return "at the box office"
	case booking.Complimentary:
		return "complimentary"
	}
	return "online"
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
	if err := h.Admin.ResendTicket(c.Request().Context(), web.Actor(c), c.Param("booking_id")); err != nil {
		return h.refused(c, adminview.BookingView{}, err)
	}
	return web.SeeOther(c, "/admin/bookings/"+c.Param("booking_id")+"?done=resend")
}
