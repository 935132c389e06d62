package admin

import (
	"cmp"
	"context"
	"time"

	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// The settings a room gets when an admin switches it on without saying.
const (
	DefaultAdmitPerMinute = 600
	DefaultMaxActive      = 300
)

// WaitingRoom returns a show's waiting room: its settings and its queue
// now.
func (s *Service) WaitingRoom(ctx context.Context, a Actor, showID int64) (waitroom.Room, error) {
	if _, err := s.requireShow(ctx, a, showID); err != nil {
		return waitroom.Room{}, err
	}
	return s.Store.Room(ctx, showID)
}

// SetWaitingRoom switches a show's waiting room on or off with set, and
// returns it as stored. A rate or cap left zero keeps the room's own, or
// the defaults. Switching it off lets everyone waiting go on; ttl is how
// long their admissions last.
func (s *Service) SetWaitingRoom(ctx context.Context, a Actor, showID int64, set waitroom.Settings, ttl time.Duration) (waitroom.Room, error) {
	theatre, err := s.requireShow(ctx, a, showID)
	if err != nil {
		return waitroom.Room{}, err
	}
	before, err := s.Store.Room(ctx, showID)
	if err != nil {
		return waitroom.Room{}, err
	}
	if set.AdmitPerMinute == 0 {
		set.AdmitPerMinute = cmp.Or(before.AdmitPerMinute, DefaultAdmitPerMinute)
	}
	if set.MaxActive == 0 {
		set.MaxActive = cmp.Or(before.MaxActive, DefaultMaxActive)
	}
	if err := set.Check(); err != nil {
		return waitroom.Room{}, err
	}
	entry := auditEntry(a, theatre, "show.waiting_room", showObject(showID), roomAudit(before.Settings), roomAudit(set))
	if err := s.Store.SetRoom(ctx, showID, set, ttl, entry); err != nil {
		return waitroom.Room{}, err
	}
	if s.RoomChanged != nil {
		s.RoomChanged(showID)
	}
	return s.Store.Room(ctx, showID)
}

func roomAudit(s waitroom.Settings) map[string]any {
	m := map[string]any{"enabled": s.Enabled, "admit_per_minute": s.AdmitPerMinute, "max_active": s.MaxActive}
	if !s.OpensAt.IsZero() {
		m["opens_at"] = s.OpensAt.UTC()
	}
	return m
}
