package booking

import (
	"errors"
	"fmt"
)

// Customer service: what a theatre's staff do with one booking.

// StaffRefund is a booking its theatre cancels and refunds: in full, or
// what its refund policy gives back at the time; Reason says why, for the
// audit log.
type StaffRefund struct {
	Full   bool
	Reason string
}

// Why a booking cannot move to another show.
var (
	ErrSameShow       = errors.New("the booking is already for that show")
	ErrOtherMovie     = errors.New("a booking moves only to another show of the same movie")
	ErrAdmitted       = errors.New("the booking was admitted at the door")
	ErrBookingChanged = errors.New("the booking changed while it was being moved")
)

// ErrNoCounterRefund is a counter refund recorded as handed back for a
// booking that owes none: not sold at the counter, or not refunded.
var ErrNoCounterRefund = errors.New("no refund is owed at the counter for this booking")

// PriceDiffersError is a move to seats that cost Asked where the booking
// paid Paid: a move keeps the price (else refund it and sell the new seats).
type PriceDiffersError struct {
	Paid, Asked int64
	Currency    string
}

func (e *PriceDiffersError) Error() string {
	return fmt.Sprintf("the new seats cost %d %s, the booking paid %d", e.Asked, e.Currency, e.Paid)
}
