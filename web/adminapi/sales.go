package adminapi

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

// staffBookingJSON is a booking as its theatre's staff see it: the
// moviegoer's booking object with how it was sold.
type staffBookingJSON struct {
	BookingID   string     `json:"booking_id"`
	HoldID      string     `json:"hold_id"`
	ShowID      int64      `json:"show_id"`
	Seats       []string   `json:"seats"`
	Status      string     `json:"status"`
	AmountMinor int64      `json:"amount_minor"`
	Currency    string     `json:"currency"`
	PaymentID   string     `json:"payment_id"`
	Code        string     `json:"code"`
	Channel     string     `json:"channel"`
	CreatedAt   time.Time  `json:"created_at"`
	CancelledAt *time.Time `json:"cancelled_at,omitempty"`
	CancelledBy string     `json:"cancelled_by,omitempty"`
	Refund      *struct {
		AmountMinor int64  `json:"amount_minor"`
		Currency    string `json:"currency"`
		Status      string `json:"status"`
	} `json:"refund,omitempty"`
}

func (h *Handlers) staffBookingView(b booking.Booking) staffBookingJSON {
	out := staffBookingJSON{BookingID: b.ID, HoldID: b.HoldID, ShowID: b.ShowID, Seats: problem.NonNil(b.Seats),
		Status: string(b.Status), AmountMinor: b.AmountMinor, Currency: b.Currency, PaymentID: b.PaymentID,
		Code: h.Config.Tickets.Code(b.Code, b.ShowID), Channel: string(b.Channel), CreatedAt: b.CreatedAt.UTC(),
		CancelledBy: b.CancelledBy}
	if b.CancelledAt != nil {
		t := b.CancelledAt.UTC()
		out.CancelledAt = &t
	}
	if b.Refund != nil {
		out.Refund = &struct {
			AmountMinor int64  `json:"amount_minor"`
			Currency    string `json:"currency"`
			Status      string `json:"status"`
		}{b.Refund.AmountMinor, b.Refund.Currency, string(b.Refund.Status)}
	}
	return out
}

// Sell sells seats at the counter:
// POST /api/v1/admin/shows/{show_id}/sales with Idempotency-Key,
// {"seats","paid_by","customer":{"name","email"},"reason"}.
func (h *Handlers) Sell(c echo.Context) error {
	id, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	var req struct {
		Seats    []string       `json:"seats"`
		PaidBy   booking.PaidBy `json:"paid_by"`
		Customer struct {
			Name  string `json:"name"`
			Email string `json:"email"`
		} `json:"customer"`
		Reason string `json:"reason"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	b, err := h.Admin.Sell(c.Request().Context(), actor(c), booking.CounterSale{ShowID: id, Seats: req.Seats, PaidBy: req.PaidBy,
		Name: req.Customer.Name, Email: req.Customer.Email, Reason: req.Reason, Key: c.Request().Header.Get("Idempotency-Key")})
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusCreated, h.staffBookingView(b))
}
