// Package admitter runs the waiting rooms' admission steps: once a
// second, each room that is on admits its next waiters (see
// postgres.Store.StepRoom). Every instance runs one; the room's lock in the
// database makes one step at a time per room whatever the instances, and
// the rate is counted from the time of the last step, so more instances
// never admit faster.
package admitter

import (
	"context"
	"log/slog"
	"time"

	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Worker steps every room that is on, every Interval.
type Worker struct {
	Store *postgres.Store
	// TTL is how long an admission lasts unused.
	TTL      time.Duration
	Interval time.Duration
	Log      *slog.Logger
}

// Run steps the rooms until ctx is done.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.Step(ctx)
		}
	}
}

// Step takes one admission step in every room that is on, and returns how
// many rooms it stepped (those another instance was stepping are left to
// it).
func (w *Worker) Step(ctx context.Context) int {
	rooms, err := w.Store.EnabledRooms(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.Log.Error("list waiting rooms", "err", err)
		}
		return 0
	}
	stepped := 0
	for _, show := range rooms {
		front, ran, err := w.Store.StepRoom(ctx, show, w.TTL)
		if err != nil {
			if ctx.Err() == nil {
				w.Log.Error("admission step", "show_id", show, "err", err)
			}
			continue
		}
		if ran {
			w.Log.Debug("admission step", "show_id", show, "open", front.Open, "through", front.Through)
			stepped++
		}
	}
	return stepped
}
