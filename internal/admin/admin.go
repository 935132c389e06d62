// Package admin holds the theatre admin's use cases: cities, theatres and
// grants, screens and their seat layouts, movies, shows and prices, seat
// blocks, show cancellation and the sales figures. The JSON API
// (web/adminapi) and the admin pages call the same methods.
//
// Each use case first decides who may do it. A platform admin may do
// everything; theatre staff only what their role at a theatre allows there
// (see Power; ErrRole otherwise), and an object of a theatre they have no
// role at is not found (ErrNotFound, as for another user's hold: never a
// hint that it exists); a moviegoer nothing (ErrForbidden). Then the store makes the change and its audit entry in
// one transaction.
package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/ticket"
)

var (
	// ErrForbidden is a caller who is no admin at all.
	ErrForbidden = errors.New("admin: the caller is not an admin")
	// ErrPlatformOnly is a theatre admin asking for what only a platform
	// admin may do (cities, theatres, grants, the movie catalogue).
	ErrPlatformOnly = errors.New("admin: only a platform admin may do this")
)

// Service is the admin's use cases on the store.
type Service struct {
	Store *postgres.Store
	Log   *slog.Logger
	// RoomChanged, when set, is told of a waiting room switched on or off
	// or changed.
	RoomChanged func(showID int64)
	// Tickets verify the ticket codes scanned at the door; nil:
	// ticket.DevKeys.
	Tickets *ticket.Keys

	postersOnce sync.Once
	posters     posterSlots // see posterSlots; made on first use
}

// posterSlots are the service's slots for decoding posters.
func (s *Service) posterSlots() posterSlots {
	s.postersOnce.Do(func() { s.posters = newPosterSlots() })
	return s.posters
}

// Actor is the admin a use case acts for.
type Actor struct {
	UserID string
	Email  string
	Role   auth.Role
	// Roles are the actor's staff roles by theatre, as they were when the
	// actor was read: for showing what they may do. Each use case checks
	// the role anew (see require).
	Roles map[int64]auth.StaffRole
}

// Platform reports whether the actor is a platform admin.
func (a Actor) Platform() bool { return a.Role == auth.RolePlatformAdmin }

// Can reports whether the actor may do what needs p at theatre theatreID,
// as far as the actor knows (see Actor.Roles).
func (a Actor) Can(p Power, theatreID int64) bool {
	return a.Platform() || RoleCan(a.Roles[theatreID], p)
}

// CanAnywhere reports whether the actor may do what needs p at some
// theatre.
func (a Actor) CanAnywhere(p Power) bool {
	if a.Platform() {
		return true
	}
	for _, r := range a.Roles {
		if RoleCan(r, p) {
			return true
		}
	}
	return false
}

// Actor returns the admin or theatre staff signed in as userID, or
// ErrForbidden for a moviegoer (or an account that is gone).
func (s *Service) Actor(ctx context.Context, userID string) (Actor, error) {
	u, err := s.Store.User(ctx, userID)
	if errors.Is(err, booking.ErrNotFound) {
		return Actor{}, ErrForbidden
	}
	if err != nil {
		return Actor{}, fmt.Errorf("admin actor: %w", err)
	}
	if u.Role != auth.RoleTheatreAdmin && u.Role != auth.RolePlatformAdmin {
		return Actor{}, ErrForbidden
	}
	roles, err := s.Store.StaffRoles(ctx, u.ID)
	if err != nil {
		return Actor{}, fmt.Errorf("admin actor: %w", err)
	}
	return Actor{UserID: u.ID, Email: u.Email, Role: u.Role, Roles: roles}, nil
}

// Power is something a staff role may do at its theatre.
type Power int

const (
	// Manage is running the theatre: places, screens, schedule, prices,
	// seat blocks, cancelling shows, sales figures, reconciliation and the
	// theatre's staff.
	Manage Power = iota + 1
	// Sell is the counter: selling seats, refunding one booking, finding
	// a booking and resending its ticket.
	Sell
	// SeeAttendees is reading a show's attendees, with their names and
	// e-mail addresses.
	SeeAttendees
	// CheckIn is admitting ticket holders at the door.
	CheckIn
	// SeeShows is reading the theatre's shows and their occupancy.
	SeeShows
)

// RoleCan reports whether staff role r may do what needs p.
func RoleCan(r auth.StaffRole, p Power) bool {
	switch r {
	case auth.StaffManager:
		return true
	case auth.StaffBoxOffice:
		return p == Sell || p == SeeAttendees || p == CheckIn || p == SeeShows
	case auth.StaffUsher:
		return p == CheckIn || p == SeeShows
	}
	return false
}

// requirePlatform refuses anyone but a platform admin.
func requirePlatform(a Actor) error {
	if !a.Platform() {
		return ErrPlatformOnly
	}
	return nil
}

// ErrRole is staff whose role at a theatre does not give them what a use
// case needs there.
var ErrRole = errors.New("admin: the caller's role at this theatre does not allow this")

// require refuses an actor who may not do what needs p at theatre
// theatreID: with no role there, booking.ErrNotFound (to them it does not
// exist); with a role that lacks p, ErrRole.
func (s *Service) require(ctx context.Context, a Actor, theatreID int64, p Power) error {
	if a.Platform() {
		return nil
	}
	role, err := s.Store.StaffRole(ctx, a.UserID, theatreID)
	if err != nil {
		return fmt.Errorf("check theatre %d of %s: %w", theatreID, a.UserID, err)
	}
	if role == "" {
		return fmt.Errorf("theatre %d: %w", theatreID, booking.ErrNotFound)
	}
	if !RoleCan(role, p) {
		return fmt.Errorf("theatre %d as %s: %w", theatreID, role, ErrRole)
	}
	return nil
}

// requireTheatre refuses an actor who may not manage theatre id (see
// require).
func (s *Service) requireTheatre(ctx context.Context, a Actor, theatreID int64) error {
	return s.require(ctx, a, theatreID, Manage)
}

// now is the store's clock: the machine's, or a test's.
func (s *Service) now() time.Time {
	if s.Store.Clock != nil {
		return s.Store.Clock()
	}
	return time.Now()
}

// auditEntry is the entry for a change by a to object of theatre theatreID (0
// for none).
func auditEntry(a Actor, theatreID int64, action, object string, before, after any) audit.Entry {
	return audit.Entry{ActorID: a.UserID, TheatreID: theatreID, Action: action, Object: object, Before: before, After: after}
}

// requireScreen refuses an actor who may not manage the screen's theatre,
// and returns that theatre.
func (s *Service) requireScreen(ctx context.Context, a Actor, screenID int64) (int64, error) {
	theatre, err := s.Store.TheatreOfScreen(ctx, screenID)
	if err != nil {
		return 0, err
	}
	return theatre, s.requireTheatre(ctx, a, theatre)
}

// requireShow refuses an actor who may not manage the show's theatre, and
// returns that theatre.
func (s *Service) requireShow(ctx context.Context, a Actor, showID int64) (int64, error) {
	return s.requireShowFor(ctx, a, showID, Manage)
}

// requireShowFor refuses an actor who may not do what needs p at the
// show's theatre, and returns that theatre.
func (s *Service) requireShowFor(ctx context.Context, a Actor, showID int64, p Power) (int64, error) {
	theatre, err := s.Store.TheatreOfShow(ctx, showID)
	if err != nil {
		return 0, err
	}
	return theatre, s.require(ctx, a, theatre, p)
}
