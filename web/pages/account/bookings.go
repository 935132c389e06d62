package account

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web/session"
)

// My bookings: upcoming and past, and cancelling with a refund preview.

func bookingPath(id string) string { return "/bookings/" + url.PathEscape(id) }

// refundText says what a cancelled booking gets back, and how far along.
func refundText(r *booking.Refund) string {
	if r == nil {
		return ""
	}
	if r.AmountMinor == 0 {
		return "No refund was due under the theatre's refund policy."
	}
	amount := format.Money(r.AmountMinor, r.Currency)
	switch r.Status {
	case booking.RefundSucceeded:
		return "Refund of " + amount + " paid to your original payment method."
	case booking.RefundFailed:
		return "Refund of " + amount + " is being retried; it is on its way."
	}
	return "Refund of " + amount + " is on its way to your original payment method."
}

// bookingCard is one booking as My bookings lists it. q is what cancelling
// it now would give back, for an upcoming one (nil for a past one).
func bookingCard(b booking.Booking, sh catalog.Show, q *booking.RefundQuote) components.BookingCard {
	live := q != nil && b.Status == booking.BookingConfirmed
	canCancel := live && q.Allowed
	card := components.BookingCard{
		ID: b.ID, Href: bookingPath(b.ID), Movie: sh.MovieTitle, Theatre: sh.TheatreName, Screen: sh.ScreenName,
		When:  showWhen(sh),
		Seats: strings.Join(format.SeatOrder(b.Seats), ", "), Amount: format.Money(b.AmountMinor, b.Currency),
		Cancelled: b.Status == booking.BookingCancelled, Refund: refundText(b.Refund),
		ByTheatre: b.Status == booking.BookingCancelled && b.CancelledBy == booking.CancelledByTheatre,
		CanCancel: canCancel, CancelClosed: live && !canCancel,
	}
	if live {
		card.RefundNow = refundNow(*q, sh)
		card.Moved = movedText(b, sh)
	}
	return card
}

// movedText says that the theatre moved the booking's show after it was
// booked, from when to when; "" when it did not.
func movedText(b booking.Booking, sh catalog.Show) string {
	if b.Moved == nil {
		return ""
	}
	return "The theatre moved this show from " + format.When(b.Moved.From, sh.TimeZone) + " to " + showWhen(sh) + "."
}

// refundNow says what cancelling a booking gives back from now on, in the
// words and times the hold panel used before paying.
func refundNow(q booking.RefundQuote, sh catalog.Show) string {
	return format.RefundNow(q.Policy, q.StartsAt, q.Now, sh.TimeZone)
}

func showWhen(sh catalog.Show) string {
	return format.When(sh.StartsAt, sh.TimeZone)
}

// paymentReason says, in a line, why a refunded payment bought nothing.
func paymentReason(reason string) string {
	switch reason {
	case booking.ReasonHoldExpired:
		return "The payment reached us after your hold on these seats had expired, so they were not booked."
	case booking.ReasonHoldCancelled:
		return "You had released these seats before the payment reached us, so they were not booked."
	case booking.ReasonAlreadyConfirmed:
		return "These seats were already paid for by another payment: this one was extra."
	case booking.ReasonAmountMismatch:
		return "The payment did not match the price of the seats, so nothing was booked."
	}
	return "The payment could not be used to book seats."
}

// BookingsPage lists the caller's bookings and refunded payments.
func (s *Handlers) BookingsPage(c echo.Context) error {
	v, err := s.bookingsView(c.Request().Context(), session.UserID(c))
	if err != nil {
		return err
	}
	v.CSRF = web.CSRFToken(c)
	return web.Render(c, http.StatusOK, components.BookingsPage(s.Meta(c, "My bookings"), v))
}

// bookingsView is My bookings of user: upcoming bookings soonest first, the
// payments that bought nothing and are refunded, then past and cancelled
// bookings, latest first.
func (s *Handlers) bookingsView(ctx context.Context, user string) (components.BookingsView, error) {
	var v components.BookingsView
	list, err := s.Store.Bookings(ctx, user)
	if err != nil {
		return v, err
	}
	refunded, err := s.Store.RefundedPayments(ctx, user)
	if err != nil {
		return v, err
	}
	ids := make([]int64, 0, len(list)+len(refunded))
	for _, b := range list {
		ids = append(ids, b.ShowID)
	}
	for _, p := range refunded {
		ids = append(ids, p.ShowID)
	}
	shows, err := s.Store.ShowsByID(ctx, ids)
	if err != nil {
		return v, err
	}
	now, err := s.Store.Now(ctx)
	if err != nil {
		return v, err
	}
	type dated struct {
		card  components.BookingCard
		start int64
	}
	var upcoming, past []dated
	for _, b := range list {
		sh := shows[b.ShowID]
		ahead := sh.StartsAt.After(now)
		if !ahead || b.Status != booking.BookingConfirmed {
			past = append(past, dated{bookingCard(b, sh, nil), sh.StartsAt.UnixMicro()})
			continue
		}
		// Offer cancelling only while the refund policy allows it.
		q, err := s.Store.QuoteCancellation(ctx, user, b.ID)
		if err != nil {
			return v, err
		}
		upcoming = append(upcoming, dated{bookingCard(b, sh, &q), sh.StartsAt.UnixMicro()})
	}
	slices.SortStableFunc(upcoming, func(a, b dated) int { return cmp.Compare(a.start, b.start) })
	slices.SortStableFunc(past, func(a, b dated) int { return cmp.Compare(b.start, a.start) })
	for _, d := range upcoming {
		v.Upcoming = append(v.Upcoming, d.card)
	}
	for _, d := range past {
		v.Past = append(v.Past, d.card)
	}
	for _, p := range refunded {
		sh := shows[p.ShowID]
		v.Refunded = append(v.Refunded, components.RefundedCard{
			ID: p.PaymentID, Movie: sh.MovieTitle, Theatre: sh.TheatreName, When: showWhen(sh),
			Seats: strings.Join(format.SeatOrder(p.Seats), ", "), Amount: format.Money(p.AmountMinor, p.Currency),
			Why: paymentReason(p.Reason), Refund: refundText(&p.Refund), Refunded: p.Refund.Status == booking.RefundSucceeded,
		})
	}
	return v, nil
}

// bookingAndShow is one of the caller's bookings with its show.
func (s *Handlers) bookingAndShow(ctx context.Context, user, id string) (booking.Booking, catalog.Show, error) {
	b, err := s.Store.Booking(ctx, user, id)
	if err != nil {
		return b, catalog.Show{}, problem.Lookup("booking", err)
	}
	shows, err := s.Store.ShowsByID(ctx, []int64{b.ShowID})
	if err != nil {
		return b, catalog.Show{}, err
	}
	sh, ok := shows[b.ShowID]
	if !ok {
		return b, sh, problem.NotFound("booking")
	}
	return b, sh, nil
}

// CancelPreview says what cancelling the booking now would refund: a
// fragment under its card for htmx, else a page.
func (s *Handlers) CancelPreview(c echo.Context) error {
	ctx := c.Request().Context()
	b, sh, err := s.bookingAndShow(ctx, session.UserID(c), c.Param("booking_id"))
	if err != nil {
		return err
	}
	q, err := s.Store.QuoteCancellation(ctx, session.UserID(c), b.ID)
	if err != nil {
		return problem.Lookup("booking", err)
	}
	if b.Status == booking.BookingCancelled {
		return web.SeeOther(c, bookingPath(b.ID))
	}
	v := components.CancelView{
		BookingID: b.ID, Href: bookingPath(b.ID), Movie: sh.MovieTitle,
		When:   format.When(sh.StartsAt, sh.TimeZone),
		Amount: format.Money(b.AmountMinor, b.Currency), Refund: format.Money(q.AmountMinor, q.Currency),
		Tier: refundNow(q, sh), Moved: b.Moved != nil, Allowed: q.Allowed, InList: web.IsHTMX(c), CSRF: web.CSRFToken(c),
	}
	if b.AmountMinor > 0 {
		v.Percent = int(q.AmountMinor * 100 / b.AmountMinor)
	}
	if web.IsHTMX(c) {
		return web.Render(c, http.StatusOK, components.CancelPreview(v))
	}
	return web.Render(c, http.StatusOK, components.CancelPage(s.Meta(c, "Cancel booking"), v))
}

// CancelBookingPage cancels the booking under the refund policy. Cancelling
// twice answers the same; once the policy no longer allows it, a 409 says so.
// htmx gets My bookings' lists again, the booking now under Past and
// cancelled, with a notice of what was cancelled.
func (s *Handlers) CancelBookingPage(c echo.Context) error {
	ctx := c.Request().Context()
	b, err := s.BoxOffice.CancelBooking(ctx, session.UserID(c), c.Param("booking_id"))
	if err != nil {
		return problem.Lookup("booking", err)
	}
	if !web.IsHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/bookings")
	}
	_, sh, err := s.bookingAndShow(ctx, session.UserID(c), b.ID)
	if err != nil {
		return err
	}
	v, err := s.bookingsView(ctx, session.UserID(c))
	if err != nil {
		return err
	}
	v.CSRF = web.CSRFToken(c)
	v.Notice = "Booking cancelled: " + sh.MovieTitle + ", " + showWhen(sh) + ". " + refundText(b.Refund)
	return web.Render(c, http.StatusOK, components.BookingsLists(v))
}
