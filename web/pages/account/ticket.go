package account

import (
	"net/http"
	"strings"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/labstack/echo/v4"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/web/session"
)

// TicketPage is the e-ticket of one of the caller's bookings: another
// user's is not found.
func (s *Handlers) TicketPage(c echo.Context) error {
	ctx := c.Request().Context()
	b, sh, err := s.bookingAndShow(ctx, session.UserID(c), c.Param("booking_id"))
	if err != nil {
		return err
	}
	v := components.TicketView{
		BookingID: b.ID, Code: b.Code, QRSrc: bookingPath(b.ID) + "/qr.png",
		Movie: sh.MovieTitle, Theatre: sh.TheatreName, Screen: sh.ScreenName,
		Date: format.Date(sh.StartsAt, sh.TimeZone), Time: format.Clock(sh.StartsAt, sh.TimeZone), Zone: format.ZoneAbbrev(sh.StartsAt, sh.TimeZone),
		Seats: format.SeatOrder(b.Seats), SeatsText: strings.Join(format.SeatOrder(b.Seats), ", "), Amount: format.Money(b.AmountMinor, b.Currency),
		Cancelled: b.Status == booking.BookingCancelled, Refund: refundText(b.Refund),
		ByTheatre: b.Status == booking.BookingCancelled && b.CancelledBy == booking.CancelledByTheatre,
	}
	if b.Status == booking.BookingConfirmed {
		q, err := s.Store.QuoteCancellation(ctx, session.UserID(c), b.ID)
		if err != nil {
			return err
		}
		if q.Now.Before(sh.StartsAt) {
			v.RefundNow = refundNow(q, sh)
			v.Moved = movedText(b, sh)
			if q.Allowed {
				v.CancelHref = bookingPath(b.ID) + "/cancel"
			}
		}
	}
	if t, err := s.Store.Theatre(ctx, sh.TheatreID); err == nil {
		v.Address = t.Address
	}
	if m, err := s.Store.Movie(ctx, sh.MovieID); err == nil {
		v.Rating = m.Rating
	}
	return web.Render(c, http.StatusOK, components.TicketPage(s.Meta(c, "Ticket: "+sh.MovieTitle), v))
}

// TicketQR is the QR code of a booking's ticket code, as a PNG, for its
// owner only.
func (s *Handlers) TicketQR(c echo.Context) error {
	b, err := s.Store.Booking(c.Request().Context(), session.UserID(c), c.Param("booking_id"))
	if err != nil {
		return problem.Lookup("booking", err)
	}
	if b.Status != booking.BookingConfirmed {
		return problem.NotFound("ticket")
	}
	png, err := qrcode.Encode(s.Config.Tickets.Code(b.Code, b.ShowID), qrcode.Medium, 320)
	if err != nil {
		return err
	}
	// The code is the ticket: like the ticket page, never kept on disk.
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.Blob(http.StatusOK, "image/png", png)
}
