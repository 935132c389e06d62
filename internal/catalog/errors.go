package catalog

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// What a theatre admin's change can run into. The web layer maps each to
// a status code and a message a person understands.
var (
	// ErrShowInPast is a show scheduled to start before now.
	ErrShowInPast = errors.New("show starts in the past")
	// ErrShowTooFarAhead is a show scheduled to start more than
	// MaxScheduleAhead from now.
	ErrShowTooFarAhead = errors.New("show starts too far ahead")
	// ErrShowHasSales is a price change on a show some seats of which are
	// sold or held.
	ErrShowHasSales = errors.New("show has sales")
	// ErrShowCancelled is a change to a show its theatre cancelled.
	ErrShowCancelled = errors.New("show is cancelled")
	// ErrCityExists is a new city with the slug of another.
	ErrCityExists = errors.New("a city with this slug exists")
	// ErrScreenRetired is a show scheduled on a retired screen.
	ErrScreenRetired = errors.New("the screen is retired")
	// ErrMovieChanged is a show whose end was reckoned from a running time
	// of its movie that changed while it was being scheduled.
	ErrMovieChanged = errors.New("the movie's running time changed meanwhile")
	// ErrShowStarted is a change to a show that has started (or ended):
	// moving it, say.
	ErrShowStarted = errors.New("show has started")
	// ErrSameStart is a show moved to the time it already starts at.
	ErrSameStart = errors.New("show already starts at that time")
	// ErrShowOverlap is a show scheduled on a screen at a time another
	// show already occupies.
	ErrShowOverlap = errors.New("show overlaps another show on the same screen")
)

// MaxScheduleAhead is how far ahead of now a show may start: two years
// of 365 days. No cinema sells seats further out, and a date far enough
// out (past the year 9999) cannot even be written in RFC 3339.
const MaxScheduleAhead = 2 * 365 * 24 * time.Hour

// FieldError names a field of an admin's request that a person must
// correct, and what is wrong with it.
type FieldError struct{ Field, Message string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// FieldErrors are the *FieldErrors of err, which may join several
// (errors.Join), in order; nil when it has none.
func FieldErrors(err error) []*FieldError {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		var out []*FieldError
		for _, e := range joined.Unwrap() {
			out = append(out, FieldErrors(e)...)
		}
		return out
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return []*FieldError{fe}
	}
	return nil
}

// ShowOverlapError is a show refused because another show occupies its
// screen at that time (it is also ErrShowOverlap).
type ShowOverlapError struct{ ConflictingShowID int64 }

func (e *ShowOverlapError) Error() string {
	return fmt.Sprintf("show overlaps show %d on the same screen", e.ConflictingShowID)
}

func (e *ShowOverlapError) Unwrap() error { return ErrShowOverlap }

// MissingPricesError names seat categories of a screen's layout that a show
// has no price for, and, for a new layout, the upcoming shows without one.
type MissingPricesError struct {
	Categories []string
	Shows      []int64 // sorted; none for a show being scheduled
}

func (e *MissingPricesError) Error() string {
	return "no price for seat categories " + strings.Join(e.Categories, ", ")
}

// LayoutInUseError is a layout change refused because it would remove, move
// or re-categorize seats held or booked in upcoming shows.
type LayoutInUseError struct {
	Seats []string // the seats, sorted
	Shows []int64  // the upcoming shows they are held or booked in
}

func (e *LayoutInUseError) Error() string {
	return fmt.Sprintf("layout in use: seats %s held or booked in shows %v", strings.Join(e.Seats, ", "), e.Shows)
}

// ScheduleOverlapError is a show refused because its screen is busy then:
// with a scheduled show (ConflictingShowID), or with another of the shows
// asked for in the same request (ConflictingShowID 0). It is also a
// ShowOverlapError.
type ScheduleOverlapError struct {
	StartsAt            time.Time // the start of the refused show
	ConflictingShowID   int64
	ConflictingStartsAt time.Time
}

func (e *ScheduleOverlapError) Error() string {
	if e.ConflictingShowID == 0 {
		return fmt.Sprintf("the show at %s overlaps the one at %s asked for with it",
			e.StartsAt.UTC().Format(time.RFC3339), e.ConflictingStartsAt.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("the show at %s overlaps show %d at %s",
		e.StartsAt.UTC().Format(time.RFC3339), e.ConflictingShowID, e.ConflictingStartsAt.UTC().Format(time.RFC3339))
}

func (e *ScheduleOverlapError) Unwrap() error {
	return &ShowOverlapError{ConflictingShowID: e.ConflictingShowID}
}

// Problems lists each *FieldError of err: every one of the errors an
// errors.Join holds, or the one err is or wraps. errors.As finds only the
// first; a form that reports every mistake at once reads them all here.
func Problems(err error) []*FieldError {
	var all []*FieldError
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		for _, e := range joined.Unwrap() {
			all = append(all, Problems(e)...)
		}
		return all
	}
	var one *FieldError
	if errors.As(err, &one) {
		all = append(all, one)
	}
	return all
}

// RuntimeOverlap is one upcoming show that a longer running time would make
// run into another show of its screen.
type RuntimeOverlap struct {
	ShowID            int64
	StartsAt          time.Time
	EndsAt            time.Time // as it would be
	ConflictingShowID int64
	ConflictingStarts time.Time
}

// RuntimeOverlapError is a movie's new running time refused because the
// upcoming shows of the movie would then overlap the next show on their
// screens (it is also ErrShowOverlap). Nothing changed.
type RuntimeOverlapError struct {
	DurationMinutes int // the running time asked for
	Overlaps        []RuntimeOverlap
}

func (e *RuntimeOverlapError) Error() string {
	parts := make([]string, len(e.Overlaps))
	for i, o := range e.Overlaps {
		parts[i] = fmt.Sprintf("show %d would overlap show %d", o.ShowID, o.ConflictingShowID)
	}
	return fmt.Sprintf("a running time of %d minutes: %s", e.DurationMinutes, strings.Join(parts, "; "))
}

func (e *RuntimeOverlapError) Unwrap() error { return ErrShowOverlap }

// ScreenHasShowsError is a screen that cannot be retired: scheduled shows
// of it are still to start (all of them, soonest first). Nothing changed.
type ScreenHasShowsError struct {
	Shows []ScheduledShow
}

func (e *ScreenHasShowsError) Error() string {
	return fmt.Sprintf("the screen has %d upcoming shows", len(e.Shows))
}
