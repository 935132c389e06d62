package api

import (
	"net/http"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/clientaddr"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"

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
	// What cancelling right after paying gives back, and the show's
	// refund tiers still ahead, in time order.
	RefundNowPercent int              `json:"refund_now_percent"`
	RefundTiers      []refundTierJSON `json:"refund_tiers"`
	// Together answers a best-available hold: its seats side by side in
	// one row.
	Together *bool `json:"together,omitempty"`
}

// bestAvailableJSON asks the server to choose the seats.
type bestAvailableJSON struct {
	Count      int    `json:"count"`
	Category   string `json:"category"`
	Accessible int    `json:"accessible"`
}

var errSeatsAndBest = problem.New(http.StatusUnprocessableEntity, "seats_or_best_available",
	"Ask for seats by their ids or for the best available, not both.")

type refundTierJSON struct {
	Until   time.Time `json:"until"`
	Percent int       `json:"percent"`
}

func holdView(h booking.Hold, terms booking.CancellationTerms) holdJSON {
	v := holdJSON{
		HoldID: h.ID, ShowID: h.ShowID, Seats: problem.NonNil(h.Seats), State: string(h.State),
		ExpiresAt: h.ExpiresAt.UTC(), AmountMinor: h.AmountMinor, Currency: h.Currency,
		RefundTiers: []refundTierJSON{},
	}
	for i, d := range terms.Deadlines() {
		if i == 0 {
			v.RefundNowPercent = d.Percent
		}
		v.RefundTiers = append(v.RefundTiers, refundTierJSON{Until: d.Until.UTC(), Percent: d.Percent})
	}
	return v
}

// holdAnswer is the hold object of h, with its show's refund terms as they
// stand now: the same deadlines a cancellation of its booking is decided on.
func (s *Handlers) holdAnswer(c echo.Context, status int, h booking.Hold) error {
	terms, err := s.Store.CancellationTerms(c.Request().Context(), h.ShowID)
	if err != nil {
		return err
	}
	return c.JSON(status, holdView(h, terms))
}

// CreateHold claims seats of a show for the caller, all or nothing. The
// Idempotency-Key makes a retry safe: the same key and request answer 200
// with the hold first made, whatever its state now.
func (s *Handlers) CreateHold(c echo.Context) error {
	showID, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return problem.NotFound("show")
	}
	keys := c.Request().Header.Values(IdempotencyKeyHeader)
	switch {
	case len(keys) == 0 || keys[0] == "":
		return problem.New(http.StatusBadRequest, "idempotency_key_required",
			"Send an Idempotency-Key header (1 to 255 printable characters), new for each new hold request.")
	case len(keys) > 1 || !booking.ValidKey(keys[0]):
		return problem.New(http.StatusBadRequest, "invalid_idempotency_key",
			"The Idempotency-Key header must be one value of 1 to 255 printable ASCII characters.")
	}
	var req struct {
		Seats []string           `json:"seats"`
		Best  *bestAvailableJSON `json:"best_available"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	hold := booking.HoldRequest{
		UserID: session.UserID(c), ShowID: showID, Seats: req.Seats, Key: keys[0], Client: clientaddr.Net(c),
		Ticket: web.QueueTicket(c, showID),
	}
	if req.Best != nil {
		if len(req.Seats) > 0 {
			return errSeatsAndBest
		}
		hold.Best = &booking.BestAvailable{Count: req.Best.Count, Category: req.Best.Category, Accessible: req.Best.Accessible}
	}

	res, err := s.BoxOffice.Hold(c.Request().Context(), hold)
	if err != nil {
		return problem.Lookup("show", err)
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/holds/"+res.Hold.ID)
	status := http.StatusCreated
	if res.Replayed {
		status = http.StatusOK
	}
	// The terms came with the hold, in its statement (see Store.HoldSeats).
	v := holdView(res.Hold, res.Terms)
	if hold.Best != nil {
		v.Together = &res.Together
	}
	return c.JSON(status, v)
}

// Hold returns the caller's hold with its state now.
func (s *Handlers) Hold(c echo.Context) error {
	h, err := s.Store.Hold(c.Request().Context(), session.UserID(c), c.Param("hold_id"))
	if err != nil {
		return problem.Lookup("hold", err)
	}
	return s.holdAnswer(c, http.StatusOK, h)
}

// ReleaseHold gives the caller's held seats back. An expired or cancelled
// hold is returned as it is; a paid one must be cancelled as a booking.
func (s *Handlers) ReleaseHold(c echo.Context) error {
	if err := web.DecodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	res, err := s.BoxOffice.Release(c.Request().Context(), session.UserID(c), c.Param("hold_id"))
	if err != nil {
		return problem.Lookup("hold", err)
	}
	// The terms came with the release, in its statement (Store.ReleaseHold).
	return c.JSON(http.StatusOK, holdView(res.Hold, res.Terms))
}
