package booking

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of the domain. The web layer maps each to a status code
// and a message a person understands; their text is for logs and tests.
var (
	ErrNotFound           = errors.New("not found")
	ErrShowClosed         = errors.New("show is no longer on sale")
	ErrNoSeats            = errors.New("no seats requested")
	ErrInvalidParty       = errors.New("best available: wheelchair spaces beyond the seats, or a category no layout names")
	ErrNotEnoughSeats     = errors.New("fewer seats of that kind are free than asked for")
	ErrKeyReused          = errors.New("idempotency key reused with a different request")
	ErrHoldConfirmed      = errors.New("hold is confirmed")
	ErrCancellationClosed = errors.New("cancellation is closed")
	ErrPaymentConflict    = errors.New("payment id reused with a different hold, amount or currency")
	ErrNoTicket           = errors.New("booking is not confirmed: it has no ticket")
)

// SeatsUnavailableError names the seats someone else holds or has booked.
type SeatsUnavailableError struct{ Seats []string }

func (e *SeatsUnavailableError) Error() string {
	return "seats unavailable: " + strings.Join(e.Seats, ", ")
}

// OrphanSeatError is a hold of seats picked by hand refused under its
// theatre's orphan rule: it would leave Seats empty, each alone in its row.
// Suggestion is the nearest choice of as many seats that leaves nobody
// alone (a hold with none to offer is not refused).
type OrphanSeatError struct{ Seats, Suggestion []string }

func (e *OrphanSeatError) Error() string {
	return "would leave " + strings.Join(e.Seats, ", ") + " alone; suggested instead: " + strings.Join(e.Suggestion, ", ")
}

// UnknownSeatsError names seats the show does not have.
type UnknownSeatsError struct{ Seats []string }

func (e *UnknownSeatsError) Error() string {
	return "unknown seats: " + strings.Join(e.Seats, ", ")
}

// DuplicateSeatsError names seats asked for more than once.
type DuplicateSeatsError struct{ Seats []string }

func (e *DuplicateSeatsError) Error() string {
	return "duplicate seats: " + strings.Join(e.Seats, ", ")
}

// TooManySeatsError is a request over the per-hold seat cap.
type TooManySeatsError struct{ Asked, Max int }

func (e *TooManySeatsError) Error() string {
	return fmt.Sprintf("%d seats asked, at most %d per hold", e.Asked, e.Max)
}

// InvalidSeatError is a seat id that cannot name any seat.
type InvalidSeatError struct{ Seat string }

func (e *InvalidSeatError) Error() string { return fmt.Sprintf("invalid seat id %q", e.Seat) }

// ActiveHoldError is a hold refused because the user already holds seats.
type ActiveHoldError struct{ HoldID string }

func (e *ActiveHoldError) Error() string { return "user already has active hold " + e.HoldID }

// AmountMismatchError is a payment whose amount or currency differs from its
// hold. It is recorded with a refund obligation, and reported as an error.
type AmountMismatchError struct{ Confirmation Confirmation }

func (e *AmountMismatchError) Error() string {
	return "payment " + e.Confirmation.PaymentID + " does not match the amount of hold " + e.Confirmation.HoldID
}
