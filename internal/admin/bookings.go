package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/riverqueue/river/rivertype"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// BookingHistory is one booking as its theatre's staff see it, with the
// mails about it: what its moviegoer was told, and what failed.
type BookingHistory struct {
	Booking postgres.StaffBooking
	Mails   []postgres.MailRecord
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
	return BookingHistory{Booking: b, Mails: mails}, nil
}

// FindBooking returns the id of the booking of one of a's theatres whose
// ticket code or id is q.
func (s *Service) FindBooking(ctx context.Context, a Actor, q string) (string, error) {
	q = strings.TrimSpace(q)
	if q == "" || len(q) > 64 {
		return "", fmt.Errorf("booking %q: %w", q, booking.ErrNotFound)
	}
	id, err := s.Store.FindBooking(ctx, q)
	if err != nil {
		return "", err
	}
	if _, err := s.staffBooking(ctx, a, id); err != nil {
		return "", err
	}
	return id, nil
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
