package admin

import (
	"context"

	"github.com/marquee-tickets/marquee/internal/catalog"
)

// CheckLayout checks a drafted layout of a screen the actor administers
// as ReplaceLayout would, without changing anything: for the editor's
// preview. A bad seat is a *SeatError.
func (s *Service) CheckLayout(ctx context.Context, a Actor, screenID int64, seats []catalog.SeatSpec) error {
	if _, err := s.requireScreen(ctx, a, screenID); err != nil {
		return err
	}
	return checkLayout(seats)
}
