package adminapi

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/api"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Customer service: GET /api/v1/admin/bookings?theatre_id=&q= finds
// bookings, and POST /api/v1/admin/bookings/{booking_id}/refund,
// …/refund/paid and …/move act on one.

// staffBookingJSON is a booking as its theatre's staff see it: the
// moviegoer's booking object, with how it was sold and to whom.
type staffBookingJSON struct {
	api.BookingJSON
	Channel  string        `json:"channel"`
	Customer *customerJSON `json:"customer,omitempty"`
}

type customerJSON struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
}

func (h *Handlers) staffBookingView(b booking.Booking) staffBookingJSON {
	return staffBookingJSON{BookingJSON: api.BookingView(b, h.Config.Tickets), Channel: string(b.Channel)}
}

// customerBookingView is b with its customer, as a search or a customer
// service action answers it.
func (h *Handlers) customerBookingView(b postgres.StaffBooking) staffBookingJSON {
	out := h.staffBookingView(b.Booking)
	out.Customer = &customerJSON{Name: b.CustomerName, Email: b.CustomerEmail}
	return out
}

// SearchBookings finds bookings by ticket code, e-mail or name.
func (h *Handlers) SearchBookings(c echo.Context) error {
	var theatreID int64
	if v := c.QueryParam("theatre_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return problem.New(http.StatusBadRequest, "invalid_theatre_id", "theatre_id must be a theatre's id.")
		}
		theatreID = id
	}
	list, err := h.Admin.SearchBookings(c.Request().Context(), actor(c), theatreID, c.QueryParam("q"))
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	out := struct {
		Bookings []staffBookingJSON `json:"bookings"`
	}{Bookings: make([]staffBookingJSON, len(list))}
	for i, b := range list {
		out.Bookings[i] = h.customerBookingView(b)
	}
	return c.JSON(http.StatusOK, out)
}

// RefundBooking cancels and refunds one booking: {"full","reason"}.
func (h *Handlers) RefundBooking(c echo.Context) error {
	var req struct {
		Full   *bool  `json:"full"`
		Reason string `json:"reason"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	if req.Full == nil {
		return problem.New(http.StatusUnprocessableEntity, "invalid_full",
			"Say whether to refund in full (\"full\": true) or by the theatre's refund policy (\"full\": false).").With("field", "full")
	}
	b, err := h.Admin.RefundBooking(c.Request().Context(), actor(c), c.Param("booking_id"),
		booking.StaffRefund{Full: *req.Full, Reason: req.Reason})
	if err != nil {
		return problem.Lookup("booking", err)
	}
	return c.JSON(http.StatusOK, h.customerBookingView(b))
}

// CounterRefundPaid records that a counter sale's refund was handed back.
func (h *Handlers) CounterRefundPaid(c echo.Context) error {
	b, err := h.Admin.SettleCounterRefund(c.Request().Context(), actor(c), c.Param("booking_id"))
	if err != nil {
		return problem.Lookup("booking", err)
	}
	return c.JSON(http.StatusOK, h.customerBookingView(b))
}

// MoveBooking moves one booking to seats of another show of its movie:
// {"show_id","seats"}.
func (h *Handlers) MoveBooking(c echo.Context) error {
	var req struct {
		ShowID int64    `json:"show_id"`
		Seats  []string `json:"seats"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	if req.ShowID <= 0 {
		return problem.New(http.StatusUnprocessableEntity, "invalid_show_id", "Give the id of the show to move the booking to.").With("field", "show_id")
	}
	b, err := h.Admin.MoveBooking(c.Request().Context(), actor(c), c.Param("booking_id"), req.ShowID, req.Seats)
	if err != nil {
		return problem.Lookup("booking", err)
	}
	return c.JSON(http.StatusOK, h.customerBookingView(b))
}
