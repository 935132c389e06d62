package boxoffice

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// Rooms are the waiting rooms' use cases: joining a show's queue, a
// ticket's status, and the gate a seat map and a hold pass when the show's
// room is on (see package waitroom).
type Rooms struct {
	Store  *postgres.Store
	Signer *waitroom.Signer
	// AdmissionTTL is how long an admission lasts unused.
	AdmissionTTL time.Duration
	// Clock is the time tickets are checked against; nil, time.Now.
	Clock func() time.Time
	// Front, when set, is the room's front as this instance last heard
	// a step announce it (ok false: none heard): a waiter's status then
	// costs no read of it.
	Front func(showID int64) (f waitroom.Front, ok bool)

	// enabled remembers for a moment whether a show's room is on, so that
	// a show page costs no database read for it: a room switched on at
	// another instance is obeyed here within enabledFor.
	enabled sync.Map // show id -> enabledAt
}

type enabledAt struct {
	on bool
	at time.Time
}

const enabledFor = time.Second

// QueueStatus is a ticket's place as its holder sees it.
type QueueStatus struct {
	// Ticket is the signed ticket; "" when the room is off.
	Ticket string
	State  waitroom.State
	// Number is the ticket's place in the admission order, 0 before the
	// pre-queue's shuffle.
	Number int64
	// Position (1: next in) and ETA are known once the ticket is numbered
	// and while it waits.
	Position int64
	ETA      time.Duration
	Known    bool
	// AdmittedUntil is when an unused admission lapses.
	AdmittedUntil time.Time
	// UserID is the account the ticket admitted, once one held with it.
	UserID string
	// Front is the room's, as the step announced it.
	Front waitroom.Front
}

func (r *Rooms) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}

// Enabled says whether showID's room is on, as of at most a second ago.
func (r *Rooms) Enabled(ctx context.Context, showID int64) (bool, error) {
	if r == nil {
		return false, nil
	}
	if v, ok := r.enabled.Load(showID); ok {
		if e := v.(enabledAt); time.Since(e.at) < enabledFor {
			return e.on, nil
		}
	}
	on, err := r.Store.RoomEnabled(ctx, showID)
	if err != nil {
		return false, err
	}
	r.enabled.Store(showID, enabledAt{on: on, at: time.Now()})
	return on, nil
}

// Forget drops what Enabled remembers of showID: its room just changed.
func (r *Rooms) Forget(showID int64) { r.enabled.Delete(showID) }

// Join puts the holder of ticket (perhaps "", or one of another show,
// forged or lapsed) in showID's queue: a valid ticket still waiting or
// admitted keeps its place, so a refresh neither loses nor gains one; any
// other, or one another account than userID has used, gets a new ticket
// at the back. With the room off the answer is
// ADMITTED and no ticket. booking.ErrNotFound for no such show.
func (r *Rooms) Join(ctx context.Context, showID int64, ticket, userID string) (QueueStatus, error) {
	st, err := r.Status(ctx, showID, ticket)
	if err == nil && (st.State == waitroom.Waiting || st.State == waitroom.Admitted) && (st.UserID == "" || st.UserID == userID) {
		return st, nil
	} else if err != nil && !errors.Is(err, booking.ErrNotFound) {
		return QueueStatus{}, err
	}
	t, ok, err := r.Store.JoinQueue(ctx, showID)
	if err != nil {
		return QueueStatus{}, err
	}
	if !ok {
		if _, err := r.Store.TheatreOfShow(ctx, showID); err != nil {
			return QueueStatus{}, err
		}
		return QueueStatus{State: waitroom.Admitted}, nil
	}
	front, err := r.front(ctx, showID)
	if err != nil {
		return QueueStatus{}, err
	}
	return r.status(r.Signer.Sign(showID, t.ID, r.now()), t, front), nil
}

// Status is ticket's place in showID's queue now; reading it tells the
// queue its holder is still there. booking.ErrNotFound for no ticket of
// that show, or a forged or too old one.
func (r *Rooms) Status(ctx context.Context, showID int64, ticket string) (QueueStatus, error) {
	id, err := r.verify(showID, ticket)
	if err != nil {
		return QueueStatus{}, err
	}
	t, err := r.Store.SeeTicket(ctx, showID, id)
	if err != nil {
		return QueueStatus{}, err
	}
	front, err := r.front(ctx, showID)
	if err != nil {
		return QueueStatus{}, err
	}
	if !front.Enabled && t.State == waitroom.Waiting {
		// Switched off since: everyone waiting may go on.
		t.State = waitroom.Admitted
	}
	return r.status(ticket, t, front), nil
}

// front is showID's room front: as last heard, else read.
func (r *Rooms) front(ctx context.Context, showID int64) (waitroom.Front, error) {
	if r.Front != nil {
		if f, ok := r.Front(showID); ok {
			return f, nil
		}
	}
	return r.Store.RoomFront(ctx, showID)
}

func (r *Rooms) verify(showID int64, ticket string) (int64, error) {
	if ticket == "" || r == nil {
		return 0, fmt.Errorf("no queue ticket for show %d: %w", showID, booking.ErrNotFound)
	}
	id, err := r.Signer.Verify(ticket, showID, r.now())
	if err != nil {
		return 0, fmt.Errorf("queue ticket for show %d: %w", showID, booking.ErrNotFound)
	}
	return id, nil
}

func (r *Rooms) status(ticket string, t waitroom.Ticket, front waitroom.Front) QueueStatus {
	st := QueueStatus{Ticket: ticket, State: t.State, Number: t.Number, AdmittedUntil: t.ActiveUntil, UserID: t.UserID, Front: front}
	if st.State == waitroom.Admitted && !t.ActiveUntil.IsZero() && !t.ActiveUntil.After(r.now()) {
		// Ended, though no step has said so yet.
		st.State = waitroom.Done
	}
	if t.State == waitroom.Waiting {
		st.Position, st.ETA, st.Known = waitroom.Place(t.Number, front.Through, front.PerMinute)
	}
	return st
}

// MayShop says whether userID (perhaps a guest, "") with ticket may see
// showID's seat map: the room is off, or the ticket is admitted, its
// admission active, and no other account has used it.
//
// until is when the admission lapses if it holds nothing (zero with the
// room off).
func (r *Rooms) MayShop(ctx context.Context, showID int64, ticket, userID string) (ok bool, until time.Time, err error) {
	on, err := r.Enabled(ctx, showID)
	if err != nil || !on {
		return !on, time.Time{}, err
	}
	st, err := r.Status(ctx, showID, ticket)
	if errors.Is(err, booking.ErrNotFound) {
		return false, time.Time{}, nil
	}
	if err != nil {
		return false, time.Time{}, err
	}
	return st.State == waitroom.Admitted && (st.UserID == "" || st.UserID == userID), st.AdmittedUntil, nil
}

// admit lets userID hold seats of showID with ticket: always when the
// room is off; with the room on, only with a ticket admitted, active, and
// unused by any other account (waitroom.ErrQueueRequired otherwise). It
// says whether the hold counts against an admission.
func (r *Rooms) admit(ctx context.Context, showID int64, ticket, userID string) (bool, error) {
	on, err := r.Enabled(ctx, showID)
	if err != nil || !on {
		return false, err
	}
	id, err := r.Signer.Verify(ticket, showID, r.now())
	if err != nil {
		return false, err
	}
	if err := r.Store.UseTicket(ctx, showID, id, userID); err != nil {
		return false, err
	}
	return true, nil
}
