package api

import (
	"net/http"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/ticket"
)

// BookingJSON is the booking object of the API.
type BookingJSON struct {
	BookingID   string      `json:"booking_id"`
	HoldID      string      `json:"hold_id"`
	ShowID      int64       `json:"show_id"`
	Seats       []string    `json:"seats"`
	Status      string      `json:"status"`
	AmountMinor int64       `json:"amount_minor"`
	Currency    string      `json:"currency"`
	PaymentID   string      `json:"payment_id"`
	Code        string      `json:"code"`
	CreatedAt   time.Time   `json:"created_at"`
	CancelledAt *time.Time  `json:"cancelled_at,omitempty"`
	CancelledBy string      `json:"cancelled_by,omitempty"` // moviegoer or theatre
	Refund      *refundJSON `json:"refund,omitempty"`
}

type refundJSON struct {
	AmountMinor int64  `json:"amount_minor"`
	Currency    string `json:"currency"`
	Status      string `json:"status"`
}

// BookingView is b as the API shows it to its owner (and, with more, to
// its theatre's staff): its code is the signed one its QR code carries.
func BookingView(b booking.Booking, tickets *ticket.Keys) BookingJSON {
	out := BookingJSON{
		BookingID: b.ID, HoldID: b.HoldID, ShowID: b.ShowID, Seats: problem.NonNil(b.Seats),
		Status: string(b.Status), AmountMinor: b.AmountMinor, Currency: b.Currency,
		PaymentID: b.PaymentID, Code: tickets.Code(b.Code, b.ShowID), CreatedAt: b.CreatedAt.UTC(), CancelledBy: b.CancelledBy,
	}
	if b.CancelledAt != nil {
		t := b.CancelledAt.UTC()
		out.CancelledAt = &t
	}
	if b.Refund != nil {
		out.Refund = &refundJSON{AmountMinor: b.Refund.AmountMinor, Currency: b.Refund.Currency, Status: string(b.Refund.Status)}
	}
	return out
}

// Bookings lists the caller's bookings, newest first.
func (s *Handlers) Bookings(c echo.Context) error {
	list, err := s.Store.Bookings(c.Request().Context(), session.UserID(c))
	if err != nil {
		return err
	}
	out := struct {
		Bookings []BookingJSON `json:"bookings"`
	}{Bookings: make([]BookingJSON, 0, len(list))}
	for _, b := range list {
		out.Bookings = append(out.Bookings, BookingView(b, s.Config.Tickets))
	}
	return c.JSON(http.StatusOK, out)
}

// Booking returns one of the caller's bookings.
func (s *Handlers) Booking(c echo.Context) error {
	b, err := s.Store.Booking(c.Request().Context(), session.UserID(c), c.Param("booking_id"))
	if err != nil {
		return problem.Lookup("booking", err)
	}
	return c.JSON(http.StatusOK, BookingView(b, s.Config.Tickets))
}

// CancelBooking cancels one of the caller's bookings under its theatre's
// refund policy. Cancelling again answers the same.
func (s *Handlers) CancelBooking(c echo.Context) error {
	if err := web.DecodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	b, err := s.BoxOffice.CancelBooking(c.Request().Context(), session.UserID(c), c.Param("booking_id"))
	if err != nil {
		return problem.Lookup("booking", err)
	}
	return c.JSON(http.StatusOK, BookingView(b, s.Config.Tickets))
}
