package linearizability_test

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/marquee-tickets/marquee/internal/linearizability"
)

const modelTTL = time.Second

var epoch = time.Unix(1_800_000_000, 0)

// ms is a time of a made-up history: milliseconds after epoch.
func ms(n int) int64 { return epoch.Add(time.Duration(n) * time.Millisecond).UnixNano() }

type op struct {
	call, ret int
	in        linearizability.Input
	out       linearizability.Output
}

func history(ops []op) []porcupine.Operation {
	h := make([]porcupine.Operation, len(ops))
	for i, o := range ops {
		in := o.in
		in.Call, in.Return = ms(o.call), ms(o.ret)
		h[i] = porcupine.Operation{ClientId: i, Input: in, Output: o.out, Call: in.Call, Return: in.Return}
	}
	return h
}

// holdAt is user's hold h of seats, decided at decided ms (until one TTL later).
func holdAt(call, ret, decided, user int, h string, seats ...string) op {
	return op{call, ret,
		linearizability.Input{Kind: linearizability.Hold, User: user, Seats: seats},
		linearizability.Output{Held: true, Hold: h, Until: ms(decided) + modelTTL.Nanoseconds()}}
}

func taken(call, ret, user int, seats, named []string) op {
	return op{call, ret,
		linearizability.Input{Kind: linearizability.Hold, User: user, Seats: seats},
		linearizability.Output{Taken: named}}
}

func read(call, ret, user int, seats map[string]linearizability.SeatView) op {
	return op{call, ret, linearizability.Input{Kind: linearizability.ReadMap, User: user}, linearizability.Output{Seats: seats}}
}

func pay(call, ret, user int, h, payment string, seats []string, outcome, booking, reason string) op {
	return op{call, ret,
		linearizability.Input{Kind: linearizability.Pay, User: user, Hold: h, Payment: payment, Seats: seats},
		linearizability.Output{Outcome: outcome, Booking: booking, Reason: reason}}
}

func release(call, ret, user int, h string, seats []string, state string) op {
	return op{call, ret,
		linearizability.Input{Kind: linearizability.Release, User: user, Hold: h, Seats: seats},
		linearizability.Output{State: state}}
}

func readHold(call, ret, user int, h string, state string) op {
	return op{call, ret,
		linearizability.Input{Kind: linearizability.ReadHold, User: user, Hold: h},
		linearizability.Output{State: state}}
}

func cancel(call, ret, user int, b string, seats []string) op {
	return op{call, ret, linearizability.Input{Kind: linearizability.CancelBooking, User: user, Booking: b, Seats: seats}, linearizability.Output{}}
}

var (
	a1        = []string{"A1"}
	a1a2      = []string{"A1", "A2"}
	available = linearizability.SeatView{Status: linearizability.SeatAvailable}
	heldView  = linearizability.SeatView{Status: linearizability.SeatHeld}
	mine      = linearizability.SeatView{Status: linearizability.SeatHeld, Mine: true}
	bookedV   = linearizability.SeatView{Status: linearizability.SeatBooked}
)

func seats(a1, a2 linearizability.SeatView) map[string]linearizability.SeatView {
	return map[string]linearizability.SeatView{"A1": a1, "A2": a2}
}

const (
	booked = linearizability.OutcomeBooked
	refund = linearizability.OutcomeRefundRequired
)

// The model accepts what a correct server may answer and refuses each kind
// of wrong answer, on histories small enough to judge by hand (a TTL of 1 s;
// times in ms).
func TestModel(t *testing.T) {
	cases := []struct {
		name string
		ops  []op
		ok   bool
	}{
		{"hold, lapse, a newcomer takes the seat, the late payment is refunded", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			read(20, 30, 1, seats(mine, available)),
			read(20, 30, 2, seats(heldView, available)),
			read(1010, 1020, 2, seats(available, available)),
			holdAt(1030, 1040, 1035, 2, "h2", "A1"),
			pay(1050, 1060, 1, "h1", "p1", a1, refund, "", linearizability.ReasonHoldExpired),
			readHold(1070, 1080, 1, "h1", linearizability.StateExpired),
			read(1090, 1100, 2, seats(mine, available)),
		}, true},
		{"book, cancel, free again", []op{
			holdAt(0, 10, 5, 1, "h1", "A1", "A2"),
			pay(20, 30, 1, "h1", "p1", a1a2, booked, "b1", ""),
			read(40, 50, 2, seats(bookedV, bookedV)),
			release(60, 70, 1, "h1", a1a2, linearizability.StateConfirmed),
			cancel(80, 90, 1, "b1", a1a2),
			cancel(80, 95, 1, "b1", a1a2),
			read(100, 110, 2, seats(available, available)),
			readHold(100, 110, 1, "h1", linearizability.StateConfirmed),
		}, true},
		{"two payments at once: one books, the other is refunded; a repeat answers the same", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			pay(20, 40, 1, "h1", "p1", a1, refund, "", linearizability.ReasonAlreadyConfirmed),
			pay(20, 40, 1, "h1", "p2", a1, booked, "b1", ""),
			pay(20, 40, 1, "h1", "p2", a1, booked, "b1", ""),
		}, true},
		{"a request spanning the deadline may find the hold either way", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			read(990, 1020, 2, seats(heldView, available)),
			read(990, 1020, 3, seats(available, available)),
			pay(995, 1030, 1, "h1", "p1", a1, booked, "b1", ""),
		}, true},
		{"a taken answer names exactly the seats not free", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			taken(20, 30, 2, a1a2, a1),
			holdAt(40, 50, 45, 2, "h2", "A2"),
		}, true},

		{"a seat held twice", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			holdAt(20, 30, 25, 2, "h2", "A1"),
		}, false},
		{"a free seat named as taken", []op{
			taken(0, 10, 1, a1, a1),
		}, false},
		{"a seat named free that is held", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			taken(20, 30, 2, a1a2, nil),
		}, false},
		{"the map still shows a lapsed hold", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			read(1010, 1020, 2, seats(heldView, available)),
		}, false},
		{"the map shows someone else's hold as mine", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			read(20, 30, 2, seats(mine, available)),
		}, false},
		{"a payment after the deadline books", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			pay(1005, 1010, 1, "h1", "p1", a1, booked, "b1", ""),
		}, false},
		{"a payment in time is refunded", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			pay(20, 30, 1, "h1", "p1", a1, refund, "", linearizability.ReasonHoldExpired),
		}, false},
		{"two payments both book", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			pay(20, 40, 1, "h1", "p1", a1, booked, "b1", ""),
			pay(20, 40, 1, "h1", "p2", a1, booked, "b2", ""),
		}, false},
		{"a release after the deadline says cancelled", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			release(1010, 1020, 1, "h1", a1, linearizability.StateCancelled),
		}, false},
		{"a released seat still reads held", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			release(20, 30, 1, "h1", a1, linearizability.StateCancelled),
			read(40, 50, 2, seats(heldView, available)),
		}, false},
		{"a cancelled booking's seat still reads booked", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			pay(20, 30, 1, "h1", "p1", a1, booked, "b1", ""),
			cancel(40, 50, 1, "b1", a1),
			read(60, 70, 2, seats(bookedV, available)),
		}, false},
		{"a hold's deadline not its decision plus the TTL", []op{
			holdAt(100, 110, 50, 1, "h1", "A1"),
		}, false},
		{"a hold reads held after its deadline", []op{
			holdAt(0, 10, 5, 1, "h1", "A1"),
			readHold(1010, 1020, 1, "h1", linearizability.StateHeld),
		}, false},
	}
	model := linearizability.NewModel(modelTTL, epoch)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := porcupine.CheckOperationsTimeout(model, history(c.ops), 10*time.Second)
			if want := map[bool]porcupine.CheckResult{true: porcupine.Ok, false: porcupine.Illegal}[c.ok]; res != want {
				t.Fatalf("check = %s, want %s", res, want)
			}
		})
	}
}
