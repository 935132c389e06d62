package api

import (
	"net/http"
	"time"

	"github.com/marquee-tickets/marquee/web"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// IdempotencyKeyHeader names the client's key for a hold request.
const IdempotencyKeyHeader = "Idempotency-Key"

type holdJSON struct {
	HoldID      string    `json:"hold_id"`
	ShowID      int64     `json:"show_id"`
	Seats       []string  `json:"seats"`
	State       string    `json:"state"`
	ExpiresAt   time.Time `json:"expires_at"`
	AmountMinor int64     `json:"amount_minor"`
	Currency    string    `json:"currency"`
}

func holdView(h booking.Hold) holdJSON {
	return holdJSON{
		HoldID: h.ID, ShowID: h.ShowID, Seats: web.NonNil(h.Seats), State: string(h.State),
		ExpiresAt: h.ExpiresAt.UTC(), AmountMinor: h.AmountMinor, Currency: h.Currency,
	}
}

// CreateHold claims seats of a show for the caller, all or nothing. The
// Idempotency-Key makes a retry safe: the same key and request answer 200
// with the hold first made, whatever its state now.
func (s *Handlers) CreateHold(c echo.Context) error {
	showID, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return web.NotFound("show")
	}
	keys := c.Request().Header.Values(IdempotencyKeyHeader)
	switch {
	case len(keys) == 0 || keys[0] == "":
		return web.NewError(http.StatusBadRequest, "idempotency_key_required",
			"Send an Idempotency-Key header (1 to 255 printable characters), new for each new hold request.")
	case len(keys) > 1 || !booking.ValidKey(keys[0]):
		return web.NewError(http.StatusBadRequest, "invalid_idempotency_key",
			"The Idempotency-Key header must be one value of 1 to 255 printable ASCII characters.")
	}
	var req struct {
		Seats []string `json:"seats"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}

	res, err := s.BoxOffice.Hold(c.Request().Context(), booking.HoldRequest{
		UserID: web.UserID(c), ShowID: showID, Seats: req.Seats, Key: keys[0], Client: web.ClientNet(c),
	})
	if err != nil {
		return web.Lookup("show", err)
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/holds/"+res.Hold.ID)
	status := http.StatusCreated
	if res.Replayed {
		status = http.StatusOK
	}
	return c.JSON(status, holdView(res.Hold))
}

// Hold returns the caller's hold with its state now.
func (s *Handlers) Hold(c echo.Context) error {
	h, err := s.Store.Hold(c.Request().Context(), web.UserID(c), c.Param("hold_id"))
	if err != nil {
		return web.Lookup("hold", err)
	}
	return c.JSON(http.StatusOK, holdView(h))
}

// ReleaseHold gives the caller's held seats back. An expired or cancelled
// hold is returned as it is; a paid one must be cancelled as a booking.
func (s *Handlers) ReleaseHold(c echo.Context) error {
	if err := web.DecodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	h, err := s.BoxOffice.Release(c.Request().Context(), web.UserID(c), c.Param("hold_id"))
	if err != nil {
		return web.Lookup("hold", err)
	}
	return c.JSON(http.StatusOK, holdView(h))
}
