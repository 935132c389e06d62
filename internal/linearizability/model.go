// Package linearizability is the sequential specification of Marquee's seats
// and holds, for checking with porcupine that what many concurrent clients
// saw of a real server could have happened one request at a time, each at
// some instant between its call and its answer. Its test records such a
// history against the HTTP server on real PostgreSQL and checks it.
//
// # Objects and partitions
//
// The history is checked in partitions, each of which must be linearizable
// on its own (porcupine checks them in parallel):
//
//   - one per seat of the show, with the states
//     FREE, HELD(hold h of user u, until E) and BOOKED(booking b of hold h);
//   - one per hold, with the states HELD(until E), CONFIRMED(by payment p,
//     booking b), CANCELLED and EXPIRED.
//
// A request appears in every partition it touches: a hold request in the
// partitions of the seats it asked for (and of its hold, when it got one), a
// payment, a release or a look at a hold in its hold's partition and its
// seats', a cancelled booking in its seats', and a read of the seat map in
// every seat's, seeing that seat's status in it. What one partition cannot
// see, the test's SQL invariants do: that a hold takes all of its seats or
// none (booking_invariant_violations, I5).
//
// The operations and what each may answer:
//
//   - hold(seats) -> held (hold h, until E) | taken (the seats named). A seat
//     may be held only when it is free; taken names exactly the seats that
//     are not, so a seat asked for and not named was free. A new hold's E is
//     its decision time plus HOLD_TTL, and the decision lies within its
//     request.
//   - release(h) -> CANCELLED | EXPIRED | CONFIRMED (409 hold_confirmed). The
//     seats of a live hold become free.
//   - pay(h, payment p) -> BOOKED (booking b) | REFUND_REQUIRED (reason). The
//     first payment of a live hold books its seats; any other payment books
//     nothing (hold_expired, hold_cancelled, already_confirmed), and one that
//     came too late ends the hold, freeing its seats. A payment reported
//     again answers as it did the first time.
//   - cancel(b): a booked seat becomes free; cancelling again changes nothing.
//   - read the seat map -> each seat AVAILABLE | HELD (mine or not) | BOOKED.
//   - read hold h -> HELD | CONFIRMED | CANCELLED | EXPIRED.
//
// # Time
//
// A hold is live while now < E and lapsed from E on, exactly. (The holds
// here are paid by webhook without a checkout, so they have no payment
// grace: a hold a checkout was opened for lapses at E plus its grace, which
// internal/reconcile's and web/api's grace tests check.) Expiry is not
// an event but the passage of time: the state keeps HELD(h, until E), and
// every operation judges it by the clock. The sweeper, which ends lapsed
// holds in the background, must therefore be invisible: a seat it released
// is exactly a seat whose hold has lapsed, and the test runs the real
// sweeper throughout to show that nothing anyone sees depends on whether it
// has run.
//
// An operation judges expiry by one reading of the database's clock taken
// during its request, so an operation called at c and answered at r may
// find a hold until E live only if c < E, and lapsed only if r >= E; one
// whose request spans E may find either. The instant each operation reads
// the clock is not required to be in the order in which the operations
// linearize: a decision taken under a row lock becomes visible only when its
// transaction commits, and a read of the seat map takes its snapshot before
// it reads the clock, so around E two honest operations on one seat may
// read the clock in one order and take effect in the other. Away from E
// (by more than a request's length) the check is exact: a seat map that
// still shows a lapsed hold, or a payment that books one, fails it.
//
// Times are nanoseconds since the Unix epoch on one clock: the database
// runs on the test's machine, and a hold's E comes from the database with
// microsecond precision, so a decision at database time d satisfies
// trunc_us(c) <= d <= r for the request's c and r as the test read them.
package linearizability

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Kind is what a request does.
type Kind uint8

const (
	Hold          Kind = iota + 1 // ask for seats of the show
	Release                       // let go of a hold (DELETE /holds/{id})
	Pay                           // a successful payment for a hold, by the signed webhook
	CancelBooking                 // cancel a booking (full refund)
	ReadMap                       // read the show's seat map
	ReadHold                      // read a hold (GET /holds/{id})
)

func (k Kind) String() string {
	switch k {
	case Hold:
		return "hold"
	case Release:
		return "release"
	case Pay:
		return "pay"
	case CancelBooking:
		return "cancel"
	case ReadMap:
		return "read"
	case ReadHold:
		return "read-hold"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Hold and seat states as the API names them.
const (
	StateHeld      = "HELD"
	StateConfirmed = "CONFIRMED" // also the answer 409 hold_confirmed to a release
	StateCancelled = "CANCELLED"
	StateExpired   = "EXPIRED"

	OutcomeBooked         = "BOOKED"
	OutcomeRefundRequired = "REFUND_REQUIRED"

	ReasonHoldExpired      = "hold_expired"
	ReasonHoldCancelled    = "hold_cancelled"
	ReasonAlreadyConfirmed = "already_confirmed"

	SeatAvailable = "AVAILABLE"
	SeatHeld      = "HELD"
	SeatBooked    = "BOOKED"
)

// Input is one request as sent. Call and Return repeat the operation's
// times, which porcupine does not pass to a model's step: expiry needs them.
type Input struct {
	Kind    Kind
	User    int      // who asks: the client's number
	Seats   []string // hold: the seats asked for; else the seats of the hold or booking
	Hold    string   // release, pay, read hold: the hold
	Payment string   // pay: the payment's id
	Booking string   // cancel: the booking
	Call    int64
	Return  int64
}

// SeatView is one seat of the seat map as read.
type SeatView struct {
	Status string
	Mine   bool
}

// Output is the answer.
type Output struct {
	// Failed is an answer the API does not give to this request (a 5xx, or
	// none): the request is recorded, as having changed nothing (every use
	// case is one transaction, and an error rolls it back), so that the
	// rest of the history can still be checked.
	Failed string

	// Hold: Held with Hold and Until, or the seats named as taken.
	Held  bool
	Hold  string
	Until int64
	Taken []string
	// Release, read hold: the hold's state.
	State string
	// Pay: the outcome, its booking or its reason.
	Outcome string
	Booking string
	Reason  string
	// Read the seat map: every seat.
	Seats map[string]SeatView
}

// step is one request as one partition sees it: Object is "seat X" or
// "hold h".
type step struct {
	Object string
	Seat   string // the seat, in a seat's partition
	In     Input
}

type status uint8

const (
	free status = iota
	held
	booked
	confirmed
	cancelled
	expired
)

// State is a seat's or a hold's state: comparable, so that porcupine's
// cache can tell states apart with ==.
type State struct {
	Status  status
	Hold    string // the hold that holds the seat, or that booked it
	User    int    // the holder
	Until   int64  // HELD: the deadline
	Booking string // BOOKED, CONFIRMED
	Payment string // CONFIRMED: the payment that booked
}

// NewModel returns the model for a server whose holds last ttl; times in
// descriptions count from epoch.
func NewModel(ttl time.Duration, epoch time.Time) porcupine.Model {
	m := model{ttl: ttl.Nanoseconds(), epoch: epoch.UnixNano()}
	return porcupine.Model{
		Partition:         partition,
		Init:              func() any { return State{} },
		Step:              func(s, in, out any) (bool, any) { return m.step(s.(State), in.(step), out.(Output)) },
		DescribeOperation: func(in, out any) string { return m.describe(in.(step), out.(Output)) },
		DescribeState:     func(s any) string { return m.describeState(s.(State)) },
	}
}

type model struct {
	ttl   int64
	epoch int64
}

// partition projects every request onto the seats and the hold it touches.
func partition(history []porcupine.Operation) [][]porcupine.Operation {
	byObject := map[string][]porcupine.Operation{}
	add := func(op porcupine.Operation, object, seat string) {
		in := op.Input.(Input)
		op.Input = step{Object: object, Seat: seat, In: in}
		byObject[object] = append(byObject[object], op)
	}
	for _, op := range history {
		in, out := op.Input.(Input), op.Output.(Output)
		seats := in.Seats
		if in.Kind == ReadMap {
			seats = slices.Sorted(maps.Keys(out.Seats))
		}
		for _, seat := range seats {
			add(op, "seat "+seat, seat)
		}
		switch {
		case in.Kind == Hold && out.Held:
			add(op, "hold "+out.Hold, "")
		case in.Kind == Release || in.Kind == Pay || in.Kind == ReadHold:
			add(op, "hold "+in.Hold, "")
		}
	}
	objects := make([]string, 0, len(byObject))
	for o := range byObject {
		objects = append(objects, o)
	}
	sort.Strings(objects)
	parts := make([][]porcupine.Operation, 0, len(objects))
	for _, o := range objects {
		parts = append(parts, byObject[o])
	}
	return parts
}

// live: the request may have judged a hold until `until` live (decided
// before it).
func live(in Input, until int64) bool { return in.Call < until }

// lapsed: the request may have judged it lapsed (decided at or after it).
func lapsed(in Input, until int64) bool { return in.Return >= until }

func (m model) step(s State, st step, out Output) (bool, State) {
	if out.Failed != "" {
		return true, s
	}
	if st.Seat != "" {
		return m.seat(s, st.Seat, st.In, out)
	}
	return m.hold(s, st.In, out)
}

// seat is the step of one seat's partition.
func (m model) seat(s State, seat string, in Input, out Output) (bool, State) {
	// freeFor: the seat may be taken by a new hold now; takenFor: it is not free.
	freeFor := s.Status == free || (s.Status == held && lapsed(in, s.Until))
	takenFor := s.Status == booked || (s.Status == held && live(in, s.Until))
	owned := s.Status == held && s.Hold == in.Hold
	switch in.Kind {
	case Hold:
		switch {
		case out.Held:
			// A hold is decided at a time within its request, and lasts ttl.
			decided := out.Until - m.ttl
			if !freeFor || decided < in.Call-in.Call%1000 || decided > in.Return {
				return false, s
			}
			return true, State{Status: held, Hold: out.Hold, User: in.User, Until: out.Until}
		case slices.Contains(out.Taken, seat):
			return takenFor, s
		default: // asked for and not named: it was free
			return freeFor, s
		}
	case Release:
		if !owned {
			return true, s // not this hold's seat (any more): the hold's partition judges the answer
		}
		switch out.State {
		case StateCancelled:
			return live(in, s.Until), State{}
		case StateExpired:
			return lapsed(in, s.Until), State{}
		}
		return false, s
	case Pay:
		switch {
		case owned && out.Outcome == OutcomeBooked:
			return live(in, s.Until), State{Status: booked, Hold: in.Hold, Booking: out.Booking}
		case owned: // too late: the payment ended the hold
			return lapsed(in, s.Until), State{}
		case out.Outcome == OutcomeBooked: // only the payment that booked, reported again
			return s.Status == booked && s.Booking == out.Booking, s
		}
		return true, s
	case CancelBooking:
		if s.Status == booked && s.Booking == in.Booking {
			return true, State{}
		}
		return true, s // cancelled before: nothing changes
	case ReadMap:
		v, ok := out.Seats[seat]
		if !ok {
			return false, s
		}
		switch s.Status {
		case free:
			return v == SeatView{Status: SeatAvailable}, s
		case booked:
			return v == SeatView{Status: SeatBooked}, s
		case held:
			return (v == SeatView{Status: SeatHeld, Mine: s.User == in.User} && live(in, s.Until)) ||
				(v == SeatView{Status: SeatAvailable} && lapsed(in, s.Until)), s
		}
	}
	return false, s
}

// hold is the step of one hold's partition.
func (m model) hold(s State, in Input, out Output) (bool, State) {
	if in.Kind == Hold {
		// The hold's first operation is its creation.
		return s == State{} && out.Held, State{Status: held, Hold: out.Hold, User: in.User, Until: out.Until}
	}
	if s.Status == free {
		return false, s // used before it was made
	}
	switch in.Kind {
	case Release:
		switch {
		case s.Status == held && out.State == StateCancelled:
			return live(in, s.Until), State{Status: cancelled, Hold: s.Hold}
		case s.Status == held && out.State == StateExpired:
			return lapsed(in, s.Until), State{Status: expired, Hold: s.Hold}
		}
		return out.State == name(s.Status), s
	case Pay:
		switch s.Status {
		case held:
			if out.Outcome == OutcomeBooked {
				return live(in, s.Until), State{Status: confirmed, Hold: s.Hold, Booking: out.Booking, Payment: in.Payment}
			}
			return lapsed(in, s.Until) && out.Reason == ReasonHoldExpired, State{Status: expired, Hold: s.Hold}
		case confirmed:
			if in.Payment == s.Payment { // reported again: the stored outcome
				return out.Outcome == OutcomeBooked && out.Booking == s.Booking, s
			}
			return out.Outcome == OutcomeRefundRequired && out.Reason == ReasonAlreadyConfirmed, s
		case cancelled:
			return out.Outcome == OutcomeRefundRequired && out.Reason == ReasonHoldCancelled, s
		case expired:
			return out.Outcome == OutcomeRefundRequired && out.Reason == ReasonHoldExpired, s
		}
	case ReadHold:
		if s.Status == held {
			return (out.State == StateHeld && live(in, s.Until)) || (out.State == StateExpired && lapsed(in, s.Until)), s
		}
		return out.State == name(s.Status), s
	}
	return false, s
}

// name is a hold status as the API says it.
func name(st status) string {
	switch st {
	case held:
		return StateHeld
	case confirmed:
		return StateConfirmed
	case cancelled:
		return StateCancelled
	case expired:
		return StateExpired
	}
	return "?"
}

// at describes a time as seconds since the epoch of the run.
func (m model) at(t int64) string {
	return fmt.Sprintf("%.6fs", float64(t-m.epoch)/1e9)
}

func (m model) describe(st step, out Output) string {
	in := st.In
	who := fmt.Sprintf("u%d ", in.User)
	if out.Failed != "" {
		return fmt.Sprintf("%s%s %s %v -> failed: %s", who, in.Kind, in.Hold, in.Seats, out.Failed)
	}
	switch in.Kind {
	case Hold:
		switch {
		case out.Held:
			return fmt.Sprintf("%shold %v -> %s until %s", who, in.Seats, out.Hold, m.at(out.Until))
		default:
			return fmt.Sprintf("%shold %v -> taken %v", who, in.Seats, out.Taken)
		}
	case Release:
		return fmt.Sprintf("%srelease %s -> %s", who, in.Hold, out.State)
	case Pay:
		if out.Outcome == OutcomeBooked {
			return fmt.Sprintf("%spay %s for %s -> BOOKED %s", who, in.Payment, in.Hold, out.Booking)
		}
		return fmt.Sprintf("%spay %s for %s -> REFUND_REQUIRED (%s)", who, in.Payment, in.Hold, out.Reason)
	case CancelBooking:
		return fmt.Sprintf("%scancel %s %v", who, in.Booking, in.Seats)
	case ReadMap:
		if st.Seat != "" {
			v := out.Seats[st.Seat]
			mine := ""
			if v.Mine {
				mine = " (mine)"
			}
			return fmt.Sprintf("%sread %s -> %s%s", who, st.Seat, v.Status, mine)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%sread", who)
		for _, seat := range slices.Sorted(maps.Keys(out.Seats)) {
			fmt.Fprintf(&b, " %s=%s", seat, out.Seats[seat].Status)
		}
		return b.String()
	case ReadHold:
		return fmt.Sprintf("%sread %s -> %s", who, in.Hold, out.State)
	}
	return in.Kind.String()
}

func (m model) describeState(s State) string {
	switch s.Status {
	case free:
		return "free"
	case held:
		return fmt.Sprintf("%s of u%d until %s", s.Hold, s.User, m.at(s.Until))
	case booked:
		return fmt.Sprintf("booked %s (%s)", s.Booking, s.Hold)
	case confirmed:
		return fmt.Sprintf("%s confirmed by %s (%s)", s.Hold, s.Payment, s.Booking)
	case cancelled:
		return s.Hold + " cancelled"
	case expired:
		return s.Hold + " expired"
	}
	return fmt.Sprintf("%+v", s)
}

// Explain says, for each partition of history that porcupine found not
// linearizable (info from porcupine.CheckOperationsVerbose with model m),
// which operation could not be placed and in what state the longest
// linearization of the others left the seat or hold: the place to start
// reading the visualization.
// Times are seconds since epoch, as in the model's descriptions.
func Explain(m porcupine.Model, epoch time.Time, history []porcupine.Operation, info porcupine.LinearizationInfo) []string {
	at := model{epoch: epoch.UnixNano()}.at
	type key struct {
		lane      int
		call, ret int64
	}
	var out []string
	parts := m.Partition(history)
	partials := info.PartialLinearizationsOperations()
	for p, part := range parts {
		if p >= len(partials) {
			break
		}
		var longest []porcupine.Operation
		for _, l := range partials[p] {
			if len(l) > len(longest) {
				longest = l
			}
		}
		if len(longest) == len(part) {
			continue
		}
		placed := map[key]bool{}
		for _, op := range longest {
			placed[key{op.ClientId, op.Call, op.Return}] = true
		}
		// The operation that ends every linearization: unplaced, and the
		// first to return.
		var stuck *porcupine.Operation
		for i, op := range part {
			if !placed[key{op.ClientId, op.Call, op.Return}] && (stuck == nil || op.Return < stuck.Return) {
				stuck = &part[i]
			}
		}
		state := m.Init()
		for _, op := range longest {
			_, state = m.Step(state, op.Input, op.Output)
		}
		object := part[0].Input.(step).Object
		out = append(out, fmt.Sprintf("%s: %d of %d operations placed, the seat or hold then %q; cannot place %q (called %s, answered %s)",
			object, len(longest), len(part), m.DescribeState(state), m.DescribeOperation(stuck.Input, stuck.Output),
			at(stuck.Call), at(stuck.Return)))
	}
	return out
}
