// Package stream makes a paced stream of seat changes on one show through
// the store and times their arrival at receivers (hub subscribers,
// websocket clients): the live seat map's delay as a viewer sees it.
package stream

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// A Stream is a paced sequence of seat changes on one show, made through
// Store.HoldSeats and Store.CancelHold, whose arrival at receivers is
// timed.
//
// The show's seats are cut into slots of two adjacent seats, each slot with
// its own user (one active hold per user). Change i goes to slot i mod L and
// holds it in even passes over the slots, releases it in odd ones, so a
// seat changes once every L changes (L/rate seconds: 2.5 s and more in the
// benchmarks), far longer than any delivery takes. That makes matching
// exact without message ids: a receiver that sees a slot's first seat in
// the state the slot's current change produces (held, or available) has
// seen that change, because the seat reads that way only once the change
// has committed.
//
// The commit time is the client's clock right after HoldSeats or
// CancelHold returned, so a latency here is from "the caller knows it
// committed" to "the receiver has the seat's new state"; the server commits
// a little earlier than that.
type Stream struct {
	store *postgres.Store
	show  int64
	users []seed.User
	slots [][]string     // per slot, its two seats
	first map[string]int // a slot's first seat -> slot
	rate  float64        // changes per second
	base  time.Time      // receive and commit times are offsets from here

	cur     []atomic.Int64 // per slot: index of its current change, -1 before any
	changes []change       // preallocated; change k is written before cur points at it
	issued  atomic.Int64   // changes started

	holdIDs []string        // per slot, its hold while held (only the driver touches it)
	busy    []chan struct{} // per slot: closed when its last change finished
}

// keys makes every stream hold's Idempotency-Key unique in the process: a
// key used again by the same user would replay the old hold, changing
// nothing.
var keys atomic.Int64

type change struct {
	slot      int
	hold      bool // hold (the seats read held) or release (available)
	ok        bool
	err       error
	committed int64 // ns since base; set when the call returned
}

// New prepares a stream on show, whose first rows x cols seats (cols even)
// are laid out as seed.Grid lays them out, with one of users per slot, to
// run for d at rate changes per second.
func New(store *postgres.Store, show int64, rows, cols int, users []seed.User, rate float64, d time.Duration) (*Stream, error) {
	// Poisson arrivals: room for the mean plus six standard deviations.
	mean := rate * d.Seconds()
	capacity := int(mean+6*math.Sqrt(mean)) + 16
	nSlots := rows * cols / 2
	if len(users) < nSlots {
		return nil, fmt.Errorf("stream: %d users for %d slots", len(users), nSlots)
	}
	s := &Stream{
		store: store, show: show, users: users[:nSlots], first: map[string]int{}, rate: rate,
		cur: make([]atomic.Int64, nSlots), changes: make([]change, capacity),
		holdIDs: make([]string, nSlots), busy: make([]chan struct{}, nSlots),
	}
	for r := range rows {
		for c := 0; c+1 < cols; c += 2 {
			s.first[seed.SeatID(r, c)] = len(s.slots)
			s.slots = append(s.slots, []string{seed.SeatID(r, c), seed.SeatID(r, c+1)})
		}
	}
	for i := range s.cur {
		s.cur[i].Store(-1)
		ch := make(chan struct{})
		close(ch)
		s.busy[i] = ch
	}
	s.base = time.Now()
	return s, nil
}

// Now is the stream's clock for receivers: nanoseconds since it was made.
func (s *Stream) Now() int64 { return int64(time.Since(s.base)) }

// Run makes changes at the stream's rate on average until d has passed,
// ctx ends or the capacity is used up, then waits for the changes in
// flight. Changes arrive as a Poisson process (exponential gaps): a fixed
// period would lock their phase to the notifier's 50 ms tick and measure
// one arbitrary point of the batching delay instead of its spread. Each
// change runs in its own goroutine, so one slow call does not delay the
// schedule; a slot's change waits for that slot's previous one.
func (s *Stream) Run(ctx context.Context, d time.Duration) {
	rng := rand.New(rand.NewPCG(uint64(s.show), uint64(s.issued.Load())))
	began := time.Now()
	end := began.Add(d)
	next := began
	var wg sync.WaitGroup
	for i := int(s.issued.Load()); i < len(s.changes) && ctx.Err() == nil; i++ {
		next = next.Add(time.Duration(rng.ExpFloat64() / s.rate * float64(time.Second)))
		if !next.Before(end) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(next)):
		}
		slot := i % len(s.slots)
		hold := (i/len(s.slots))%2 == 0
		prev := s.busy[slot]
		done := make(chan struct{})
		s.busy[slot] = done
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done)
			<-prev
			s.change(ctx, i, slot, hold)
		}()
		s.issued.Store(int64(i + 1))
	}
	wg.Wait()
}

// change k: hold or release the slot, publishing k as the slot's current
// change before the call so a receiver can recognise its effect at once.
func (s *Stream) change(ctx context.Context, k, slot int, hold bool) {
	c := &s.changes[k]
	c.slot, c.hold = slot, hold
	if !hold && s.holdIDs[slot] == "" {
		c.err = fmt.Errorf("slot %d has no hold to release", slot)
		return // never published: nothing to receive
	}
	s.cur[slot].Store(int64(k))
	u := s.users[slot]
	var err error
	if hold {
		var res booking.HoldResult
		res, err = s.store.HoldSeats(ctx, booking.HoldRequest{
			UserID: u.ID, ShowID: s.show, Seats: s.slots[slot], TTL: 5 * time.Minute,
			Key: fmt.Sprintf("stream-%d", keys.Add(1)),
		}, seed.MaxSeatsPerHold)
		if err == nil {
			s.holdIDs[slot] = res.Hold.ID
		}
	} else {
		_, err = s.store.CancelHold(ctx, u.ID, s.holdIDs[slot])
		s.holdIDs[slot] = ""
	}
	c.committed = s.Now()
	c.ok, c.err = err == nil, err
}

// ReleaseAll cancels every hold the stream still has, so the show's seats
// are all available again. It makes no timed changes.
func (s *Stream) ReleaseAll(ctx context.Context) error {
	for slot, id := range s.holdIDs {
		if id == "" {
			continue
		}
		if _, err := s.store.CancelHold(ctx, s.users[slot].ID, id); err != nil {
			return fmt.Errorf("stream: release slot %d: %w", slot, err)
		}
		s.holdIDs[slot] = ""
	}
	return nil
}

// Made returns how many changes were made and how many failed (with the
// first error).
func (s *Stream) Made() (n, failed int, first error) {
	for _, c := range s.changes[:s.issued.Load()] {
		n++
		if !c.ok {
			failed++
			if first == nil {
				first = c.err
			}
		}
	}
	return n, failed, first
}

// CommittedBetween is how many changes succeeded with their call returning
// in [from, to).
func (s *Stream) CommittedBetween(from, to time.Time) int {
	n := 0
	for _, c := range s.changes[:s.issued.Load()] {
		at := s.base.Add(time.Duration(c.committed))
		if c.ok && !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

// Receiver is one subscriber's view of a stream: when it first saw each
// change. One goroutine at a time feeds it.
type Receiver struct {
	s    *Stream
	recv []int64 // per change: ns since base + 1; 0 = not seen
	// Msgs counts the messages its feeder read (updates after the first
	// seat map): the feeder counts them, Saw does not.
	Msgs int
}

// NewReceiver returns a receiver of the stream's changes.
func (s *Stream) NewReceiver() *Receiver {
	return &Receiver{s: s, recv: make([]int64, len(s.changes))}
}

// Now is the stream's clock (Stream.Now), for timing what the receiver saw.
func (r *Receiver) Now() int64 { return r.s.Now() }

// Saw records that the receiver has seat in the given state (held, or
// available) at time at (from Now). Only the first seat of a slot is
// looked at.
func (r *Receiver) Saw(seat string, held bool, at int64) {
	slot, ok := r.s.first[seat]
	if !ok {
		return
	}
	k := r.s.cur[slot].Load()
	if k < 0 || r.recv[k] != 0 || r.s.changes[k].hold != held {
		return
	}
	r.recv[k] = at + 1
}

// Latencies is what a set of receivers measured.
type Latencies struct {
	Lat     []time.Duration // every (receiver, change) seen, sorted
	Slowest []time.Duration // per change: the last receiver to see it, sorted
	Missed  int             // (receiver, change) pairs never seen
	// Superseded counts (receiver, change) pairs not seen because a later
	// change of the same seats was: the hub sends a seat's state when it
	// reads it, so a hold released within one batch may only ever be seen
	// released. Only the last state of a seat must arrive.
	Superseded int
	Early      int // seen before the caller's call returned (counted as 0)
	Changes    int // successful changes
	Failures   int
}

// Collect matches receivers against the changes. Call it after Run (and
// after the receivers stopped being fed). Receivers for which skip is true
// (dropped ones) count neither as seen nor missed.
func (s *Stream) Collect(rs []*Receiver, skip func(i int) bool) Latencies {
	var out Latencies
	n := int(s.issued.Load())
	for k := range n {
		c := &s.changes[k]
		if !c.ok {
			out.Failures++
			continue
		}
		out.Changes++
		var slowest time.Duration
		seen := false
		for i, r := range rs {
			if skip != nil && skip(i) {
				continue
			}
			if r.recv[k] == 0 {
				if s.seenLater(r, k, n) {
					out.Superseded++
				} else {
					out.Missed++
				}
				continue
			}
			d := time.Duration(r.recv[k] - 1 - c.committed)
			if d < 0 {
				out.Early++
				d = 0
			}
			out.Lat = append(out.Lat, d)
			slowest = max(slowest, d)
			seen = true
		}
		if seen {
			out.Slowest = append(out.Slowest, slowest)
		}
	}
	slices.Sort(out.Lat)
	slices.Sort(out.Slowest)
	return out
}

// seenLater reports whether r saw a later successful change of change k's
// slot, among the first n changes.
func (s *Stream) seenLater(r *Receiver, k, n int) bool {
	for j := k + 1; j < n; j++ {
		if c := &s.changes[j]; c.ok && c.slot == s.changes[k].slot && r.recv[j] != 0 {
			return true
		}
	}
	return false
}

// Summary is "p50 / p99 / max" of l.Lat in ms, or "-" when nothing was seen.
func (l Latencies) Summary() string {
	if len(l.Lat) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s / %s / %s", stats.Ms(stats.Percentile(l.Lat, 50)), stats.Ms(stats.Percentile(l.Lat, 99)), stats.Ms(stats.Percentile(l.Lat, 100)))
}
