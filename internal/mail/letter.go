package mail

import (
	"context"
	"fmt"
	"strings"

	"github.com/a-h/templ"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
)

var bgContext = context.Background()

// letter is one mail's content, written once and shown twice: as HTML and
// as plain text.
type letter struct {
	Subject string
	Heading string
	Paras   []string
	// Tickets are the bookings shown in full; with QR set, each with its
	// code as a QR image (inline, by its content id).
	Tickets []ticket
	QR      bool
	// Details are label/value lines (the staff's mail about a refund).
	Details [][2]string
	Link    *link
	Footer  string

	Inline, Attached []part
}

type ticket struct {
	Movie, When, Theatre, Address, Screen string
	Seats, Code, Amount                   string
	QRContentID                           string
}

type link struct{ Label, URL string }

// part is a file of the message: an inline image or an attachment.
type part struct {
	Name, Type, ContentID string
	Data                  []byte
}

// refundArrives is what a moviegoer may expect of a refund on its way.
const refundArrives = "It goes back to the card or account you paid with; banks usually show it within 5 to 10 working days. We will e-mail you when it has been paid."

func letterOf(site Site, f Facts) (letter, error) {
	var l letter
	movie, at := f.Show.Movie, when(f)
	l.Footer = fmt.Sprintf("%s. You receive this e-mail because of a booking made with %s on Marquee.", place(f.Theatre.Name, f.Theatre.Address), f.To.Email)
	switch f.Kind {
	case Ticket, TicketResent, BookingMoved:
		l.Subject = fmt.Sprintf("Your tickets: %s, %s", movie, shortWhen(f))
		l.Heading = "You're booked for " + movie
		l.Paras = []string{"Show the QR code below at the entrance, on your phone or printed."}
		switch f.Kind {
		case TicketResent:
			l.Subject = "Your tickets (sent again): " + movie + ", " + shortWhen(f)
			l.Heading = "Your tickets for " + movie + ", sent again"
		case BookingMoved:
			l.Subject = "Your booking has moved: " + movie + ", " + shortWhen(f)
			l.Heading = "Your booking is now for " + at
			l.Paras = []string{fmt.Sprintf("As agreed with %s, your booking has moved to %s on %s. The ticket you had before no longer admits: show the QR code below at the entrance, on your phone or printed.",
				f.Theatre.Name, movie, at)}
		}
		l.QR = true
		for _, b := range f.Bookings {
			t := ticketOf(f, b)
			png, err := qrcode.Encode(site.ticketCode(b, f.Show.ID), qrcode.Medium, 256)
			if err != nil {
				return letter{}, fmt.Errorf("mail %d: QR code: %w", f.ID, err)
			}
			t.QRContentID = "qr-" + b.Code + "@marquee"
			l.Inline = append(l.Inline, part{Name: "ticket-" + b.Code + ".png", Type: "image/png", ContentID: t.QRContentID, Data: png})
			l.Tickets = append(l.Tickets, t)
			ics, err := calendar(site, f, b)
			if err != nil {
				return letter{}, err
			}
			l.Attached = append(l.Attached, part{Name: "show.ics", Type: "text/calendar; method=PUBLISH", Data: ics})
		}
		l.Paras = append(l.Paras, "Cancelling: "+format.RefundNow(f.Policy, f.Show.StartsAt, f.Now, f.Theatre.TimeZone)+
			" (times in the theatre's time zone).")
		if len(f.Bookings) > 0 {
			l.Link = &link{"View your ticket", site.PublicURL + "/bookings/" + f.Bookings[0].ID}
		}
	case BookingCancelled:
		l.Subject = fmt.Sprintf("Booking cancelled: %s, %s", movie, shortWhen(f))
		l.Heading = "Your booking is cancelled"
		for _, b := range f.Bookings {
			seats := strings.Join(b.Seats, ", ")
			if b.ByTheatre {
				l.Paras = append(l.Paras, fmt.Sprintf("%s has cancelled your booking %s for %s on %s (seats %s).",
					f.Theatre.Name, b.Code, movie, at, seats))
			} else {
				l.Paras = append(l.Paras, fmt.Sprintf("You cancelled your booking %s for %s on %s (seats %s).", b.Code, movie, at, seats))
			}
			switch {
			case b.RefundMinor > 0 && b.AtCounter:
				l.Paras = append(l.Paras, fmt.Sprintf("You get back %s of the %s you paid. As you paid at the box office, it is paid back there, not online.",
					format.Money(b.RefundMinor, b.Currency), format.Money(b.AmountMinor, b.Currency)))
			case b.RefundMinor > 0:
				l.Paras = append(l.Paras, fmt.Sprintf("We are refunding %s of the %s you paid. %s",
					format.Money(b.RefundMinor, b.Currency), format.Money(b.AmountMinor, b.Currency), refundArrives))
			case b.AmountMinor == 0:
				l.Paras = append(l.Paras, "It was free, so there is nothing to pay back.")
			default:
				l.Paras = append(l.Paras, "Under the theatre's refund policy this cancellation gives nothing back.")
			}
		}
		// A counter customer has no account to see bookings in.
		if len(f.Bookings) > 0 && !f.Bookings[0].AtCounter {
			l.Link = &link{"Your bookings", site.PublicURL + "/bookings"}
		}
	case ShowCancelled:
		l.Subject = fmt.Sprintf("Cancelled by the theatre: %s, %s", movie, shortWhen(f))
		l.Heading = f.Theatre.Name + " has cancelled a show you booked"
		l.Paras = append([]string{fmt.Sprintf("We're sorry: %s has cancelled %s on %s.", f.Theatre.Name, movie, at)},
			showRefundParas(f)...)
		for _, b := range f.Bookings {
			l.Tickets = append(l.Tickets, ticketOf(f, b))
		}
		l.Link = &link{"Find another show", site.PublicURL + "/"}
	case ShowRescheduled:
		if f.Move == nil {
			return letter{}, fmt.Errorf("mail %d: a show moved without its move", f.ID)
		}
		l = rescheduled(site, f, l)
		for _, b := range f.Bookings {
			if !b.Confirmed {
				continue
			}
			ics, err := calendar(site, f, b) // its UID is the booking's: the event moves
			if err != nil {
				return letter{}, err
			}
			l.Attached = append(l.Attached, part{Name: "show.ics", Type: "text/calendar; method=PUBLISH", Data: ics})
		}
	case RefundPaid:
		r := f.Refund
		l.Subject = "Refund paid: " + format.Money(r.AmountMinor, r.Currency)
		l.Heading = "Your refund has been paid"
		l.Paras = []string{
			fmt.Sprintf("We have paid back %s for %s on %s to the card or account you paid with.", format.Money(r.AmountMinor, r.Currency), movie, at),
			"Depending on your bank it may take a few working days to show on your statement.",
		}
	case RefundFailing:
		r := f.Refund
		l.Subject = "Your refund of " + format.Money(r.AmountMinor, r.Currency) + " is delayed"
		l.Heading = "Your refund is taking longer than it should"
		l.Paras = []string{
			fmt.Sprintf("We are paying back %s for %s on %s, and the payment provider has not accepted it yet.", format.Money(r.AmountMinor, r.Currency), movie, at),
			"We keep trying, and our customer service is looking into it. You don't need to do anything; reply to this e-mail if you have a question.",
		}
	case RefundFailingStaff:
		r := f.Refund
		l.Subject = fmt.Sprintf("Refund %s keeps failing (%d attempts)", r.ID, r.Attempts)
		l.Heading = "A refund keeps failing"
		l.Paras = []string{"The payment provider has refused this refund several times. It is still retried, with longer and longer waits; the moviegoer has been told it is delayed."}
		l.Details = [][2]string{
			{"Refund", r.ID}, {"Payment", r.PaymentID}, {"Amount", format.Money(r.AmountMinor, r.Currency)},
			{"Attempts", fmt.Sprint(r.Attempts)}, {"Last error", r.LastError},
			{"Moviegoer", f.Moviegoer.Name + " <" + f.Moviegoer.Email + ">"}, {"Show", movie + ", " + at}, {"Theatre", f.Theatre.Name},
		}
		l.Link = &link{"Open reconciliation", site.PublicURL + "/admin/reconciliation"}
		l.Footer = "Sent to customer service by Marquee."
	case PaymentRefunded:
		p := f.Payment
		amount := format.Money(p.AmountMinor, p.Currency)
		l.Subject = "We're refunding your payment of " + amount
		l.Heading = "Your payment is being refunded"
		switch p.Reason {
		case booking.ReasonAlreadyConfirmed:
			l.Paras = []string{fmt.Sprintf("You paid twice for the same seats for %s on %s. Your seats are booked once, with your first payment, and your ticket has been sent separately.", movie, at),
				fmt.Sprintf("The second payment, %s, is refunded in full. %s", amount, refundArrives)}
		case booking.ReasonHoldCancelled:
			l.Paras = []string{fmt.Sprintf("Your payment of %s for %s on %s arrived after you had released those seats, so nothing was booked with it.", amount, movie, at),
				"It is refunded in full. " + refundArrives}
		case booking.ReasonAmountMismatch:
			l.Paras = []string{fmt.Sprintf("Your payment of %s for %s on %s did not match the price of the seats you held, so nothing was booked with it.", amount, movie, at),
				"It is refunded in full. " + refundArrives}
		default:
			l.Paras = []string{fmt.Sprintf("Your payment of %s for %s on %s arrived after the time to pay for your seats had run out, so they were released and nothing was booked with it.", amount, movie, at),
				"It is refunded in full. " + refundArrives + " If you still want to see the show, you can book again."}
		}
		l.Link = &link{"See the show's seats", fmt.Sprintf("%s/shows/%d", site.PublicURL, f.Show.ID)}
	default:
		return letter{}, fmt.Errorf("mail %d: unknown kind %q", f.ID, f.Kind)
	}
	return l, nil
}

// showRefundParas say how the bookings of a show the theatre cancelled are
// refunded: online ones to the card or account they were paid with, by
// the payment provider; those bought at the box office at the box office,
// by hand, since no provider holds that money (internal/refunds leaves
// them to the staff); complimentary ones gave nothing to pay back.
func showRefundParas(f Facts) []string {
	var online, counter []Booking
	var onlineMinor, counterMinor int64
	currency := ""
	for _, b := range f.Bookings {
		currency = b.Currency
		if b.AtCounter {
			counter, counterMinor = append(counter, b), counterMinor+b.RefundMinor
		} else {
			online, onlineMinor = append(online, b), onlineMinor+b.RefundMinor
		}
	}
	var paras []string
	if len(online) > 0 || len(counter) == 0 {
		what := plural(len(online), "booking is", "bookings are")
		if len(counter) > 0 {
			what = plural(len(online), "online booking is", "online bookings are")
		}
		paras = append(paras, fmt.Sprintf("Your %s cancelled and refunded in full: %s. %s", what, format.Money(onlineMinor, currency), refundArrives))
	}
	what := plural(len(counter), "booking", "bookings") + " from the box office"
	switch {
	case len(counter) == 0:
	case counterMinor == 0:
		paras = append(paras, fmt.Sprintf("Your %s %s cancelled. %s free, so there is nothing to pay back.",
			what, plural(len(counter), "is", "are"), plural(len(counter), "It was", "They were")))
	default:
		paras = append(paras,
			fmt.Sprintf("Your %s %s cancelled and refunded in full: %s. As you paid at the box office, it is paid back there, not online: "+
				"bring your ticket or this e-mail to the box office of %s, and you get it back the way you paid, in cash or to your card.",
				what, plural(len(counter), "is", "are"), format.Money(counterMinor, currency), f.Theatre.Name))
	}
	if counterMinor == 0 {
		paras = append(paras, "You don't need to do anything.")
	}
	return paras
}

// rescheduled is the words of a show moved: from when to when, the
// tickets still valid at the new time, and how to decline it with
// everything back, which booking.MovedPolicy grants until the show starts.
func rescheduled(site Site, f Facts, l letter) letter {
	movie, tz := f.Show.Movie, f.Theatre.TimeZone
	from, to := format.When(f.Move.From, tz), when(f)
	l.Subject = fmt.Sprintf("New time: %s is now %s", movie, shortWhen(f))
	l.Heading = f.Theatre.Name + " has moved a show you booked"
	l.Paras = []string{fmt.Sprintf("%s has moved %s from %s to %s, on the same screen (times in the theatre's time zone).",
		f.Theatre.Name, movie, from, to)}
	// What each way of declining gives back: a moviegoer cancels online;
	// a ticket bought at the counter is refunded by the theatre.
	var (
		confirmed         int
		online, counter   int64
		onlineN, counterN int
		currency          string
	)
	for _, b := range f.Bookings {
		if !b.Confirmed {
			continue
		}
		confirmed++
		currency = b.Currency
		if b.AtCounter {
			counter, counterN = counter+b.AmountMinor, counterN+1
		} else {
			online, onlineN = online+b.AmountMinor, onlineN+1
		}
		l.Tickets = append(l.Tickets, ticketOf(f, b))
	}
	if confirmed == 0 {
		l.Paras = append(l.Paras, "Your booking of it has been cancelled since, so there is nothing more for you to do.")
		return l
	}
	l.Paras = append(l.Paras, fmt.Sprintf("Your %s still valid: the same seats, at the new time. Show the ticket you already have at the entrance.",
		plural(confirmed, "ticket is", "tickets are")))
	paid := func(amount int64) string {
		if amount == 0 {
			return ""
		}
		return " (" + format.Money(amount, currency) + ")"
	}
	if onlineN > 0 {
		l.Paras = append(l.Paras, fmt.Sprintf("If the new time doesn't suit you, cancel in My bookings before the show starts, at %s, for a full refund%s, whatever the theatre's refund policy says.",
			to, paid(online)))
		l.Link = &link{"My bookings", site.PublicURL + "/bookings"}
	}
	if counterN > 0 {
		l.Paras = append(l.Paras, fmt.Sprintf("If the new time doesn't suit you, ask at %s's box office before the show starts, at %s, or reply to this e-mail: %s bought there %s refunded in full%s.",
			f.Theatre.Name, to, plural(counterN, "the ticket", "the tickets"), plural(counterN, "is", "are"), paid(counter)))
	}
	return l
}

func ticketOf(f Facts, b Booking) ticket {
	return ticket{
		Movie: f.Show.Movie, When: when(f), Theatre: f.Theatre.Name, Address: f.Theatre.Address, Screen: f.Show.Screen,
		Seats: strings.Join(format.SeatOrder(b.Seats), ", "), Code: b.Code, Amount: format.Money(b.AmountMinor, b.Currency),
	}
}

// place is a theatre with its address, when it has one.
func place(name, address string) string {
	if address == "" {
		return name
	}
	return name + ", " + address
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Text is the plain-text part: the same words as the HTML.
func (l letter) Text() string {
	var b strings.Builder
	b.WriteString(l.Heading + "\n\n")
	for _, p := range l.Paras {
		b.WriteString(p + "\n\n")
	}
	for _, t := range l.Tickets {
		fmt.Fprintf(&b, "%s\n%s\n%s\nScreen: %s\nSeats: %s\n", t.Movie, t.When, place(t.Theatre, t.Address), t.Screen, t.Seats)
		if l.QR {
			fmt.Fprintf(&b, "Ticket code: %s\n", t.Code)
		}
		fmt.Fprintf(&b, "Paid: %s\n\n", t.Amount)
	}
	for _, d := range l.Details {
		fmt.Fprintf(&b, "%s: %s\n", d[0], d[1])
	}
	if len(l.Details) > 0 {
		b.WriteString("\n")
	}
	if l.Link != nil {
		fmt.Fprintf(&b, "%s: %s\n\n", l.Link.Label, l.Link.URL)
	}
	b.WriteString("-- \n" + l.Footer + "\n")
	return b.String()
}

// HTML is the HTML part.
func (l letter) HTML() templ.Component { return letterHTML(l) }
