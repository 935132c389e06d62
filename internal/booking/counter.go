package booking

import (
	"errors"
	"strings"
)

// Channel is how a booking was sold.
type Channel string

// The channels.
const (
	Online        Channel = "online"
	BoxOffice     Channel = "box_office"
	Complimentary Channel = "complimentary"
)

// PaidBy is how a counter sale was paid.
type PaidBy string

// How the box office takes money, or gives the seats away.
const (
	PaidCash          PaidBy = "cash"
	PaidCard          PaidBy = "card"
	PaidComplimentary PaidBy = "complimentary"
)

// CounterPaymentPrefix starts the id of a payment taken at the counter: no
// provider holds it, so a refund of it is handed back at the counter.
const CounterPaymentPrefix = "counter_"

// CounterPayment reports whether payment id was taken at the counter.
func CounterPayment(id string) bool { return strings.HasPrefix(id, CounterPaymentPrefix) }

// CounterSale is seats sold at the box office, by Seller (staff), paid by
// PaidBy, for a customer named Name (and e-mailed at Email, if given);
// complimentary seats carry a Reason and cost nothing. Key makes a retry
// of one sale the same sale.
type CounterSale struct {
	ShowID int64
	Seats  []string
	Seller string
	PaidBy PaidBy
	Name   string
	Email  string
	Reason string
	Key    string
}

// ErrSaleLapsed is a counter sale whose seats were let go between their
// hold and their booking (the app stalled for a minute): nothing was sold.
var ErrSaleLapsed = errors.New("booking: the counter sale's hold lapsed before it was booked")
