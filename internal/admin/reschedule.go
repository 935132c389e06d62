package admin

import (
	"context"
	"fmt"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// Rescheduled is a show just moved: as the schedule lists it now, and what
// the move did.
type Rescheduled struct {
	Show catalog.TheatreShow
	booking.ShowReschedule
}

// RescheduleShow moves an upcoming show of a's theatre to start at
// startsAt, on the same screen. Its end moves with it: the movie's running
// time and the theatre's cleaning buffer after the start, as when a show is
// scheduled. The show keeps its id, seats, holds and bookings; each person
// with a confirmed booking of it is e-mailed the new time once, and may
// cancel before it for everything back (booking.MovedPolicy). A cancelled
// or started show, a start in the past, more than
// catalog.MaxScheduleAhead ahead or where another show of the screen is,
// and the time it already starts at are refused, and nothing changes.
func (s *Service) RescheduleShow(ctx context.Context, a Actor, showID int64, startsAt time.Time) (Rescheduled, error) {
	theatre, err := s.requireShow(ctx, a, showID)
	if err != nil {
		return Rescheduled{}, err
	}
	sh, err := s.Store.AdminShow(ctx, showID)
	if err != nil {
		return Rescheduled{}, err
	}
	length, err := s.showLength(ctx, sh)
	if err != nil {
		return Rescheduled{}, err
	}
	// The store refuses an end reckoned from a running time changed since
	// (catalog.ErrMovieChanged), under the movie's lock.
	endsAt := startsAt.Add(length)
	moved, err := s.Store.RescheduleShow(ctx, showID, startsAt, endsAt,
		auditEntry(a, theatre, "show.reschedule", showObject(showID), nil, nil))
	if err != nil {
		return Rescheduled{}, err
	}
	now, err := s.Store.TheatreShow(ctx, showID)
	if err != nil {
		return Rescheduled{}, err
	}
	return Rescheduled{Show: now, ShowReschedule: moved}, nil
}

// MovePreview is what moving a show would do, for its manager to see
// before moving it.
type MovePreview struct {
	booking.ShowAudience
	// Length is how long the show takes its screen from its new start:
	// the movie's running time and the theatre's cleaning buffer.
	Length time.Duration
}

// PreviewMove says what moving showID would do: the bookings it would take
// along, the people it would e-mail, and how long the show would take its
// screen.
func (s *Service) PreviewMove(ctx context.Context, a Actor, showID int64) (MovePreview, error) {
	if _, err := s.requireShow(ctx, a, showID); err != nil {
		return MovePreview{}, err
	}
	sh, err := s.Store.AdminShow(ctx, showID)
	if err != nil {
		return MovePreview{}, err
	}
	var p MovePreview
	if p.Length, err = s.showLength(ctx, sh); err != nil {
		return MovePreview{}, err
	}
	if p.ShowAudience, err = s.Store.ShowAudience(ctx, showID); err != nil {
		return MovePreview{}, err
	}
	return p, nil
}

// showLength is how long sh takes its screen from its start when it is
// scheduled or moved now: its movie's running time and its theatre's
// cleaning buffer.
func (s *Service) showLength(ctx context.Context, sh catalog.AdminShow) (time.Duration, error) {
	facts, err := s.Store.ScreenFacts(ctx, sh.ScreenID)
	if err != nil {
		return 0, err
	}
	movie, err := s.Store.Movie(ctx, sh.MovieID)
	if err != nil {
		return 0, fmt.Errorf("movie of show %d: %w", sh.ID, err)
	}
	return time.Duration(movie.DurationMinutes)*time.Minute + facts.CleaningBuffer, nil
}
