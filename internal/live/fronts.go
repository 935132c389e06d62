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
	watchers map[*FrontWatch]struct{}
}

// FrontWatch is one page waiting in one room.
type FrontWatch struct {
	fronts *Fronts
	showID int64
	ticket int64
	// number is the page's place in the admission order as the page
	// says it (0: unknown, or none yet): it only decides how often the
	// page is sent the front, never who is let in.
	number int64
	c      chan waitroom.Front
	// sent is the last front handed to the page, at sentAt.
	sent    waitroom.Front
	hasSent bool
	sentAt  time.Time
}

// How often a page is sent the front. An unchanged front goes unsent for
// frontQuiet (the rate achieved drifts, and the pages' estimates with it).
// A page near the front (within nearFront of the admissions of a minute,
// at least minNear places) is sent every move, so it goes on the moment
// its turn comes; a page further back is sent one at most every farEvery:
// its place moves on screen a few seconds late, and the sockets of a long
// line cost a tenth of the writes.
const (
	frontQuiet = 10 * time.Second
	farEvery   = 5 * time.Second
	nearFront  = 0.25 // of a minute's admissions: some 15 seconds away
	minNear    = 50
)

// NewFronts returns fronts with no watchers.
func NewFronts() *Fronts { return &Fronts{rooms: map[int64]*frontRoom{}} }

// Watch starts watching showID's room for the page of ticket, which says
// it has number (0: none, or not said). The room's last front, if one was
// heard, is waiting on C at once.
func (f *Fronts) Watch(showID, ticket, number int64) *FrontWatch {
	w := &FrontWatch{fronts: f, showID: showID, ticket: ticket, number: number, c: make(chan waitroom.Front, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.room(showID)
	r.watchers[w] = struct{}{}
	if r.known {
		w.hand(r.last, time.Now())
	}
	return w
}

func (f *Fronts) room(showID int64) *frontRoom {
	r := f.rooms[showID]
	if r == nil {
		r = &frontRoom{watchers: map[*FrontWatch]struct{}{}}
		f.rooms[showID] = r
	}
	return r
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

// hand gives the page front in place of any it has not taken yet.
func (w *FrontWatch) hand(front waitroom.Front, now time.Time) {
	select {
	case <-w.c:
	default:
	}
	w.c <- front
	w.sent, w.hasSent, w.sentAt = front, true, now
}

// due says whether the page is owed front now (see farEvery).
func (w *FrontWatch) due(front waitroom.Front, now time.Time) bool {
	s := w.sent
	near := int64(max(minNear, nearFront*front.PerMinute))
	switch {
	case !w.hasSent, front.Enabled != s.Enabled, front.Open != s.Open:
		return true
	case front.Through == s.Through && math.Abs(front.PerMinute-s.PerMinute) <= s.PerMinute/10:
		return now.Sub(w.sentAt) >= frontQuiet
	case w.number == 0 || w.number-front.Through <= near:
		return true
	}
	return now.Sub(w.sentAt) >= farEvery
}

// Publish hands front to every page waiting in its room that is owed it
// (see due), and keeps it for pages to come.
func (f *Fronts) Publish(front waitroom.Front) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.room(front.ShowID)
	r.last, r.known = front, true
	now := time.Now()
	for w := range r.watchers {
		if w.due(front, now) {
			w.hand(front, now)
		}
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
