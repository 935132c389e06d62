package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/seating"
)

// holdNamed holds req's seats, named by the shopper, under the orphan rule
// of the show's theatre, in one transaction:
//
//  1. hold_seats claims the seats, as any hold (its locks in the global
//     order, the caps, the key);
//  2. when the theatre keeps the rule, the show's seats are read as they
//     are now, and a hold that would leave a free seat alone in its row is
//     refused (*booking.OrphanSeatError), the transaction rolled back, if
//     the hall has a choice of as many seats that leaves nobody alone.
//
// A retry of a request that won is answered from its key and not judged
// again: whatever its neighbours did since, it replays.
func (s *Store) holdNamed(ctx context.Context, req booking.HoldRequest, seats []string, fingerprint string) (res booking.HoldResult, retry bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		res, retry, err = s.holdOnce(ctx, tx, req, seats, fingerprint)
		if err != nil || res.Replayed {
			return err
		}
		hall, err := s.orphanRuled(ctx, tx, req.ShowID)
		if err != nil {
			return err
		}
		return orphans(hall, seats)
	})
	return res, retry, err
}

// orphans refuses pick, which its hold has just claimed in hall, if it
// leaves a free seat alone and the hall has a choice that does not.
func orphans(hall []seating.Seat, pick []string) error {
	if len(hall) == 0 {
		return nil
	}
	// The seats were free before this hold claimed them: the suggestion
	// may take them again.
	for i := range hall {
		if slices.Contains(pick, hall[i].ID) {
			hall[i].Free = true
		}
	}
	stranded := seating.Stranded(hall, pick)
	if len(stranded) == 0 {
		return nil
	}
	suggestion, ok := seating.Suggest(hall, pick)
	if !ok {
		return nil // no better choice: the hold goes ahead
	}
	return &booking.OrphanSeatError{Seats: stranded, Suggestion: suggestion}
}

// orphanRuled reads the seats of a show as seating sees them (see
// choosable) when the show's theatre keeps the orphan rule; none when it
// does not.
func (s *Store) orphanRuled(ctx context.Context, tx pgx.Tx, showID int64) ([]seating.Seat, error) {
	// The rule is a one-time filter: a theatre without it reads no seats.
	rows, err := tx.Query(ctx, `
		SELECT `+seatingColumns+`
		  FROM show_seats ss
		  JOIN seats st ON st.screen_id = ss.screen_id AND st.seat_id = ss.seat_id
		 WHERE ss.show_id = $1
		   AND (SELECT coalesce((th.settings ->> 'orphan_rule')::boolean, true) FROM shows sh
		          JOIN screens sc ON sc.id = sh.screen_id
		          JOIN theatres th ON th.id = sc.theatre_id
		         WHERE sh.id = $1)`, showID, s.now())
	if err != nil {
		return nil, fmt.Errorf("read seats of show %d: %w", showID, err)
	}
	return collectSeating(rows, showID)
}
