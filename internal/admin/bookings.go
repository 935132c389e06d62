package admin

import (
	"context"
	"errors"
	"strings"

	"github.com/riverqueue/river/rivertype"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// BookingHistory is one booking as its theatre's staff see it, with the
// mails about it: what its moviegoer was told, and what failed.
type BookingHistory struct {
	Booking postgres.StaffBooking
	Mails   []postgres.MailRecord
	// Terms are what its refund policy gives back now.
	Terms booking.CancellationTerms
}

// Booking returns booking bookingID of one of a's theatres (another
// theatre's is not found) with its mails.
func (s *Service) Booking(ctx context.Context, a Actor, bookingID string) (BookingHistory, error) {
	b, err := s.staffBooking(ctx, a, bookingID)
	if err != nil {
		return BookingHistory{}, err
	}
	mails, err := s.Store.BookingMails(ctx, bookingID)
	if err != nil {
		return BookingHistory{}, err
	}
	terms, err := s.Store.CancellationTerms(ctx, b.ShowID)
	if err != nil {
		return BookingHistory{}, err
	}
	return BookingHistory{Booking: b, Mails: mails, Terms: terms}, nil
}

// maxFound bounds a search's answer: a name common enough to match more
// is narrowed by its e-mail or ticket code.
const maxFound = 50

// SearchBookings finds the bookings of theatreID (0: of every theatre
// where a sells) whose ticket code or id is q, whose customer's e-mail is
// q, or whose customer's name contains q.
func (s *Service) SearchBookings(ctx context.Context, a Actor, theatreID int64, q string) ([]postgres.StaffBooking, error) {
	q = strings.TrimSpace(q)
	if n := len([]rune(q)); n < 2 || n > 100 || hasControl(q) {
		return nil, &catalog.FieldError{Field: "q", Message: "enter a ticket code, an e-mail address or at least 2 letters of a name"}
	}
	var theatres []int64 // nil: all
	switch {
	case theatreID != 0:
		if err := s.require(ctx, a, theatreID, Sell); err != nil {
			return nil, err
		}
		theatres = []int64{theatreID}
	case !a.Platform():
		roles, err := s.Store.StaffRoles(ctx, a.UserID)
		if err != nil {
			return nil, err
		}
		theatres = []int64{}
		for t, r := range roles {
			if RoleCan(r, Sell) {
				theatres = append(theatres, t)
			}
		}
		if len(theatres) == 0 {
			return nil, ErrRole
		}
	}
	return s.Store.SearchBookings(ctx, theatres, q, maxFound)
}

// RefundBooking cancels booking bookingID and refunds it, in full or by its
// theatre's policy (the box office and managers): see
// postgres.(*Store).RefundBooking. A reason is required, for the audit log.
func (s *Service) RefundBooking(ctx context.Context, a Actor, bookingID string, r booking.StaffRefund) (postgres.StaffBooking, error) {
	b, err := s.staffBooking(ctx, a, bookingID)
	if err != nil {
		return b, err
	}
	r.Reason = strings.TrimSpace(r.Reason)
	if n := len([]rune(r.Reason)); n == 0 || n > 500 || hasControl(r.Reason) {
		return b, &catalog.FieldError{Field: "reason", Message: "say why this booking is refunded (at most 500 characters)"}
	}
	return s.Store.RefundBooking(ctx, bookingID, r, auditEntry(a, b.TheatreID, "booking.refund", "booking "+bookingID, nil, nil))
}

// SettleCounterRefund records that the refund of a booking sold at the
// counter was handed back there.
func (s *Service) SettleCounterRefund(ctx context.Context, a Actor, bookingID string) (postgres.StaffBooking, error) {
	b, err := s.staffBooking(ctx, a, bookingID)
	if err != nil {
		return b, err
	}
	return s.Store.SettleCounterRefund(ctx, bookingID, auditEntry(a, b.TheatreID, "booking.counter_refund", "booking "+bookingID, nil, nil))
}

// MoveBooking moves booking bookingID to seats of show to, another show of
// the same movie at its theatre, at the same price: see
// postgres.(*Store).MoveBooking.
func (s *Service) MoveBooking(ctx context.Context, a Actor, bookingID string, to int64, seats []string) (postgres.StaffBooking, error) {
	b, err := s.staffBooking(ctx, a, bookingID)
	if err != nil {
		return b, err
	}
	seats, err = booking.HoldRequest{Seats: seats}.Normalize(maxCounterSeats)
	if err != nil {
		return b, err
	}
	return s.Store.MoveBooking(ctx, bookingID, to, seats, auditEntry(a, b.TheatreID, "booking.move", "booking "+bookingID, nil, nil))
}

// MoveTargets are the shows booking bookingID may move to: the other
// upcoming shows of its movie at its theatre, within four weeks.
func (s *Service) MoveTargets(ctx context.Context, a Actor, bookingID string) ([]catalog.TheatreShow, error) {
	b, err := s.staffBooking(ctx, a, bookingID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	until := now.AddDate(0, 0, 28)
	shows, err := s.Store.TheatreShows(ctx, b.TheatreID, &now, &until, 500)
	if err != nil {
		return nil, err
	}
	var out []catalog.TheatreShow
	for _, sh := range shows {
		if sh.ID != b.ShowID && sh.MovieID == b.MovieID && sh.Status == "SCHEDULED" && sh.StartsAt.After(now) {
			out = append(out, sh)
		}
	}
	return out, nil
}

// ErrNoTicket is a ticket resent for a booking that has none (cancelled).
var ErrNoTicket = booking.ErrNoTicket

// ResendTicket mails booking bookingID's ticket to its moviegoer again.
func (s *Service) ResendTicket(ctx context.Context, a Actor, bookingID string) error {
	b, err := s.staffBooking(ctx, a, bookingID)
	if err != nil {
		return err
	}
	return s.Store.ResendTicket(ctx, bookingID,
		auditEntry(a, b.TheatreID, "booking.resend_ticket", "booking "+bookingID, nil, map[string]string{"to": b.CustomerEmail}))
}

func (s *Service) staffBooking(ctx context.Context, a Actor, bookingID string) (postgres.StaffBooking, error) {
	b, err := s.Store.StaffBooking(ctx, bookingID)
	if err != nil {
		return postgres.StaffBooking{}, err
	}
	if err := s.require(ctx, a, b.TheatreID, Sell); err != nil {
		return postgres.StaffBooking{}, err
	}
	return b, nil
}

// Jobs are the background jobs of one state, newest first, with how many
// there are in each state.
type Jobs struct {
	State  rivertype.JobState
	Counts map[rivertype.JobState]int
	List   []*rivertype.JobRow
}

// JobStates are the states the jobs page lists, in its order.
var JobStates = []rivertype.JobState{
	rivertype.JobStateRetryable, rivertype.JobStateDiscarded, rivertype.JobStateRunning, rivertype.JobStateAvailable,
	rivertype.JobStateScheduled, rivertype.JobStateCompleted, rivertype.JobStateCancelled,
}

// ErrUnknownJobState is a state the jobs page does not list.
var ErrUnknownJobState = errors.New("admin: no such job state")

// Jobs lists the newest jobs in state, for platform admins only: jobs
// carry every theatre's refunds and mail.
func (s *Service) Jobs(ctx context.Context, a Actor, state rivertype.JobState, limit int) (Jobs, error) {
	if err := requirePlatform(a); err != nil {
		return Jobs{}, err
	}
	found := false
	for _, st := range JobStates {
		found = found || st == state
	}
	if !found {
		return Jobs{}, ErrUnknownJobState
	}
	counts, err := s.Store.JobCounts(ctx)
	if err != nil {
		return Jobs{}, err
	}
	list, err := s.Store.Jobs(ctx, limit, state)
	if err != nil {
		return Jobs{}, err
	}
	return Jobs{State: state, Counts: counts, List: list}, nil
}
