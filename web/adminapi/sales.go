package adminapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

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
