package postgres_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/waitroom"
)

const admissionTTL = 5 * time.Minute

func (w *world) room(set waitroom.Settings) {
	w.t.Helper()
	if err := w.store.SetRoom(ctx, w.show, set, admissionTTL, w.entry("show.waiting_room")); err != nil {
		w.t.Fatalf("set room %+v: %v", set, err)
	}
}

func (w *world) join() waitroom.Ticket {
	w.t.Helper()
	t, ok, err := w.store.JoinQueue(ctx, w.show)
	if err != nil || !ok {
		w.t.Fatalf("join: %+v, %v, %v", t, ok, err)
	}
	return t
}

func (w *world) step() waitroom.Front {
	w.t.Helper()
	f, ran, err := w.store.StepRoom(ctx, w.show, admissionTTL)
	if err != nil || !ran {
		w.t.Fatalf("step: %v, ran %v", err, ran)
	}
	return f
}

func (w *world) count(state waitroom.State) int {
	return pgtest.Scalar[int](w.t, w.store.Pool(), `SELECT count(*) FROM queue_tickets WHERE show_id = $1 AND state = $2`, w.show, string(state))
}

func (w *world) numbers(sql string) []int64 {
	w.t.Helper()
	rows, err := w.store.Pool().Query(ctx, sql, w.show)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			w.t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func TestWaitingRoomQueue(t *testing.T) {
	t.Run("500 arriving at once are numbered in the order they arrived", func(t *testing.T) {
		w := newWorld(t)
		w.room(waitroom.Settings{Enabled: true, AdmitPerMinute: 60, MaxActive: 10})
		w.step() // opens the room: no opening time
		// The database's own clock, so each arrival has its own time.
		real := postgres.NewStore(w.store.Pool())
		const n = 500
		var (
			start = make(chan struct{})
			wg    sync.WaitGroup
			errs  = make(chan error, n)
		)
		for range n {
			wg.Go(func() {
				<-start
				if _, ok, err := real.JoinQueue(ctx, w.show); err != nil || !ok {
					errs <- errors.Join(err, errors.New("not queued"))
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		byArrival := w.numbers(`SELECT number FROM queue_tickets WHERE show_id = $1 ORDER BY joined_at, id`)
		if len(byArrival) != n || !slices.IsSorted(byArrival) || byArrival[0] != 1 || byArrival[n-1] != n {
			t.Fatalf("numbers in arrival order: %d of them, sorted %v, from %d to %d; want 1..%d in order",
				len(byArrival), slices.IsSorted(byArrival), byArrival[0], byArrival[len(byArrival)-1], n)
		}
		if dup := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*) - count(DISTINCT joined_at) FROM queue_tickets WHERE show_id = $1`, w.show); dup != 0 {
			t.Fatalf("%d arrivals share a time: the order is not told by it", dup)
		}
	})

	t.Run("the pre-queue is shuffled at the opening and later arrivals queue behind it", func(t *testing.T) {
		w := newWorld(t)
		opens := w.clock.Now().Add(10 * time.Minute)
		w.room(waitroom.Settings{Enabled: true, AdmitPerMinute: 60, MaxActive: 10, OpensAt: opens})
		const early = 200
		for i := range early {
			w.clock.Advance(time.Second) // arriving one after the other, well before the opening
			if tk := w.join(); tk.Number != 0 {
				t.Fatalf("arrival %d before the opening numbered %d", i, tk.Number)
			}
		}
		if f := w.step(); f.Open || f.Through != 0 || w.count(waitroom.Admitted) != 0 {
			t.Fatalf("before the opening: %+v, %d admitted", f, w.count(waitroom.Admitted))
		}
		// Two arrive just after the opening, before a step has shuffled.
		w.clock.Set(opens.Add(100 * time.Millisecond))
		w.join()
		w.clock.Advance(100 * time.Millisecond)
		w.join()
		w.clock.Advance(time.Second)
		if f := w.step(); !f.Open {
			t.Fatalf("after the opening: %+v", f)
		}
		// Afterwards, arrivals are numbered at once, behind everyone.
		late3 := w.join()
		if late3.Number != early+3 {
			t.Fatalf("arrival after the shuffle numbered %d, want %d", late3.Number, early+3)
		}
		got := w.numbers(`SELECT number FROM queue_tickets WHERE show_id = $1 ORDER BY id`)
		pre := got[:early]
		if sorted := slices.Sorted(slices.Values(pre)); sorted[0] != 1 || sorted[early-1] != early || len(slices.Compact(sorted)) != early {
			t.Fatalf("the pre-queue's numbers are not a permutation of 1..%d: %v", early, pre)
		}
		if got[early] != early+1 || got[early+1] != early+2 {
			t.Fatalf("arrivals after the opening numbered %d, %d; want %d, %d (behind the pre-queue, in order)",
				got[early], got[early+1], early+1, early+2)
		}
		// Random: not the arrival order, and nowhere near it. (Kendall's
		// tau of a random permutation of 200 is within ±0.2 but for odds
		// of about 1 in 10^5.)
		if tau := kendallTau(pre); tau > 0.2 || tau < -0.2 {
			t.Fatalf("the pre-queue kept its arrival order: tau %.2f", tau)
		}
	})

	t.Run("admission keeps to the rate and the cap, by the injected clock", func(t *testing.T) {
		w := newWorld(t)
		w.room(waitroom.Settings{Enabled: true, AdmitPerMinute: 120, MaxActive: 7})
		for range 30 {
			w.join()
		}
		w.step() // opens; no credit yet
		admitted := func() int { return w.count(waitroom.Admitted) + w.count(waitroom.Done) }
		if n := admitted(); n != 1 && n != 0 {
			t.Fatalf("the first step admitted %d", n)
		}
		// 2 a second.
		for i := range 3 {
			before := admitted()
			w.clock.Advance(time.Second)
			f := w.step()
			if got := admitted() - before; got != 2 {
				t.Fatalf("step %d admitted %d, want 2", i, got)
			}
			if f.Through != int64(admitted()) {
				t.Fatalf("front %d with %d admitted", f.Through, admitted())
			}
		}
		// A pause earns at most two seconds' worth.
		w.clock.Advance(time.Minute)
		w.step()
		if n := w.count(waitroom.Admitted); n != 7 {
			t.Fatalf("%d active after a pause, want the cap, 7", n)
		}
		// At the cap, time earns nothing more.
		for range 5 {
			w.clock.Advance(time.Second)
			w.step()
			if n := w.count(waitroom.Admitted); n != 7 {
				t.Fatalf("%d active at the cap of 7", n)
			}
		}
		// Admissions unused past their TTL end, and free places: for
		// those still waiting (and seen), two seconds' worth at once.
		w.clock.Advance(admissionTTL)
		pgtest.Exec(t, w.store.Pool(), `UPDATE queue_tickets SET seen_at = $2 WHERE show_id = $1 AND state = 'WAITING'`, w.show, w.clock.Now())
		w.step()
		if done, active := w.count(waitroom.Done), w.count(waitroom.Admitted); done != 7 || active != 4 {
			t.Fatalf("after the TTL: %d done, %d active; want 7, 4", done, active)
		}
	})

	t.Run("a booking ends an admission; a hold keeps it; a release shortens it", func(t *testing.T) {
		w := newWorld(t)
		w.room(waitroom.Settings{Enabled: true, AdmitPerMinute: 600, MaxActive: 2})
		a, b, c := w.join(), w.join(), w.join()
		w.step()
		w.clock.Advance(time.Second)
		w.step()
		ua, ub := w.user(), w.user()
		if err := w.store.UseTicket(ctx, w.show, a.ID, ua); err != nil {
			t.Fatal(err)
		}
		if err := w.store.UseTicket(ctx, w.show, a.ID, ub); !errors.Is(err, waitroom.ErrQueueRequired) {
			t.Fatalf("a second account on one ticket: %v", err)
		}
		if err := w.store.UseTicket(ctx, w.show, c.ID, ub); !errors.Is(err, waitroom.ErrQueueRequired) {
			t.Fatalf("a waiting ticket: %v", err)
		}
		if err := w.store.UseTicket(ctx, w.show, b.ID, ub); err != nil {
			t.Fatal(err)
		}
		h := w.hold(ua, "A1")
		if err := w.store.ExtendAdmission(ctx, w.show, ua, h.LetsGoAt().Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := w.store.ShortenAdmission(ctx, w.show, ub, waitroom.Repick); err != nil {
			t.Fatal(err)
		}
		// Past the release's minute, b ends and c comes in; a, holding,
		// stays.
		w.clock.Advance(waitroom.Repick + time.Second)
		w.step()
		if st := ticketState(t, w, c.ID); st != waitroom.Admitted {
			t.Fatalf("c is %s after b's release lapsed", st)
		}
		if st := ticketState(t, w, b.ID); st != waitroom.Done {
			t.Fatalf("b is %s after its release", st)
		}
		if _, err := w.pay(h, "pay-1"); err != nil {
			t.Fatal(err)
		}
		w.step()
		if st := ticketState(t, w, a.ID); st != waitroom.Done {
			t.Fatalf("a is %s after booking", st)
		}
	})

	t.Run("a waiting ticket unseen for 5 minutes loses its place; seeing it keeps it", func(t *testing.T) {
		w := newWorld(t)
		w.room(waitroom.Settings{Enabled: true, AdmitPerMinute: 1, MaxActive: 1})
		kept, gone, open := w.join(), w.join(), w.join()
		w.step()
		for range 4 {
			w.clock.Advance(2 * time.Minute)
			if _, err := w.store.SeeTicket(ctx, w.show, kept.ID); err != nil {
				t.Fatal(err)
			}
			if err := w.store.SeeTickets(ctx, []int64{open.ID}); err != nil {
				t.Fatal(err)
			}
			w.step()
		}
		if st := ticketState(t, w, gone.ID); st != waitroom.Expired {
			t.Fatalf("unseen ticket is %s", st)
		}
		for _, id := range []int64{kept.ID, open.ID} {
			if st := ticketState(t, w, id); st == waitroom.Expired {
				t.Fatalf("ticket %d seen every 2 minutes expired", id)
			}
		}
	})

	t.Run("switched off, everyone waiting is admitted; a room off queues nobody", func(t *testing.T) {
		w := newWorld(t)
		w.room(waitroom.Settings{Enabled: true, AdmitPerMinute: 1, MaxActive: 1})
		for range 5 {
			w.join()
		}
		w.room(waitroom.Settings{Enabled: false, AdmitPerMinute: 1, MaxActive: 1})
		if n := w.count(waitroom.Admitted); n != 5 {
			t.Fatalf("%d admitted after switching off, want 5", n)
		}
		if _, ok, err := w.store.JoinQueue(ctx, w.show); ok || err != nil {
			t.Fatalf("joined a room that is off: %v, %v", ok, err)
		}
		if on, err := w.store.RoomEnabled(ctx, w.show); on || err != nil {
			t.Fatalf("enabled %v, %v", on, err)
		}
	})

	t.Run("a show that is not there has no room", func(t *testing.T) {
		w := newWorld(t)
		if _, err := w.store.Room(ctx, w.show+1000); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("room of no show: %v", err)
		}
		err := w.store.SetRoom(ctx, w.show+1000, waitroom.Settings{Enabled: true, AdmitPerMinute: 1, MaxActive: 1}, admissionTTL, w.entry("x"))
		if !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("set room of no show: %v", err)
		}
	})
}

// Two instances step one room at once, many times: between them they
// admit at the room's rate, once each.
func TestWaitingRoomTwoAdmitters(t *testing.T) {
	w := newWorld(t)
	w.room(waitroom.Settings{Enabled: true, AdmitPerMinute: 600, MaxActive: 1000})
	for range 300 {
		w.join()
	}
	other := postgres.NewStore(w.store.Pool())
	other.Clock = w.store.Clock
	w.step()
	const seconds = 20
	for range seconds {
		w.clock.Advance(time.Second)
		var wg sync.WaitGroup
		ran := make(chan bool, 2)
		for _, s := range []*postgres.Store{w.store, other} {
			wg.Go(func() {
				_, r, err := s.StepRoom(ctx, w.show, admissionTTL)
				if err != nil {
					t.Error(err)
				}
				ran <- r
			})
		}
		wg.Wait()
		close(ran)
	}
	// 10 a second for 20 seconds, whichever instance stepped; a step that
	// found the room locked did nothing, and the next one made it up (two
	// seconds' credit at most).
	got := w.count(waitroom.Admitted)
	if got < seconds*10-20 || got > seconds*10 {
		t.Fatalf("%d admitted in %d s at 10 a second", got, seconds)
	}
	if dup := pgtest.Scalar[int](t, w.store.Pool(), `SELECT count(*) - count(DISTINCT number) FROM queue_tickets WHERE show_id = $1`, w.show); dup != 0 {
		t.Fatalf("%d numbers given twice", dup)
	}
	admittedMax := pgtest.Scalar[int64](t, w.store.Pool(), `SELECT max(number) FROM queue_tickets WHERE show_id = $1 AND state = 'ADMITTED'`, w.show)
	waitingMin := pgtest.Scalar[int64](t, w.store.Pool(), `SELECT min(number) FROM queue_tickets WHERE show_id = $1 AND state = 'WAITING'`, w.show)
	if admittedMax >= waitingMin {
		t.Fatalf("admitted up to %d while %d waits: not in order", admittedMax, waitingMin)
	}
}

func ticketState(t *testing.T, w *world, id int64) waitroom.State {
	t.Helper()
	return waitroom.State(pgtest.Scalar[string](t, w.store.Pool(), `SELECT state FROM queue_tickets WHERE id = $1`, id))
}

// kendallTau is Kendall's tau between xs's order and their positions.
func kendallTau(xs []int64) float64 {
	var concordant, discordant int
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			switch {
			case xs[i] < xs[j]:
				concordant++
			case xs[i] > xs[j]:
				discordant++
			}
		}
	}
	return float64(concordant-discordant) / float64(concordant+discordant)
}
