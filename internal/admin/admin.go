// Package admin holds the theatre admin's use cases: cities, theatres and
// grants, screens and their seat layouts, movies, shows and prices, seat
// blocks, show cancellation and the sales figures. The JSON API
// (web/adminapi) and the admin pages call the same methods.
//
// Each use case first decides who may do it. A platform admin may do
// everything; a theatre admin only what concerns the theatres granted to
// them, and an object of another theatre is not found (ErrNotFound, as for
// another user's hold: never a hint that it exists); a moviegoer nothing
// (ErrForbidden). Then the store makes the change and its audit entry in
// one transaction.
package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
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
}

// Platform reports whether the actor is a platform admin.
func (a Actor) Platform() bool { return a.Role == auth.RolePlatformAdmin }

// Actor returns the admin signed in as userID, or ErrForbidden for a
// moviegoer (or an account that is gone).
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
	return Actor{UserID: u.ID, Email: u.Email, Role: u.Role}, nil
}

// requirePlatform refuses anyone but a platform admin.
func requirePlatform(a Actor) error {
	if !a.Platform() {
		return ErrPlatformOnly
	}
	return nil
}

// requireTheatre refuses an actor who may not administer theatre id, with
// booking.ErrNotFound: to them it does not exist.
func (s *Service) requireTheatre(ctx context.Context, a Actor, theatreID int64) error {
	if a.Platform() {
		return nil
	}
	ok, err := s.Store.AdministersTheatre(ctx, a.UserID, theatreID)
	if err != nil {
		return fmt.Errorf("check theatre %d of %s: %w", theatreID, a.UserID, err)
	}
	if !ok {
		return fmt.Errorf("theatre %d: %w", theatreID, booking.ErrNotFound)
	}
	return nil
}

// auditEntry is the entry for a change by a to object of theatre theatreID (0
// for none).
func auditEntry(a Actor, theatreID int64, action, object string, before, after any) audit.Entry {
	return audit.Entry{ActorID: a.UserID, TheatreID: theatreID, Action: action, Object: object, Before: before, After: after}
}

// requireScreen refuses an actor who may not administer the screen's
// theatre, and returns that theatre.
func (s *Service) requireScreen(ctx context.Context, a Actor, screenID int64) (int64, error) {
	theatre, err := s.Store.TheatreOfScreen(ctx, screenID)
	if err != nil {
		return 0, err
	}
	return theatre, s.requireTheatre(ctx, a, theatre)
}

// requireShow refuses an actor who may not administer the show's theatre,
// and returns that theatre.
func (s *Service) requireShow(ctx context.Context, a Actor, showID int64) (int64, error) {
	theatre, err := s.Store.TheatreOfShow(ctx, showID)
	if err != nil {
		return 0, err
	}
	return theatre, s.requireTheatre(ctx, a, theatre)
}
