package live

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// Fronts carries the waiting rooms' fronts to the pages waiting in them.
// Each admission step announces its room's front once (see
// waitroom.Front); every waiting page knows its own number, so that one
// announcement tells all of them their place. A watcher is only ever owed
// the latest front: one that has not taken the last is given the newer
// one in its place.
type Fronts struct {
	// Seen, when set, is told every SeenEvery which waiting tickets have
	// a page open: an open page keeps its ticket's place as polling does.
	Seen      func(ctx context.Context, ticketIDs []int64) error
	SeenEvery time.Duration
	Log       *slog.Logger

	mu    sync.Mutex
	rooms map[int64]*frontRoom
}

type frontRoom struct {
	last     waitroom.Front
	known    bool
	sentAt   time.Time
	watchers map[*FrontWatch]struct{}
}

// FrontWatch is one page waiting in one room.
type FrontWatch struct {
	fronts *Fronts
	showID int64
	ticket int64
	c      chan waitroom.Front
}

// frontQuiet is how long an unchanged front goes unsent: the rate achieved
// drifts, and the pages' estimates with it.
const frontQuiet = 10 * time.Second

// NewFronts returns fronts with no watchers.
func NewFronts() *Fronts { return &Fronts{rooms: map[int64]*frontRoom{}} }

// Watch starts watching showID's room for the page of ticket. The room's
// last front, if one was heard, is waiting on C at once.
func (f *Fronts) Watch(showID, ticket int64) *FrontWatch {
	w := &FrontWatch{fronts: f, showID: showID, ticket: ticket, c: make(chan waitroom.Front, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.rooms[showID]
	if r == nil {
		r = &frontRoom{watchers: map[*FrontWatch]struct{}{}}
		f.rooms[showID] = r
	}
	r.watchers[w] = struct{}{}
	if r.known {
		w.c <- r.last
	}
	return w
}

// C delivers the room's fronts, the latest only.
func (w *FrontWatch) C() <-chan waitroom.Front { return w.c }

// Close ends the watch.
func (w *FrontWatch) Close() {
	f := w.fronts
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.rooms[w.showID]; r != nil {
		delete(r.watchers, w)
	}
}

// Publish hands front to every page waiting in its room, unless it says
// nothing new: the same front and open state, and a rate within a tenth
// of the last sent less than frontQuiet ago.
func (f *Fronts) Publish(front waitroom.Front) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.rooms[front.ShowID]
	if r == nil {
		// Kept for the first page to come: it is sent the front at once.
		r = &frontRoom{watchers: map[*FrontWatch]struct{}{}}
		f.rooms[front.ShowID] = r
	}
	now := time.Now()
	if r.known && r.last.Through == front.Through && r.last.Open == front.Open && r.last.Enabled == front.Enabled &&
		math.Abs(r.last.PerMinute-front.PerMinute) <= r.last.PerMinute/10 && now.Sub(r.sentAt) < frontQuiet {
		return
	}
	r.last, r.known, r.sentAt = front, true, now
	for w := range r.watchers {
		select {
		case <-w.c: // not taken yet: this one replaces it
		default:
		}
		w.c <- front
	}
}

// Last returns showID's last front heard here, if any.
func (f *Fronts) Last(showID int64) (waitroom.Front, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r := f.rooms[showID]; r != nil && r.known {
		return r.last, true
	}
	return waitroom.Front{}, false
}

// Watching returns the tickets of the pages waiting now.
func (f *Fronts) Watching() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []int64
	for _, r := range f.rooms {
		for w := range r.watchers {
			ids = append(ids, w.ticket)
		}
	}
	return ids
}

// Run tells Seen, every SeenEvery, which tickets have a page open, until
// ctx is done.
func (f *Fronts) Run(ctx context.Context) {
	if f.Seen == nil || f.SeenEvery <= 0 {
		return
	}
	t := time.NewTicker(f.SeenEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := f.Seen(ctx, f.Watching()); err != nil && ctx.Err() == nil {
				f.Log.Error("mark waiting pages seen", "err", err)
			}
		}
	}
}
