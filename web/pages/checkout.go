package pages

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components/checkout"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/web/session"
)

// PayHold is the Pay button of a hold: it sends the browser to the hold's
// checkout at the provider, the one already open if there is one (the back
// button, a second tab), so the money can be taken once only. Only the
// hold's owner may; anyone else's hold is not found. A paid hold goes to the
// return page, which shows the ticket; one that is no longer live is a
// friendly 409.
func (s *Handlers) PayHold(c echo.Context) error {
	_, co, err := s.BoxOffice.OpenCheckout(c.Request().Context(), session.UserID(c), c.Param("hold_id"))
	var paid *boxoffice.AlreadyPaidError
	if errors.As(err, &paid) {
		return web.SeeOther(c, s.BoxOffice.ReturnURL(c.Param("hold_id")))
	}
	if err != nil {
		return problem.Lookup("hold", err)
	}
	return web.SeeOther(c, co.URL)
}

// CheckoutReturn is the page the provider sends the shopper back to. Its
// query string only names a hold, which must be the caller's: what the page
// says comes from the stored payment outcome (written by the webhook) or,
// before there is one, from asking the provider. It never confirms anything.
func (s *Handlers) CheckoutReturn(c echo.Context) error {
	r, err := s.returnView(c)
	if err != nil {
		return err
	}
	// The page names what was bought (the polled status does not repeat
	// it): the show as it stands, cancelled or not.
	sh, err := s.Store.ShowOrCancelled(c.Request().Context(), r.ShowID)
	if err != nil {
		return err
	}
	r.Show = checkout.ShowLine{
		Movie: sh.MovieTitle, Theatre: sh.TheatreName + " · " + sh.ScreenName,
		When: format.When(sh.StartsAt, sh.TimeZone), Cancelled: sh.Cancelled,
	}
	return web.Render(c, http.StatusOK, checkout.ReturnPage(s.Meta(c, checkout.Title(r)), r))
}

// CheckoutReturnStatus is the return page's changing part, polled by htmx
// while the payment is being confirmed. An htmx poll that finds the state
// the page shows (shown) is answered 204, so nothing is swapped and nothing
// is read out again.
func (s *Handlers) CheckoutReturnStatus(c echo.Context) error {
	r, err := s.returnView(c)
	if err != nil {
		return err
	}
	shown := checkout.State(c.QueryParam("shown"))
	if shown == "" {
		shown = checkout.Confirming
	}
	if r.State.Waiting() && r.State == shown && web.IsHTMX(c) {
		return c.NoContent(http.StatusNoContent)
	}
	return web.Render(c, http.StatusOK, checkout.Status(r))
}

// waitingSince is when the return page began waiting for an outcome: the
// since of its status address, set by the first render; a missing, garbled
// or future one is now. It only decides the page's wording.
func waitingSince(c echo.Context, now time.Time) time.Time {
	since, err := strconv.ParseInt(c.QueryParam("since"), 10, 64)
	if err != nil || since > now.Unix() {
		return now
	}
	return time.Unix(since, 0)
}

// returnView decides what the return page says about the caller's hold.
func (s *Handlers) returnView(c echo.Context) (checkout.Return, error) {
	ctx := c.Request().Context()
	uid := session.UserID(c)
	h, err := s.Store.Hold(ctx, uid, c.QueryParam("hold_id"))
	if err != nil {
		return checkout.Return{}, problem.Lookup("hold", err)
	}
	now, err := s.Store.Now(ctx)
	if err != nil {
		return checkout.Return{}, err
	}
	// Live: it can still be paid. In its payment grace after the deadline
	// it cannot, though a payment made in time may still confirm it.
	r := checkout.Return{
		HoldID: h.ID, Seats: strings.Join(format.SeatOrder(h.Seats), ", "), Amount: format.Money(h.AmountMinor, h.Currency),
		ShowID: h.ShowID, ShowHref: "/shows/" + strconv.FormatInt(h.ShowID, 10), HoldLive: h.Payable(now),
		CSRF: web.CSRFToken(c),
	}
	payments, err := s.Store.PaymentsForHold(ctx, uid, h.ID)
	if err != nil {
		return r, err
	}
	if len(payments) > 0 {
		outcomeView(&r, payments)
		if r.State == checkout.Booked {
			if r.RefundNow, err = s.refundNow(ctx, h.ShowID); err != nil {
				return r, err
			}
			var u auth.User
			if u, err = s.Store.User(ctx, uid); err == nil {
				r.MailedTo = u.Email
			}
		}
		return r, err
	}
	// No outcome stored yet: the webhook may be on its way, or there was
	// no payment. Only the provider can tell; the page only tells, and
	// reconciliation does the rest.
	rep, err := s.BoxOffice.PaymentStatus(ctx, h.ID)
	if err != nil {
		if ctx.Err() == nil {
			s.Log.WarnContext(ctx, "payment status", "hold_id", h.ID, "err", err)
		}
		rep.Status = payment.StatusPending
	}
	switch {
	case rep.Status == payment.StatusDeclined:
		r.State = checkout.Declined
	case rep.Status == payment.StatusNone:
		r.State = checkout.NotPaid
	case rep.Status == payment.StatusPending && !r.HoldLive:
		// An open checkout nobody paid, for a hold that has ended.
		r.State = checkout.NotPaid
	default:
		// Succeeded (the webhook is on its way) or pending while the hold
		// lasts: confirming, and after a while an explanation.
		since := waitingSince(c, now)
		r.Since = since.Unix()
		r.State = checkout.Confirming
		if now.Sub(since) >= s.returnPatience() {
			r.State = checkout.Delayed
		}
	}
	return r, nil
}

// returnPatience is how long the return page says "confirming" before it
// explains instead.
func (s *Handlers) returnPatience() time.Duration {
	if s.Config.ReturnPatience > 0 {
		return s.Config.ReturnPatience
	}
	return time.Minute
}

// outcomeView fills r from the stored payments of its hold, the one that
// booked it first (see Store.PaymentsForHold).
func outcomeView(r *checkout.Return, payments []booking.HoldPayment) {
	first := payments[0]
	if first.Outcome == booking.OutcomeBooked {
		r.State, r.BookingHref = checkout.Booked, "/bookings/"+url.PathEscape(first.BookingID)
		var extra int64
		for _, p := range payments[1:] {
			if p.Refund != nil {
				extra += p.Refund.AmountMinor
			}
		}
		if extra > 0 {
			r.ExtraRefund = format.Money(extra, first.Currency)
		}
		return
	}
	r.State, r.Reason, r.RefundDone = checkout.RefundRequired, refundReason(first.Reason), true
	var owed int64
	for _, p := range payments {
		if p.Refund != nil {
			owed += p.Refund.AmountMinor
			r.RefundDone = r.RefundDone && p.Refund.Status == booking.RefundSucceeded
		}
	}
	r.Refund = format.Money(owed, first.Currency)
}

// refundReason says, for a person, why a payment booked nothing.
func refundReason(reason string) string {
	switch reason {
	case booking.ReasonHoldExpired:
		return "Your hold on these seats had expired before your payment reached us, so the seats were released and not booked."
	case booking.ReasonHoldCancelled:
		return "You had released these seats before your payment reached us, so they were not booked."
	case booking.ReasonAmountMismatch:
		return "The payment did not match the price of your seats, so nothing was booked."
	case booking.ReasonAlreadyConfirmed:
		return "These seats had already been paid for by an earlier payment."
	}
	return "Your payment arrived but could not be used to book these seats."
}

// refundNow says what cancelling a booking of showID gives back from now
// on, in the words of the hold panel before Pay.
func (s *Handlers) refundNow(ctx context.Context, showID int64) (string, error) {
	sh, err := s.Store.Show(ctx, showID)
	if err != nil {
		return "", err
	}
	terms, err := s.Store.CancellationTerms(ctx, showID)
	if err != nil {
		return "", err
	}
	return format.RefundNow(terms.Policy, terms.StartsAt, terms.Now, sh.TimeZone), nil
}
