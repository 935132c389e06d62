// Package live carries committed seat changes to every browser watching a
// show, on every app instance: Postgres NOTIFY -> one dedicated listener
// connection per instance -> an in-process hub keyed by show -> bounded
// per-subscriber queues. NOTIFY is not durable, so whenever the listener
// may have missed something it tells every subscriber to resync.
package live

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/metrics"
)

// Change names seats of one show that changed in a committed transaction,
// or asks for the whole show (Resync).
type Change struct {
	ShowID int64    `json:"show"`
	Seats  []string `json:"seats,omitempty"`
	Resync bool     `json:"resync,omitempty"`
	At     int64    `json:"at,omitempty"` // Unix ms of the earliest change: the lag metric's start
	// Seq is the change's number in the feed (see migration 000012): one
	// more than the last, or something was missed. 0: not numbered.
	Seq int64 `json:"seq,omitempty"`
}

// Update is what a subscriber receives: the current state of the changed
// seats (all seats of the show on a resync), read once per instance and
// shared by every subscriber of the show.
type Update struct {
	ShowID int64
	Seats  []booking.Seat
	Resync bool
	// Snap is the show's map in memory with this update applied (nil when
	// the show's map is not kept), for a viewer to know what its page shows.
	Snap *Snapshot

	shared *shared // one per update, shared by its subscribers
}

type shared struct {
	once sync.Once
	b    []byte
	err  error
}

// Shared returns what build returns, built once per update however many
// subscribers ask for it: what every viewer of the update would render
// alike (those holding none of its seats) is rendered once.
func (u Update) Shared(build func() ([]byte, error)) ([]byte, error) {
	if u.shared == nil {
		return build()
	}
	u.shared.once.Do(func() { u.shared.b, u.shared.err = build() })
	return u.shared.b, u.shared.err
}

// Loader reads the current state of seats of a show (every seat when seats
// is nil), with HolderID set so each viewer can tell its own seats.
type Loader func(ctx context.Context, showID int64, seats []string) ([]booking.Seat, error)

// Hub fans changes out to the subscribers of each show. Publishing never
// blocks: a subscriber whose queue is full is dropped, never waited on.
type Hub struct {
	// Metrics, when set, counts subscribers, drops and the lag to fan-out.
	Metrics *metrics.Metrics
	// Now, when set, is the clock that frees held seats in the maps kept in
	// memory (tests set the store's); nil is time.Now.
	Now func() time.Time

	load  Loader
	log   *slog.Logger
	queue chan Change

	mu      sync.Mutex
	shows   map[int64]map[*Subscription]struct{}
	lost    bool               // the queue overflowed: everyone resyncs
	failed  map[int64]struct{} // shows whose seats could not be read: they resync at retryAt
	retryAt time.Time
	notify  chan struct{}

	boards map[int64]*board // the seat maps kept in memory (board.go)
	feed   bool             // the listener hears the change feed: maps may be kept
	follow chan followRequest
}

// retryDelay is how long a show whose changed seats could not be read waits
// before its subscribers get the whole map instead (the database may be
// restarting); it tries again at this pace until a read succeeds.
const retryDelay = time.Second

// NewHub returns a hub that reads seat states with load. Run must be running
// for changes to be delivered.
func NewHub(load Loader, log *slog.Logger) *Hub {
	return &Hub{
		load:   load,
		log:    log,
		queue:  make(chan Change, 4096),
		shows:  map[int64]map[*Subscription]struct{}{},
		failed: map[int64]struct{}{},
		notify: make(chan struct{}, 1),
		boards: map[int64]*board{},
		follow: make(chan followRequest, 256),
	}
}

func (h *Hub) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Subscription is one viewer of one show.
type Subscription struct {
	ShowID  int64
	updates chan *Update // pointers: a queue of 32 costs 256 bytes a subscriber
	dropped chan struct{}
	once    sync.Once
	hub     *Hub
}

// Updates delivers the show's updates in order.
func (s *Subscription) Updates() <-chan *Update { return s.updates }

// Dropped is closed when the hub gave up on a subscriber that fell behind,
// or when the subscription was closed.
func (s *Subscription) Dropped() <-chan struct{} { return s.dropped }

// Close ends the subscription.
func (s *Subscription) Close() { s.hub.remove(s) }

// Subscribe starts watching showID with a queue of buffer updates.
func (h *Hub) Subscribe(showID int64, buffer int) *Subscription {
	s := &Subscription{ShowID: showID, updates: make(chan *Update, buffer), dropped: make(chan struct{}), hub: h}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.shows[showID] == nil {
		h.shows[showID] = map[*Subscription]struct{}{}
	}
	h.shows[showID][s] = struct{}{}
	if h.Metrics != nil {
		h.Metrics.LiveSubscribers.Inc()
	}
	return s
}

func (h *Hub) remove(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if subs := h.shows[s.ShowID]; subs != nil {
		delete(subs, s)
		if len(subs) == 0 {
			delete(h.shows, s.ShowID)
		}
	}
	s.once.Do(func() {
		close(s.dropped)
		if h.Metrics != nil {
			h.Metrics.LiveSubscribers.Dec()
		}
	})
}

// Subscribers returns how many subscriptions watch showID.
func (h *Hub) Subscribers(showID int64) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.shows[showID])
}

// Publish queues a change for delivery. It never blocks: if the queue is
// full, the change is lost and every subscriber will be told to resync.
func (h *Hub) Publish(c Change) {
	select {
	case h.queue <- c:
	default:
		h.ResyncAll()
	}
}

// ResyncAll tells every subscriber of every show to reload the whole map:
// changes may have been lost (the listener reconnected, a queue overflowed).
func (h *Hub) ResyncAll() {
	h.mu.Lock()
	h.lost = true
	h.mu.Unlock()
	h.wake()
}

// wake makes Run look at the resyncs owed.
func (h *Hub) wake() {
	select {
	case h.notify <- struct{}{}:
	default:
	}
}

// Run delivers queued changes until ctx is done.
func (h *Hub) Run(ctx context.Context) {
	evict := time.NewTicker(boardIdle / 10)
	defer evict.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-h.queue:
			h.deliver(ctx, c)
		case req := <-h.follow:
			h.startFollowing(ctx, req)
		case <-evict.C:
			h.mu.Lock()
			h.evictIdle(h.now())
			h.mu.Unlock()
		case <-h.notify:
		}
		h.mu.Lock()
		var shows []int64
		if h.lost {
			// Every show watched or kept in memory is read whole again.
			shows = slices.Collect(maps.Keys(h.shows))
			for id := range h.boards {
				if _, ok := h.shows[id]; !ok {
					shows = append(shows, id)
				}
			}
			clear(h.failed) // every show resyncs anyway
		} else if len(h.failed) > 0 && !time.Now().Before(h.retryAt) {
			shows = slices.Collect(maps.Keys(h.failed))
			clear(h.failed)
		}
		h.lost = false
		h.mu.Unlock()
		for _, id := range shows {
			h.deliver(ctx, Change{ShowID: id, Resync: true})
		}
	}
}

// deliver reads the changed seats once and hands the update to every
// subscriber of the show, dropping those that cannot take it now.
func (h *Hub) deliver(ctx context.Context, c Change) {
	h.mu.Lock()
	_, followed := h.boards[c.ShowID]
	watched := len(h.shows[c.ShowID]) > 0
	h.mu.Unlock()
	if !followed && !watched {
		return
	}
	var seats []string
	if !c.Resync {
		seats = c.Seats
	}
	states, err := h.load(ctx, c.ShowID, seats)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		// The change must not be lost: the show's subscribers get the
		// whole map once a read succeeds again.
		h.log.Error("read changed seats; the show will resync", "show_id", c.ShowID, "err", err, "retry_in", retryDelay)
		h.mu.Lock()
		h.forget(c.ShowID) // stale from now on
		if !watched {
			h.mu.Unlock()
			return
		}
		if len(h.failed) == 0 {
			h.retryAt = time.Now().Add(retryDelay)
			time.AfterFunc(retryDelay, h.wake)
		}
		h.failed[c.ShowID] = struct{}{}
		h.mu.Unlock()
		return
	}
	u := &Update{ShowID: c.ShowID, Seats: states, Resync: c.Resync, shared: &shared{}}
	h.mu.Lock()
	// The map in memory first: a page read once the update is out shows it.
	h.apply(c, states)
	if b := h.boards[c.ShowID]; b != nil {
		u.Snap = b.snap
	}
	var slow []*Subscription
	for s := range h.shows[c.ShowID] {
		select {
		case s.updates <- u:
		default:
			slow = append(slow, s)
		}
	}
	h.mu.Unlock()
	if h.Metrics != nil {
		if c.At > 0 {
			h.Metrics.LiveLag.Observe(time.Since(time.UnixMilli(c.At)).Seconds())
		}
		h.Metrics.LiveDropped.Add(float64(len(slow)))
	}
	for _, s := range slow {
		s.Close()
	}
}

// CloseAll ends every subscription, as at shutdown: viewers reconnect
// (to another instance) and resync.
func (h *Hub) CloseAll() {
	h.mu.Lock()
	var all []*Subscription
	for _, subs := range h.shows {
		for s := range subs {
			all = append(all, s)
		}
	}
	h.mu.Unlock()
	for _, s := range all {
		s.Close()
	}
}
