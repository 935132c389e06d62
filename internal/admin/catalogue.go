package admin

import (
	"context"
	"fmt"
	"time"

	"github.com/marquee-tickets/marquee/internal/catalog"
)

// Movies lists the movie catalogue. Any admin may read it: a theatre admin
// picks the movies of their shows from it (changing it is a platform
// admin's task).
func (s *Service) Movies(ctx context.Context, a Actor) ([]catalog.Movie, error) {
	if a.UserID == "" {
		return nil, ErrForbidden
	}
	return s.Store.Movies(ctx)
}

// Movie returns one movie of the catalogue, or booking.ErrNotFound.
func (s *Service) Movie(ctx context.Context, a Actor, movieID int64) (catalog.Movie, error) {
	if a.UserID == "" {
		return catalog.Movie{}, ErrForbidden
	}
	return s.Store.Movie(ctx, movieID)
}

// ScheduleScreen is a screen shows can be scheduled on, with the seat
// categories of its layout (each needs a price).
type ScheduleScreen struct {
	ID         int64
	Name       string
	Categories []string
}

// SchedulingFacts is what scheduling a theatre's shows is planned from:
// the theatre (its zone reads wall-clock times) and its screens in use
// (not the retired ones).
type SchedulingFacts struct {
	Theatre  catalog.AdminTheatre
	Location *time.Location
	Screens  []ScheduleScreen
}

// Scheduling returns the facts of a theatre the actor administers; any
// other theatre is booking.ErrNotFound.
func (s *Service) Scheduling(ctx context.Context, a Actor, theatreID int64) (SchedulingFacts, error) {
	d, err := s.Theatre(ctx, a, theatreID)
	if err != nil {
		return SchedulingFacts{}, err
	}
	loc, err := time.LoadLocation(d.TimeZone)
	if err != nil {
		return SchedulingFacts{}, fmt.Errorf("theatre %d: time zone %q: %w", theatreID, d.TimeZone, err)
	}
	f := SchedulingFacts{Theatre: d.AdminTheatre, Location: loc, Screens: make([]ScheduleScreen, 0, len(d.Screens))}
	for _, sc := range d.Screens {
		if sc.Retired {
			continue // it takes no new shows
		}
		facts, err := s.Store.ScreenFacts(ctx, sc.ID)
		if err != nil {
			return SchedulingFacts{}, err
		}
		f.Screens = append(f.Screens, ScheduleScreen{ID: sc.ID, Name: sc.Name, Categories: facts.Categories})
	}
	return f, nil
}
