package web

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// My bookings: upcoming and past, and cancelling with a refund preview.

func bookingPath(id string) string { return "/bookings/" + id }

// refundText says what a cancelled booking gets back, and how far along.
func refundText(r *booking.Refund) string {
	if r == nil {
		return ""
	}
	if r.AmountMinor == 0 {
		return "No refund was due under the theatre's refund policy."
	}
	amount := money(r.AmountMinor, r.Currency)
	switch r.Status {
	case booking.RefundSucceeded:
		return "Refund of " + amount + " paid to your original payment method."
	case booking.RefundFailed:
		return "Refund of " + amount + " is being retried; it is on its way."
	}
	return "Refund of " + amount + " is on its way to your original payment method."
}

// bookingCard is one booking as My bookings lists it.
func bookingCard(b booking.Booking, sh booking.Show, upcoming bool) components.BookingCard {
	return components.BookingCard{
		ID: b.ID, Href: bookingPath(b.ID), Movie: sh.MovieTitle, Theatre: sh.TheatreName, Screen: sh.ScreenName,
		When:  longDate(sh.StartsAt, sh.TimeZone) + ", " + clock(sh.StartsAt, sh.TimeZone) + " " + zoneAbbrev(sh.StartsAt, sh.TimeZone),
		Seats: strings.Join(seatOrder(b.Seats), ", "), Amount: money(b.AmountMinor, b.Currency),
		Cancelled: b.Status == booking.BookingCancelled, Refund: refundText(b.Refund),
		CanCancel: upcoming && b.Status == booking.BookingConfirmed,
	}
}

// bookingsPage lists the caller's bookings: upcoming ones soonest first,
// then past and cancelled ones, latest first.
func (s *server) bookingsPage(c echo.Context) error {
	ctx := c.Request().Context()
	list, err := s.store.Bookings(ctx, userID(c))
	if err != nil {
		return err
	}
	ids := make([]int64, 0, len(list))
	for _, b := range list {
		ids = append(ids, b.ShowID)
	}
	shows, err := s.store.ShowsByID(ctx, ids)
	if err != nil {
		return err
	}
	now, err := s.store.Now(ctx)
	if err != nil {
		return err
	}
	v := components.BookingsView{CSRF: csrfToken(c)}
	type dated struct {
		card  components.BookingCard
		start int64
	}
	var upcoming, past []dated
	for _, b := range list {
		sh := shows[b.ShowID]
		ahead := sh.StartsAt.After(now)
		d := dated{bookingCard(b, sh, ahead), sh.StartsAt.UnixMicro()}
		if ahead && b.Status == booking.BookingConfirmed {
			upcoming = append(upcoming, d)
		} else {
			past = append(past, d)
		}
	}
	slices.SortStableFunc(upcoming, func(a, b dated) int { return cmp.Compare(a.start, b.start) })
	slices.SortStableFunc(past, func(a, b dated) int { return cmp.Compare(b.start, a.start) })
	for _, d := range upcoming {
		v.Upcoming = append(v.Upcoming, d.card)
	}
	for _, d := range past {
		v.Past = append(v.Past, d.card)
	}
	return render(c, http.StatusOK, components.BookingsPage(s.meta(c, "My bookings"), v))
}

// bookingAndShow is one of the caller's bookings with its show.
func (s *server) bookingAndShow(ctx context.Context, user, id string) (booking.Booking, booking.Show, error) {
	b, err := s.store.Booking(ctx, user, id)
	if err != nil {
		return b, booking.Show{}, lookup("booking", err)
	}
	shows, err := s.store.ShowsByID(ctx, []int64{b.ShowID})
	if err != nil {
		return b, booking.Show{}, err
	}
	sh, ok := shows[b.ShowID]
	if !ok {
		return b, sh, notFound("booking")
	}
	return b, sh, nil
}

// cancelPreview says what cancelling the booking now would refund: a
// fragment under its card for htmx, else a page.
func (s *server) cancelPreview(c echo.Context) error {
	ctx := c.Request().Context()
	b, sh, err := s.bookingAndShow(ctx, userID(c), c.Param("booking_id"))
	if err != nil {
		return err
	}
	q, err := s.store.QuoteCancellation(ctx, userID(c), b.ID)
	if err != nil {
		return lookup("booking", err)
	}
	if b.Status == booking.BookingCancelled {
		return seeOther(c, bookingPath(b.ID))
	}
	v := components.CancelView{
		BookingID: b.ID, Href: bookingPath(b.ID), Movie: sh.MovieTitle,
		When:   longDate(sh.StartsAt, sh.TimeZone) + ", " + clock(sh.StartsAt, sh.TimeZone),
		Amount: money(b.AmountMinor, b.Currency), Refund: money(q.AmountMinor, q.Currency),
		Allowed: q.Allowed, CSRF: csrfToken(c),
	}
	if b.AmountMinor > 0 {
		v.Percent = int(q.AmountMinor * 100 / b.AmountMinor)
	}
	if isHTMX(c) {
		return render(c, http.StatusOK, components.CancelPreview(v))
	}
	return render(c, http.StatusOK, components.CancelPage(s.meta(c, "Cancel booking"), v))
}

// cancelBookingPage cancels the booking under the refund policy. Cancelling
// twice answers the same; once the policy no longer allows it, a 409 says so.
func (s *server) cancelBookingPage(c echo.Context) error {
	ctx := c.Request().Context()
	b, err := s.store.CancelBooking(ctx, userID(c), c.Param("booking_id"))
	if err != nil {
		return lookup("booking", err)
	}
	if !isHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/bookings")
	}
	_, sh, err := s.bookingAndShow(ctx, userID(c), b.ID)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, components.BookingItem(bookingCard(b, sh, false), csrfToken(c)))
}
