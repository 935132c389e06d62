// Package booking holds how a seat is sold: seats of a show, holds,
// payments, bookings, refunds and the rules between them. What is on sale
// (theatres, screens, movies, shows and their prices) is internal/catalog's,
// who buys it internal/auth's. It knows nothing of HTTP or SQL; the store in
// internal/postgres enforces these rules under concurrency.
package booking

import (
	"time"
)

// SeatStatus is the state of one seat in one show.
type SeatStatus string

const (
	SeatAvailable SeatStatus = "AVAILABLE"
	SeatHeld      SeatStatus = "HELD"
	SeatBooked    SeatStatus = "BOOKED"
	// SeatBlocked is a seat its theatre took off sale: not for sale to anyone.
	SeatBlocked SeatStatus = "BLOCKED"
)

// HoldState is the life of a hold: HELD, then exactly one terminal state.
type HoldState string

const (
	HoldHeld      HoldState = "HELD"
	HoldConfirmed HoldState = "CONFIRMED"
	HoldExpired   HoldState = "EXPIRED"
	HoldCancelled HoldState = "CANCELLED"
)

// Hold is a user's all-or-nothing claim on seats of one show until ExpiresAt.
// It can be paid while now < ExpiresAt, and not from ExpiresAt on, exactly.
// Once a checkout was opened for it, it keeps its seats for PaymentGrace
// more, so that a payment the provider captured before the deadline still
// books it when its report comes late; without one it lets them go at
// ExpiresAt.
type Hold struct {
	ID           string
	UserID       string
	ShowID       int64
	Seats        []string // sorted, distinct
	State        HoldState
	ExpiresAt    time.Time
	PaymentGrace time.Duration // zero until a checkout is opened
	AmountMinor  int64
	Currency     string
	CreatedAt    time.Time
}

// LetsGoAt is when a hold still marked HELD gives its seats back: its
// deadline, plus its payment grace once a checkout was opened.
func (h Hold) LetsGoAt() time.Time { return h.ExpiresAt.Add(h.PaymentGrace) }

// Lapsed reports whether a hold still marked HELD has let its seats go.
func (h Hold) Lapsed(now time.Time) bool {
	return h.State == HoldHeld && !now.Before(h.LetsGoAt())
}

// Payable reports whether a hold can still take money at now: HELD and
// before its deadline.
func (h Hold) Payable(now time.Time) bool {
	return h.State == HoldHeld && now.Before(h.ExpiresAt)
}

// PaidInTime reports whether a payment received at now, which the provider
// captured at captured (zero: it did not say), books hold h: h is HELD and
// has not let its seats go, and the payment arrived before the deadline or
// was captured before it.
func (h Hold) PaidInTime(captured, now time.Time) bool {
	if h.State != HoldHeld || h.Lapsed(now) {
		return false
	}
	return now.Before(h.ExpiresAt) || (!captured.IsZero() && captured.Before(h.ExpiresAt))
}

// Seat is one seat of a show as the seat map shows it.
type Seat struct {
	ID         string
	Row        string
	Number     int
	GridRow    int
	GridCol    int
	Accessible bool
	// Companion is a seat beside a wheelchair space, meant for the
	// wheelchair user's companion.
	Companion  bool
	Category   string
	PriceMinor int64
	Currency   string
	Status     SeatStatus
	Mine       bool   // held by the viewer's own active hold
	HolderID   string // the user whose live hold holds it; never shown to others
	// HeldUntil is when the live hold of a held seat lets it go (its
	// deadline, or the end of its payment grace); zero for other seats. A
	// copy of the map kept in memory frees the seat at that moment without
	// asking the database.
	HeldUntil time.Time
}

// FreeAt returns seat as it is at now: a held seat whose hold has let it go
// by then is available.
func (s Seat) FreeAt(now time.Time) Seat {
	if s.Status == SeatHeld && !s.HeldUntil.IsZero() && !now.Before(s.HeldUntil) {
		s.Status, s.HolderID, s.HeldUntil, s.Mine = SeatAvailable, "", time.Time{}, false
	}
	return s
}

// BookingStatus is the state of a confirmed purchase.
type BookingStatus string

const (
	BookingConfirmed BookingStatus = "CONFIRMED"
	BookingCancelled BookingStatus = "CANCELLED"
)

// Who cancelled a booking: its moviegoer, under the theatre's refund
// policy, or the theatre, cancelling the show (a full refund).
const (
	CancelledByMoviegoer = "moviegoer"
	CancelledByTheatre   = "theatre"
)

// Booking is a paid hold: seats sold to a user, with the payment as evidence.
type Booking struct {
	ID          string
	HoldID      string
	UserID      string
	ShowID      int64
	Seats       []string
	Status      BookingStatus
	AmountMinor int64
	Currency    string
	PaymentID   string
	Code        string // the ticket code, shown as a QR
	CreatedAt   time.Time
	CancelledAt *time.Time
	CancelledBy string  // for a cancelled booking: CancelledByMoviegoer or CancelledByTheatre
	Channel     Channel // how it was sold
	Refund      *Refund // set once the booking is cancelled
	// Moved is the latest move of its show by the theatre that took this
	// booking along (it was confirmed then); nil when the show has not
	// moved since it was booked.
	Moved *Move
}

// Move is a show its theatre moved to another time, as one of the bookings
// it took along sees it.
type Move struct {
	From time.Time // the show's start before the move
	To   time.Time // its start after it
	At   time.Time // when the theatre moved it
}

// RefundStatus is the progress of money owed back to a customer.
type RefundStatus string

const (
	RefundPending   RefundStatus = "PENDING"
	RefundSucceeded RefundStatus = "SUCCEEDED"
	RefundFailed    RefundStatus = "FAILED" // and being retried
)

// Refund is an obligation to pay money back, executed by the refund worker.
type Refund struct {
	ID          string
	PaymentID   string
	AmountMinor int64
	Currency    string
	Reason      string
	Status      RefundStatus
	Attempts    int // calls made to the provider so far
}
