// Package mail writes and sends the e-mails Marquee owes people: the
// ticket when a booking is confirmed, word of a cancellation and of its
// refund, a show the theatre cancelled or moved, a payment returned because
// it came late or twice, and a refund that keeps failing (to customer
// service too).
//
// A message is composed from Facts, which the store reads for one queued
// mail (internal/postgres, mails.go), as HTML with a plain-text
// alternative, the ticket's QR code inline and a calendar file attached. It
// goes out over SMTP, or into the dev mailbox when none is configured in
// demo mode. What is sent once and how it is retried is the job's business
// (internal/notify).
package mail

import (
	"bytes"
	"fmt"
	"net/mail"
	"strings"
	"time"

	tickets "github.com/marquee-tickets/marquee/internal/ticket"

	gomail "github.com/wneessen/go-mail"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// Kind is what a mail is about.
type Kind string

const (
	// Ticket is the e-ticket of a confirmed booking; TicketResent the same
	// again, sent by the theatre's staff.
	Ticket       Kind = "ticket"
	TicketResent Kind = "ticket_resent"
	// BookingMoved is the new ticket of a booking the theatre's staff
	// moved to another show of its movie.
	BookingMoved Kind = "booking_moved"
	// BookingCancelled answers the moviegoer's own cancellation.
	BookingCancelled Kind = "booking_cancelled"
	// ShowCancelled tells a moviegoer, or a counter customer at the
	// address they gave, the theatre cancelled a show they booked: all
	// their bookings of it, refunded in full.
	ShowCancelled Kind = "show_cancelled"
	// ShowRescheduled tells a moviegoer the theatre moved a show they
	// booked to another time: old and new, their bookings (valid as they
	// are), and how to decline for everything back.
	ShowRescheduled Kind = "show_rescheduled"
	// RefundPaid says a refund reached the payment provider.
	RefundPaid Kind = "refund_paid"
	// RefundFailing tells the moviegoer their refund is delayed;
	// RefundFailingStaff asks customer service to look into it.
	RefundFailing      Kind = "refund_failing"
	RefundFailingStaff Kind = "refund_failing_staff"
	// PaymentRefunded explains a payment returned because it came after
	// the hold ended or paid for a hold already paid.
	PaymentRefunded Kind = "payment_refunded"
)

// Label is a kind as the admin's list of a booking's mails names it.
func (k Kind) Label() string {
	switch k {
	case Ticket:
		return "Ticket"
	case TicketResent:
		return "Ticket (resent)"
	case BookingMoved:
		return "Booking moved (new ticket)"
	case BookingCancelled:
		return "Booking cancelled"
	case ShowCancelled:
		return "Show cancelled"
	case ShowRescheduled:
		return "Show moved"
	case RefundPaid:
		return "Refund paid"
	case RefundFailing:
		return "Refund delayed"
	case RefundFailingStaff:
		return "Refund failing (customer service)"
	case PaymentRefunded:
		return "Payment refunded"
	}
	return string(k)
}

// Facts are what one mail says, read by the store when it is sent (not
// when it was queued: a ticket resent shows the booking as it is now).
type Facts struct {
	ID   int64 // the mail's, for its Message-ID
	Kind Kind
	To   Person
	// Moviegoer is whom the mail is about: To, except in a mail to
	// customer service.
	Moviegoer Person
	// Theatre is whose name the mail comes from.
	Theatre Theatre
	Show    Show
	// Bookings are the ones the mail is about: one, but every booking of
	// the show the recipient had when the theatre cancelled or moved it
	// (online, and bought at the counter with their address).
	Bookings []Booking
	// Move is the theatre's move of the show (ShowRescheduled); Show is
	// then the show as that move left it.
	Move    *Move
	Refund  *Refund  // the refund the mail is about, if any
	Payment *Payment // the payment returned (PaymentRefunded)
	Policy  booking.RefundPolicy
	Now     time.Time // when it is written, for the policy's deadlines
}

// Person is a recipient.
type Person struct{ Name, Email string }

// Theatre is the sender's side of a mail.
type Theatre struct {
	Name, Address, TimeZone string
}

// Show is the screening a mail is about.
type Show struct {
	ID               int64
	Movie, Screen    string
	Rating           string
	StartsAt, EndsAt time.Time
}

// Booking is one booking as a mail shows it.
type Booking struct {
	ID, Code    string
	Seats       []string
	AmountMinor int64
	Currency    string
	Confirmed   bool
	// RefundMinor is what its cancellation gives back (0 when none).
	RefundMinor int64
	// AtCounter: sold at the box office (or given away there), so not in
	// anyone's My bookings, and a refund of it is paid back there, never
	// through the payment provider.
	AtCounter bool
	// ByTheatre: cancelled by the theatre's staff, not by its moviegoer.
	ByTheatre bool
}

// Move is a show moved to another time: its start before and after.
type Move struct {
	From, To time.Time
}

// Refund is a refund a mail reports.
type Refund struct {
	ID          string
	AmountMinor int64
	Currency    string
	Attempts    int
	LastError   string
	PaymentID   string
}

// Payment is a payment that was returned.
type Payment struct {
	ID          string
	AmountMinor int64
	Currency    string
	// Reason is why it booked nothing, as the store records it (e.g.
	// HOLD_EXPIRED, ALREADY_PAID).
	Reason     string
	ReceivedAt time.Time
}

// Site is where mails come from and link to.
type Site struct {
	PublicURL string
	// From is the address every mail is sent from; the theatre's name is
	// its display name, so the recipient sees who writes.
	From mail.Address
	// Support is customer service's address: told of a failing refund,
	// and the Reply-To of every mail.
	Support string
	// Tickets sign the QR code of each ticket; nil: tickets.DevKeys.
	Tickets *tickets.Keys
}

// ticketCode is the code b's QR carries: signed, so the door can tell it
// from a forgery offline.
func (s Site) ticketCode(b Booking, show int64) string {
	if s.Tickets == nil {
		s.Tickets = tickets.DevKeys()
	}
	return s.Tickets.Code(b.Code, show)
}

// Compose writes f's message: HTML with a plain-text alternative, a
// Message-ID of its own (the same on every attempt, so that a receiving
// server that got it once can tell) and the headers that mark it as
// automatic, so no vacation reply answers it.
func Compose(site Site, f Facts) (*gomail.Msg, error) {
	l, err := letterOf(site, f)
	if err != nil {
		return nil, err
	}
	m := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := m.FromFormat(fromName(f), site.From.Address); err != nil {
		return nil, fmt.Errorf("mail %d: from %q: %w", f.ID, site.From.Address, err)
	}
	if err := m.AddToFormat(f.To.Name, f.To.Email); err != nil {
		return nil, fmt.Errorf("mail %d: to: %w", f.ID, err)
	}
	if site.Support != "" && f.Kind != RefundFailingStaff {
		if err := m.ReplyTo(site.Support); err != nil {
			return nil, fmt.Errorf("mail %d: reply-to %q: %w", f.ID, site.Support, err)
		}
	}
	m.Subject(l.Subject)
	m.SetMessageIDWithValue(fmt.Sprintf("mail-%d.%s@%s", f.ID, f.Kind, domainOf(site.From.Address)))
	m.SetDateWithValue(f.Now)
	m.SetGenHeader(gomail.HeaderXAutoResponseSuppress, "All")
	m.SetGenHeader("Auto-Submitted", "auto-generated")

	m.SetBodyString(gomail.TypeTextPlain, l.Text())
	var html bytes.Buffer
	if err := l.HTML().Render(bgContext, &html); err != nil {
		return nil, fmt.Errorf("mail %d: render: %w", f.ID, err)
	}
	m.AddAlternativeString(gomail.TypeTextHTML, html.String())
	for _, e := range l.Inline {
		if err := m.EmbedReader(e.Name, bytes.NewReader(e.Data), gomail.WithFileContentID(e.ContentID),
			gomail.WithFileContentType(gomail.ContentType(e.Type))); err != nil {
			return nil, fmt.Errorf("mail %d: embed %s: %w", f.ID, e.Name, err)
		}
	}
	for _, a := range l.Attached {
		if err := m.AttachReader(a.Name, bytes.NewReader(a.Data), gomail.WithFileContentType(gomail.ContentType(a.Type))); err != nil {
			return nil, fmt.Errorf("mail %d: attach %s: %w", f.ID, a.Name, err)
		}
	}
	return m, nil
}

// fromName is the display name of the sender: the theatre's, or the
// site's own for mail that concerns no theatre.
func fromName(f Facts) string {
	if f.Theatre.Name != "" {
		return f.Theatre.Name
	}
	return "Marquee"
}

func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return addr[i+1:]
	}
	return "marquee.invalid"
}

// when is the show's start as the theatre's clock reads it, with its zone.
func when(f Facts) string {
	tz := f.Theatre.TimeZone
	return format.When(f.Show.StartsAt, tz)
}

// shortWhen is when for a subject line.
func shortWhen(f Facts) string {
	tz := f.Theatre.TimeZone
	return format.Date(f.Show.StartsAt, tz) + ", " + format.Clock(f.Show.StartsAt, tz)
}
