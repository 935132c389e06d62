package booking

import (
	"time"

	"github.com/marquee-tickets/marquee/internal/money"
)

// What a show sold, as its admins follow it: its seats by state, its money
// taken, kept and owed back.

// SeatTally counts a show's seats by what a moviegoer can do with them now:
// a seat of a lapsed hold is available.
type SeatTally struct {
	Available int
	Held      int
	Booked    int
	Blocked   int
}

// Occupancy is a show's seats and money as of now, for its admins.
type Occupancy struct {
	ShowID     int64
	Status     string // SCHEDULED or CANCELLED
	StartsAt   time.Time
	MovieTitle string
	Currency   string
	// Seats by state. A seat of a lapsed hold counts as available, as the
	// seat map shows it, even before the sweeper has released it.
	Seats SeatTally
	// Money, each summed in numeric (see ShowSales): Overflow rather than
	// a wrapped figure when a sum leaves int64.
	Revenue     money.Total // what the show's confirmed bookings paid
	RefundsOwed money.Total // refunds of the show's payments not yet paid back
	RefundsPaid money.Total // refunds of the show's payments paid back
}

// ShowCancellation is what cancelling a show did.
type ShowCancellation struct {
	ShowID           int64
	HoldsReleased    int // holds still HELD that it ended, their seats back on sale
	BookingsRefunded int // confirmed bookings it cancelled with a full refund
}

// ShowReschedule is what moving a show to another time did. The show keeps
// its id, seats, holds and bookings.
type ShowReschedule struct {
	ShowID int64
	// ID is the move's: its mails and the bookings it took along name it.
	ID             int64
	FromStartsAt   time.Time
	FromEndsAt     time.Time
	StartsAt       time.Time
	EndsAt         time.Time
	BookingsMoved  int // confirmed bookings that moved with the show
	MoviegoersTold int // people e-mailed the new time, once each
}

// ShowAudience is who a change to a show reaches: its confirmed bookings
// and the people they would e-mail, once each (online bookings' moviegoers,
// and counter sales that gave an address).
type ShowAudience struct {
	Bookings int
	People   int
	// Unreachable are the counter sales among Bookings that gave no
	// address: nobody can e-mail them.
	Unreachable int
}

// ShowSales is one show's line of a theatre's sales report, in its
// currency's minor units. Its money comes from the facts the ledger check
// (booking_invariant_violations, I4) balances: the payments taken for the
// show's holds, its bookings, and the refunds of those payments. Where I4
// holds, Taken = Kept + RefundsOwed + RefundsPaid. Each sum is added in
// numeric, which cannot wrap, and is Overflow when it leaves int64.
type ShowSales struct {
	ShowID     int64
	MovieTitle string
	Screen     string
	StartsAt   time.Time
	Status     string // SCHEDULED or CANCELLED
	Currency   string
	Seats      int // seats of the show, whatever their state
	Tickets    int // seats of its confirmed bookings
	// Revenue is what its confirmed bookings were paid.
	Revenue money.Total
	// Taken is every payment received for a hold of the show: bookings,
	// cancelled or not, and payments that bought nothing (late, twice, of
	// the wrong amount).
	Taken money.Total
	// Kept is what the show's bookings were paid less what their
	// cancellations give back: the money that stays.
	Kept money.Total
	// Money owed back, by where the refund stands: every refund of a
	// payment for a hold of the show (a cancelled booking, a payment that
	// bought nothing).
	RefundsOwed   money.Total // not yet paid back: PENDING, or FAILED and being retried
	RefundsPaid   money.Total // SUCCEEDED
	RefundsFailed money.Total // the part of RefundsOwed whose last attempt FAILED
	// Channels splits Tickets and Revenue by how the bookings were sold.
	Channels ChannelSales
}

// Sold is the tickets (seats) and revenue of some of a show's confirmed
// bookings.
type Sold struct {
	Tickets int
	Revenue money.Total
}

// Plus is s and u together; a revenue past int64 is Overflow (see
// money.Total.Plus).
func (s Sold) Plus(u Sold) Sold {
	return Sold{Tickets: s.Tickets + u.Tickets, Revenue: s.Revenue.Plus(u.Revenue)}
}

// ChannelSales splits a show's confirmed bookings by how they were sold:
// online (paid through the payment provider), at the box office in cash or
// by card, and complimentary (given away at the counter, so no revenue).
// Every confirmed booking is in exactly one, so the channels' tickets and
// revenue add up to the show's.
type ChannelSales struct {
	Online        Sold
	Cash          Sold
	Card          Sold
	Complimentary Sold
}

// BoxOffice is what the counter sold for money: cash and card together.
func (c ChannelSales) BoxOffice() Sold { return c.Cash.Plus(c.Card) }

// Plus adds d to c, channel by channel.
func (c ChannelSales) Plus(d ChannelSales) ChannelSales {
	return ChannelSales{
		Online: c.Online.Plus(d.Online), Cash: c.Cash.Plus(d.Cash), Card: c.Card.Plus(d.Card),
		Complimentary: c.Complimentary.Plus(d.Complimentary),
	}
}
