package live

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// Every instance keeps the seat map of each show people are looking at in
// memory, so that a page view, a seat map read and a socket's first message
// cost no database read. A map is read whole once, by the hub's goroutine,
// and from then on follows the change feed: the hub reads the seats of each
// change and applies them before it hands the change to anyone, so a map
// read after a change was delivered never shows the state before it. When
// the feed may have lost something (a reconnect, a gap in its numbers, a
// queue overflow, a read that failed) the maps are read whole again or
// forgotten. A held seat is freed in memory at the moment its hold lets it
// go, as the database's reads do, without waiting for the sweeper.

// Snapshot is a show's seat map at one moment. It never changes once made:
// any number of readers share it, and what is built from it (a rendered
// fragment, its gzip, JSON) is built once per snapshot (Memo).
type Snapshot struct {
	ShowID int64
	// Version counts this instance's snapshots of the show: a new one for
	// every change applied and every hold that lapsed.
	Version uint64
	// Seats are in grid order, as booking.Seat with Mine unset: HolderID
	// names the user holding a held seat, HeldUntil when it is freed.
	Seats []booking.Seat
	// Until is the first moment a seat held in it is freed (zero: no seat
	// is held); the snapshot says the truth only before it.
	Until time.Time

	index map[string]int // seat id -> position in Seats, shared by successive snapshots
	memo  sync.Map       // key -> *memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// Memo returns what build returns for key, built once per snapshot however
// many readers ask at once.
func (s *Snapshot) Memo(key string, build func() (any, error)) (any, error) {
	e, _ := s.memo.LoadOrStore(key, &memoEntry{})
	m := e.(*memoEntry)
	m.once.Do(func() { m.v, m.err = build() })
	return m.v, m.err
}

// Seat returns the seat with id, if the map has it.
func (s *Snapshot) Seat(id string) (booking.Seat, bool) {
	i, ok := s.index[id]
	if !ok {
		return booking.Seat{}, false
	}
	return s.Seats[i], true
}

// ViewedBy returns the seats as viewer ("" for a guest) sees them: Mine set
// on theirs. hold is the viewer's live hold of this show, read from the
// database (nil: none), and freed the seats they have just let go: both may
// be newer than the snapshot, which the change feed brings a moment later,
// so they are laid over it. The seats of hold are the viewer's, the freed
// ones available, and seats the snapshot still gives the viewer otherwise
// (booked since, or let go) are shown held rather than offered. shared
// tells that the result is Seats itself (the viewer sees what everyone
// without seats of their own sees), which must not be written.
func (s *Snapshot) ViewedBy(viewer string, hold *booking.Hold, freed []string) (seats []booking.Seat, shared bool) {
	seats, shared = s.Seats, true
	if viewer == "" {
		return seats, shared
	}
	change := func(i int, seat booking.Seat) {
		if shared {
			seats, shared = slices.Clone(seats), false
		}
		seats[i] = seat
	}
	for i, seat := range s.Seats {
		switch {
		case hold != nil && hold.ShowID == s.ShowID && slices.Contains(hold.Seats, seat.ID):
			seat.Status, seat.HolderID, seat.HeldUntil, seat.Mine = booking.SeatHeld, viewer, hold.LetsGoAt(), true
			change(i, seat)
		case seat.HolderID != viewer:
		case slices.Contains(freed, seat.ID):
			seat.Status, seat.HolderID, seat.HeldUntil = booking.SeatAvailable, "", time.Time{}
			change(i, seat)
		default:
			seat.HolderID = "" // held, but not by a hold the viewer has now
			change(i, seat)
		}
	}
	return seats, shared
}

// newSnapshot makes the first snapshot of a show from all its seats.
func newSnapshot(showID int64, seats []booking.Seat, now time.Time) *Snapshot {
	index := make(map[string]int, len(seats))
	for i, seat := range seats {
		index[seat.ID] = i
	}
	s := &Snapshot{ShowID: showID, Version: 1, Seats: seats, index: index}
	return s.freedAt(now)
}

// patched returns the snapshot after the given seats changed to states (their
// current state in the database), or false when one of them is not on the
// map: the show's layout changed, and the map must be read whole.
func (s *Snapshot) patched(states []booking.Seat, now time.Time) (*Snapshot, bool) {
	seats := slices.Clone(s.Seats)
	for _, st := range states {
		i, ok := s.index[st.ID]
		if !ok || seats[i].GridRow != st.GridRow || seats[i].GridCol != st.GridCol {
			return nil, false
		}
		st.Mine = false
		seats[i] = st
	}
	next := &Snapshot{ShowID: s.ShowID, Version: s.Version + 1, Seats: seats, index: s.index}
	return next.freedAt(now), true
}

// freedAt frees the seats whose holds have let them go by now, in a new
// snapshot when there are any, and sets Until.
func (s *Snapshot) freedAt(now time.Time) *Snapshot {
	out := s
	var until time.Time
	for i, seat := range s.Seats {
		if seat.Status != booking.SeatHeld || seat.HeldUntil.IsZero() {
			continue
		}
		if !now.Before(seat.HeldUntil) {
			if out == s {
				out = &Snapshot{ShowID: s.ShowID, Version: s.Version + 1, Seats: slices.Clone(s.Seats), index: s.index}
			}
			out.Seats[i] = seat.FreeAt(now)
			continue
		}
		if until.IsZero() || seat.HeldUntil.Before(until) {
			until = seat.HeldUntil
		}
	}
	out.Until = until
	return out
}

// stale reports whether a seat held in the snapshot has been freed by now.
func (s *Snapshot) stale(now time.Time) bool {
	return !s.Until.IsZero() && !now.Before(s.Until)
}

// boardIdle is how long a show's map is kept after it was last read with
// nobody watching it live: then it is forgotten, and read whole again by the
// next viewer. It bounds the memory to the shows people look at.
const boardIdle = 10 * time.Minute

// board is the hub's map of one show.
type board struct {
	snap *Snapshot
	used time.Time // last read
}

type followRequest struct {
	showID int64
	done   chan error
}

// Map returns showID's seat map as this instance knows it now, reading it
// whole first if it is not followed yet. A show that is not on sale (none,
// cancelled) is booking.ErrNotFound. Run must be running.
func (h *Hub) Map(ctx context.Context, showID int64) (*Snapshot, error) {
	for range 3 {
		now := h.now()
		h.mu.Lock()
		if !h.feed {
			// Nobody hears the changes: a map kept now would go stale.
			h.mu.Unlock()
			return h.read(ctx, showID, now)
		}
		if b := h.boards[showID]; b != nil {
			b.used = now
			if b.snap.stale(now) {
				b.snap = b.snap.freedAt(now)
			}
			snap := b.snap
			h.mu.Unlock()
			return snap, nil
		}
		h.mu.Unlock()
		// The hub's goroutine reads it, in order with the changes it
		// applies: no change can fall between the read and the first one.
		req := followRequest{showID: showID, done: make(chan error, 1)}
		select {
		case h.follow <- req:
		case <-ctx.Done():
			return nil, fmt.Errorf("seat map of show %d: %w", showID, ctx.Err())
		}
		select {
		case err := <-req.done:
			if err != nil {
				return nil, err
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("seat map of show %d: %w", showID, ctx.Err())
		}
	}
	// Read three times and forgotten each time (the feed kept failing).
	return nil, fmt.Errorf("seat map of show %d: the change feed keeps failing", showID)
}

// read reads a show's map whole, for one reader: not kept.
func (h *Hub) read(ctx context.Context, showID int64, now time.Time) (*Snapshot, error) {
	seats, err := h.load(ctx, showID, nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read seat map of show %d: %w", showID, err)
	case len(seats) == 0:
		return nil, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	return newSnapshot(showID, seats, now), nil
}

// FeedUp tells the hub that its listener hears the change feed (it has
// just run LISTEN): from now on it keeps the maps it is asked for.
func (h *Hub) FeedUp() {
	h.mu.Lock()
	h.feed = true
	h.mu.Unlock()
}

// FeedDown tells the hub that its listener has lost the feed: every map
// kept is forgotten, and until FeedUp each ask reads the database.
func (h *Hub) FeedDown() {
	h.mu.Lock()
	h.feed = false
	clear(h.boards)
	h.mu.Unlock()
}

// startFollowing reads a show's map whole, on the hub's goroutine.
func (h *Hub) startFollowing(ctx context.Context, req followRequest) {
	h.mu.Lock()
	_, ok := h.boards[req.showID]
	h.mu.Unlock()
	if ok {
		req.done <- nil
		return
	}
	seats, err := h.load(ctx, req.showID, nil)
	switch {
	case err != nil:
		req.done <- fmt.Errorf("read seat map of show %d: %w", req.showID, err)
		return
	case len(seats) == 0:
		req.done <- fmt.Errorf("show %d: %w", req.showID, booking.ErrNotFound)
		return
	}
	now := h.now()
	h.mu.Lock()
	if h.feed { // else the feed was lost during the read: Map reads again
		h.boards[req.showID] = &board{snap: newSnapshot(req.showID, seats, now), used: now}
	}
	h.mu.Unlock()
	req.done <- nil
}

// apply brings the show's map, if followed, up to date with states, read
// for change c; h.mu is held. A resync replaces the map; a show with no
// seats on sale any more, or whose layout changed under a change, is
// forgotten (read whole again when next asked for).
func (h *Hub) apply(c Change, states []booking.Seat) {
	b := h.boards[c.ShowID]
	if b == nil {
		return
	}
	now := h.now()
	switch {
	case len(states) == 0 && (c.Resync || len(c.Seats) > 0):
		delete(h.boards, c.ShowID)
	case c.Resync:
		next := newSnapshot(c.ShowID, states, now)
		next.Version = b.snap.Version + 1
		b.snap = next
	default:
		next, ok := b.snap.patched(states, now)
		if !ok {
			delete(h.boards, c.ShowID)
			return
		}
		b.snap = next
	}
}

// forget drops the map of a show whose change could not be read: it is
// read whole again when next asked for. h.mu is held.
func (h *Hub) forget(showID int64) { delete(h.boards, showID) }

// evictIdle forgets the maps nobody has read for boardIdle and nobody
// watches live. h.mu is held.
func (h *Hub) evictIdle(now time.Time) {
	for id, b := range h.boards {
		if now.Sub(b.used) >= boardIdle && len(h.shows[id]) == 0 {
			delete(h.boards, id)
		}
	}
}

// Followed returns how many shows' maps this instance keeps.
func (h *Hub) Followed() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.boards)
}
