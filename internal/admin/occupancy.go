package admin

import (
	"context"
	"fmt"
	"strconv"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// maxBlockSeats bounds one block or unblock request: more than any screen
// has, so only garbage reaches it.
const maxBlockSeats = 5000

// ShowOccupancy is showID's live occupancy and money, for an admin of its
// theatre.
func (s *Service) ShowOccupancy(ctx context.Context, a Actor, showID int64) (booking.Occupancy, error) {
	if _, err := s.requireShowFor(ctx, a, showID, SeeShows); err != nil {
		return booking.Occupancy{}, err
	}
	return s.Store.ShowOccupancy(ctx, showID)
}

// BlockSeats takes seats of showID off sale and returns them, sorted (see
// postgres.(*Store).BlockSeats for which seats may be blocked).
func (s *Service) BlockSeats(ctx context.Context, a Actor, showID int64, seats []string) ([]string, error) {
	theatre, sorted, err := s.seatChange(ctx, a, showID, seats)
	if err != nil {
		return nil, err
	}
	if _, err := s.Store.BlockSeats(ctx, showID, sorted, auditEntry(a, theatre, "show.block_seats", showObject(showID), nil, nil)); err != nil {
		return nil, err
	}
	return sorted, nil
}

// UnblockSeats puts blocked seats of showID back on sale and returns the
// seats it unblocked, sorted; a seat not blocked is left as it is.
func (s *Service) UnblockSeats(ctx context.Context, a Actor, showID int64, seats []string) ([]string, error) {
	theatre, sorted, err := s.seatChange(ctx, a, showID, seats)
	if err != nil {
		return nil, err
	}
	return s.Store.UnblockSeats(ctx, showID, sorted, auditEntry(a, theatre, "show.unblock_seats", showObject(showID), nil, nil))
}

// seatChange authorizes a change to seats of showID and returns the show's
// theatre and the seats sorted, refusing bad, duplicate or no seat ids.
func (s *Service) seatChange(ctx context.Context, a Actor, showID int64, seats []string) (int64, []string, error) {
	theatre, err := s.requireShow(ctx, a, showID)
	if err != nil {
		return 0, nil, err
	}
	sorted, err := booking.HoldRequest{Seats: seats}.Normalize(maxBlockSeats)
	if err != nil {
		return 0, nil, fmt.Errorf("seats of show %d: %w", showID, err)
	}
	return theatre, sorted, nil
}

// CancelShow cancels showID: every live hold ends, every confirmed booking
// is refunded in full. Cancelling it again returns the same answer.
func (s *Service) CancelShow(ctx context.Context, a Actor, showID int64) (booking.ShowCancellation, error) {
	theatre, err := s.requireShow(ctx, a, showID)
	if err != nil {
		return booking.ShowCancellation{}, err
	}
	return s.Store.CancelShow(ctx, showID, auditEntry(a, theatre, "show.cancel", showObject(showID), nil, nil))
}

func showObject(showID int64) string { return "show " + strconv.FormatInt(showID, 10) }
