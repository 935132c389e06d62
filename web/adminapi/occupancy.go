package adminapi

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

type countsJSON struct {
	Available int `json:"available"`
	Held      int `json:"held"`
	Booked    int `json:"booked"`
	Blocked   int `json:"blocked"`
}

type occupancyJSON struct {
	ShowID           int64      `json:"show_id"`
	Status           string     `json:"status"`
	StartsAt         time.Time  `json:"starts_at"`
	MovieTitle       string     `json:"movie_title"`
	Counts           countsJSON `json:"counts"`
	RevenueMinor     *int64     `json:"revenue_minor"`
	RefundsOwedMinor *int64     `json:"refunds_owed_minor"`
	RefundsPaidMinor *int64     `json:"refunds_paid_minor"`
	Currency         string     `json:"currency"`
	TooLarge         []string   `json:"too_large,omitempty"`
}

// ShowStatus answers a show's live occupancy, sales and refunds.
func (h *Handlers) ShowStatus(c echo.Context) error {
	showID, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	o, err := h.Admin.ShowOccupancy(c.Request().Context(), actor(c), showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, occupancyJSON{
		ShowID: o.ShowID, Status: o.Status, StartsAt: o.StartsAt.UTC(), MovieTitle: o.MovieTitle,
		Counts:       countsJSON(o.Seats),
		RevenueMinor: o.Revenue.Int64(), RefundsOwedMinor: o.RefundsOwed.Int64(), RefundsPaidMinor: o.RefundsPaid.Int64(),
		Currency: o.Currency,
		TooLarge: tooLarge(map[string]money.Total{
			"revenue_minor": o.Revenue, "refunds_owed_minor": o.RefundsOwed, "refunds_paid_minor": o.RefundsPaid}),
	})
}

// seatsBody is the body of a block and an unblock.
type seatsBody struct {
	Seats []string `json:"seats"`
}

// BlockSeats takes seats of a show off sale: {"seats":[...]} -> the show
// and every seat now blocked.
func (h *Handlers) BlockSeats(c echo.Context) error {
	showID, body, err := seatsRequest(c)
	if err != nil {
		return err
	}
	blocked, err := h.Admin.BlockSeats(c.Request().Context(), actor(c), showID, body.Seats)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, map[string]any{"show_id": showID, "blocked": problem.NonNil(blocked)})
}

// UnblockSeats puts blocked seats back on sale: {"seats":[...]} -> the show
// and the seats this request unblocked (a seat that was not blocked is left
// as it is, and not named).
func (h *Handlers) UnblockSeats(c echo.Context) error {
	showID, body, err := seatsRequest(c)
	if err != nil {
		return err
	}
	unblocked, err := h.Admin.UnblockSeats(c.Request().Context(), actor(c), showID, body.Seats)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, map[string]any{"show_id": showID, "unblocked": problem.NonNil(unblocked)})
}

// seatsRequest reads the show id and the seats of a block or an unblock.
func seatsRequest(c echo.Context) (int64, seatsBody, error) {
	var body seatsBody
	showID, err := pathID(c, "show_id")
	if err != nil {
		return 0, body, problem.NotFound("show")
	}
	if err := web.DecodeJSON(c, &body, true); err != nil {
		return 0, body, err
	}
	return showID, body, nil
}

// CancelShow cancels a show: every live hold ends and every confirmed
// booking is refunded in full. Cancelling again answers the same.
func (h *Handlers) CancelShow(c echo.Context) error {
	showID, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	if err := web.DecodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	res, err := h.Admin.CancelShow(c.Request().Context(), actor(c), showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"show_id": res.ShowID, "status": "CANCELLED",
		"holds_released": res.HoldsReleased, "bookings_refunded": res.BookingsRefunded,
	})
}
