// Package boxoffice is the booking use cases below HTTP: holding and
// releasing seats, opening a checkout, receiving payments and cancelling
// bookings, as the JSON API, the pages and the workers perform them.
package boxoffice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// Service is the box office on a store and a payment provider.
type Service struct {
	Store *postgres.Store
	// Payments is the provider checkouts go to; with none, every checkout
	// is ErrProviderUnavailable.
	Payments payment.Provider
	Metrics  *metrics.Metrics
	// HoldTTL is how long held seats stay held; MaxSeats the most one hold
	// may take.
	HoldTTL  time.Duration
	MaxSeats int
	// PaymentGrace is how long a hold a checkout was opened for keeps its
	// seats after its deadline, for a payment captured before it whose
	// report comes late.
	PaymentGrace time.Duration
	// Caps bound the seats one client network may hold at once; zero,
	// none.
	Caps booking.ClientCaps
	// PublicURL is the app's base URL, for the pages the provider sends
	// the shopper back to.
	PublicURL string
	Log       *slog.Logger
	// Rooms, when set, gate holds of shows whose waiting room is on.
	Rooms *Rooms
}

// Errors of the use cases that are not the store's.
var (
	// ErrProviderUnavailable: the provider did not open a checkout; the
	// hold is untouched.
	ErrProviderUnavailable = errors.New("payment provider unavailable")
)

// HoldNotActiveError is a checkout refused because its hold has ended.
type HoldNotActiveError struct{ State booking.HoldState }

func (e *HoldNotActiveError) Error() string { return "hold is " + string(e.State) + ", not held" }

// Hold claims seats of a show for a user, all or nothing, and counts the
// attempt in the metrics. req.TTL is the service's HoldTTL, req.Caps its
// Caps on what req.Client may hold, which the caller sets to the network
// the request came from.
func (s *Service) Hold(ctx context.Context, req booking.HoldRequest) (booking.HoldResult, error) {
	req.TTL, req.Caps = s.HoldTTL, s.Caps
	start := time.Now()
	admitted, err := s.Rooms.admit(ctx, req.ShowID, req.Ticket, req.UserID)
	if err != nil {
		s.countHold(booking.HoldResult{}, err)
		return booking.HoldResult{}, err
	}
	res, err := s.Store.HoldSeats(ctx, req, s.MaxSeats)
	if err == nil && admitted {
		// The admission lasts as long as the hold may: until its payment
		// grace would end.
		err = s.Store.ExtendAdmission(ctx, req.ShowID, req.UserID, res.Hold.ExpiresAt.Add(s.PaymentGrace))
	}
	s.Metrics.HoldLatency.Observe(time.Since(start).Seconds())
	s.countHold(res, err)
	return res, err
}

// countHold records a hold attempt's outcome in the metrics.
func (s *Service) countHold(res booking.HoldResult, err error) {
	var (
		taken   *booking.SeatsUnavailableError
		active  *booking.ActiveHoldError
		unknown *booking.UnknownSeatsError
		dup     *booking.DuplicateSeatsError
		tooMany *booking.TooManySeatsError
		badSeat *booking.InvalidSeatError
		capped  *booking.HeldSeatsCapError
		orphan  *booking.OrphanSeatError
	)
	outcome := "error"
	switch {
	case err == nil && res.Replayed:
		outcome = "replayed"
	case err == nil:
		outcome = "held"
	case errors.As(err, &taken):
		outcome = "conflict"
		s.Metrics.SeatConflicts.Add(float64(len(taken.Seats)))
	case errors.As(err, &active):
		outcome = "active_hold"
	case errors.As(err, &capped):
		outcome = "address_cap"
	case errors.As(err, &orphan):
		outcome = "orphan_seat"
	case errors.Is(err, booking.ErrNotFound):
		outcome = "not_found"
	case errors.Is(err, booking.ErrShowClosed):
		outcome = "closed"
	case errors.Is(err, booking.ErrNotEnoughSeats):
		outcome = "not_enough"
	case errors.Is(err, waitroom.ErrQueueRequired):
		outcome = "queue_required"
	case errors.As(err, &unknown), errors.As(err, &dup), errors.As(err, &tooMany), errors.As(err, &badSeat),
		errors.Is(err, booking.ErrNoSeats), errors.Is(err, booking.ErrKeyReused), errors.Is(err, booking.ErrInvalidParty):
		outcome = "invalid"
	}
	s.Metrics.HoldAttempts.WithLabelValues(outcome).Inc()
}

// Release gives a user's held seats back, and says the show's refund terms
// as they stand now. An expired or cancelled hold is returned as it is; a
// paid one is booking.ErrHoldConfirmed.
func (s *Service) Release(ctx context.Context, userID, holdID string) (booking.HoldResult, error) {
	res, err := s.Store.ReleaseHold(ctx, userID, holdID)
	if err != nil || res.Hold.State != booking.HoldCancelled {
		return res, err
	}
	// A release ends the admission it was made under, after a moment to
	// choose other seats.
	if on, err := s.Rooms.Enabled(ctx, res.Hold.ShowID); err != nil || !on {
		return res, err
	}
	return res, s.Store.ShortenAdmission(ctx, res.Hold.ShowID, userID, waitroom.Repick)
}

// CancelBooking cancels a user's booking under its theatre's refund policy.
// Cancelling again answers the same; booking.ErrCancellationClosed once the
// policy no longer allows it.
func (s *Service) CancelBooking(ctx context.Context, userID, bookingID string) (booking.Booking, error) {
	return s.Store.CancelBooking(ctx, userID, bookingID)
}

// ReturnURL is the page the provider sends the shopper back to after paying
// for hold holdID. It carries the hold id only to say which hold to show:
// the page believes nothing of it beyond that.
func (s *Service) ReturnURL(holdID string) string {
	return strings.TrimRight(s.PublicURL, "/") + "/checkout/return?hold_id=" + url.QueryEscape(holdID)
}

// showURL is the show's page, where a shopper who leaves the provider
// without paying goes back to.
func (s *Service) showURL(showID int64) string {
	return strings.TrimRight(s.PublicURL, "/") + "/shows/" + strconv.FormatInt(showID, 10)
}

// OpenCheckout asks the provider, server to server, for a hosted checkout of
// the user's live hold and returns it: the one already open for the hold if
// there is one (Reused), so a shopper who comes back to pay again (the back
// button, a second tab) lands on the same checkout and can be charged once
// only. Before the provider is asked, the hold is given its payment grace
// and reconciliation watches it (Store.PrepareCheckout), so a payment made
// in time whose webhook is lost still ends in a booking, and any other in a
// refund.
//
// A hold that is paid is an *AlreadyPaidError, whether its booking is
// stored or the provider took the money and its report is still on its way
// (the charges the provider reports are then received at once, as
// reconciliation would). A hold that can no longer be paid is a
// *HoldNotActiveError (EXPIRED once its deadline has passed, even in its
// payment grace); a provider that fails, ErrProviderUnavailable.
func (s *Service) OpenCheckout(ctx context.Context, userID, holdID string) (booking.Hold, payment.Checkout, error) {
	var none payment.Checkout
	if s.Payments == nil {
		h, err := s.Store.Hold(ctx, userID, holdID)
		switch {
		case err != nil:
			return h, none, err
		case h.State != booking.HoldHeld:
			return h, none, &HoldNotActiveError{State: h.State}
		}
		return h, none, ErrProviderUnavailable
	}
	h, payable, err := s.Store.PrepareCheckout(ctx, userID, holdID, s.PaymentGrace)
	switch {
	case err != nil:
		return h, none, err
	case h.State == booking.HoldConfirmed:
		return h, none, s.alreadyPaid(ctx, h)
	case h.State == booking.HoldHeld && !payable:
		// In its payment grace: paid in time with the report on its way,
		// or not paid, and then it is too late to.
		return h, none, s.receiveOrRefuse(ctx, h)
	case !payable:
		return h, none, &HoldNotActiveError{State: h.State}
	}
	co, err := s.Payments.CreateCheckout(ctx, h, payment.Links{Return: s.ReturnURL(h.ID), Back: s.showURL(h.ShowID)})
	switch {
	case errors.Is(err, payment.ErrAlreadyPaid):
		return h, none, s.receiveOrRefuse(ctx, h)
	case errors.Is(err, payment.ErrDeadlinePassed):
		// The deadline came between the store's look and the provider's.
		return h, none, &HoldNotActiveError{State: booking.HoldExpired}
	case err != nil:
		if ctx.Err() == nil {
			s.Log.ErrorContext(ctx, "create checkout", "hold_id", h.ID, "err", err)
		}
		return h, none, ErrProviderUnavailable
	}
	return h, co, nil
}

// AlreadyPaidError is a checkout refused because its hold is paid. BookingID
// is the booking the payment made; "" if the payment booked nothing (it is
// then being refunded, and the return page says why).
type AlreadyPaidError struct{ BookingID string }

func (e *AlreadyPaidError) Error() string { return "hold already paid (booking " + e.BookingID + ")" }

// receiveOrRefuse answers a checkout asked for hold h that cannot take new
// money, paid or not: it asks the provider, receives every charge it
// reports exactly as reconciliation would (so a payment whose webhook is
// late books now), and answers *AlreadyPaidError if there was one, else
// *HoldNotActiveError (EXPIRED).
func (s *Service) receiveOrRefuse(ctx context.Context, h booking.Hold) error {
	rep, err := s.Payments.PaymentStatus(ctx, h.ID)
	if err != nil {
		if ctx.Err() == nil {
			s.Log.ErrorContext(ctx, "payment status", "hold_id", h.ID, "err", err)
		}
		return ErrProviderUnavailable
	}
	if rep.Status != payment.StatusSucceeded || len(rep.Charges) == 0 {
		return &HoldNotActiveError{State: booking.HoldExpired}
	}
	receiver := s.Receiver()
	for _, p := range rep.Charges {
		var mismatch *booking.AmountMismatchError
		if _, err := receiver.Receive(ctx, p, true); err != nil && !errors.As(err, &mismatch) {
			return fmt.Errorf("receive payment %s of hold %s: %w", p.ID, h.ID, err)
		}
	}
	return s.alreadyPaid(ctx, h)
}

// alreadyPaid is the *AlreadyPaidError of paid hold h, with its booking.
func (s *Service) alreadyPaid(ctx context.Context, h booking.Hold) error {
	payments, err := s.Store.PaymentsForHold(ctx, h.UserID, h.ID)
	if err != nil {
		return err
	}
	e := &AlreadyPaidError{}
	if len(payments) > 0 && payments[0].Outcome == booking.OutcomeBooked {
		e.BookingID = payments[0].BookingID
	}
	return e
}

// PaymentStatus asks the provider how paying for hold holdID went.
func (s *Service) PaymentStatus(ctx context.Context, holdID string) (payment.Report, error) {
	if s.Payments == nil {
		return payment.Report{}, ErrProviderUnavailable
	}
	return s.Payments.PaymentStatus(ctx, holdID)
}

// Receiver records the payments the provider reports: by webhook, and by
// reconciliation.
func (s *Service) Receiver() *Receiver {
	return &Receiver{Store: s.Store, Metrics: s.Metrics}
}
