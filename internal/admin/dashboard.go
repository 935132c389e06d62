package admin

import (
	"context"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// Dashboard is what an admin sees first: their theatres and how busy they
// are, and for a platform admin the ledger check.
type Dashboard struct {
	Theatres []TheatreActivity
	// Ledger is the booking invariants' check (the money ledger among
	// them), run now; nil for a theatre admin: it spans every theatre.
	Ledger *LedgerCheck
}

// TheatreActivity is a theatre with its show counts.
type TheatreActivity struct {
	catalog.AdminTheatre
	catalog.ShowCounts
}

// LedgerCheck is one run of the booking invariants' check: no violation
// is the only healthy answer.
type LedgerCheck struct {
	At         time.Time
	Violations []booking.Violation
}

// Dashboard reads the actor's theatres with their show counts, and runs the
// ledger check for a platform admin.
func (s *Service) Dashboard(ctx context.Context, a Actor) (Dashboard, error) {
	var d Dashboard
	theatres, err := s.Theatres(ctx, a)
	if err != nil {
		return d, err
	}
	ids := make([]int64, len(theatres))
	for i, t := range theatres {
		ids[i] = t.ID
	}
	counts, err := s.Store.TheatreShowCounts(ctx, ids)
	if err != nil {
		return d, err
	}
	d.Theatres = make([]TheatreActivity, len(theatres))
	for i, t := range theatres {
		c := counts[t.ID]
		c.TheatreID = t.ID
		d.Theatres[i] = TheatreActivity{AdminTheatre: t, ShowCounts: c}
	}
	if a.Platform() {
		at := s.now()
		v, err := s.Store.InvariantViolations(ctx)
		if err != nil {
			return d, err
		}
		d.Ledger = &LedgerCheck{At: at, Violations: v}
	}
	return d, nil
}
