package stream_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/cmd/bench/stream"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestStream(t *testing.T) {
	ctx := context.Background()
	store := pgtest.NewStore(t, 4)
	v, err := seed.NewVenue(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	// 2 rows of 8: 8 slots. At 10 changes a second a slot changes every
	// 0.8 s, so a receiver polling the seats cannot miss a change.
	const rows, cols = 2, 8
	show, err := v.NewShow(ctx, store, "Stream", seed.Grid(rows, cols))
	if err != nil {
		t.Fatal(err)
	}
	users, err := seed.Users(ctx, store, "slot", rows*cols/2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.New(store, show, rows, cols, users[:3], 10, time.Second); err == nil {
		t.Error("New with 3 users for 8 slots: no error")
	}
	st, err := stream.New(store, show, rows, cols, users, 10, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}

	// The receiver reads the show's seats as the hub's loader does, every
	// 10 ms, until told to stop.
	polled, ignored := st.NewReceiver(), st.NewReceiver()
	stop := make(chan struct{})
	var (
		wg    sync.WaitGroup
		polls atomic.Int64 // reads finished
	)
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			seats, err := store.SeatStates(ctx, show, nil)
			if err != nil {
				t.Error(err)
				return
			}
			at := polled.Now()
			polled.Msgs++
			for _, s := range seats {
				polled.Saw(s.ID, s.Status == booking.SeatHeld, at)
			}
			polls.Add(1)
		}
	})
	began := time.Now()
	st.Run(ctx, 2*time.Second)
	ended := time.Now()
	// The last changes' reads: two more reads finished, so one began
	// after every change was committed, however slow the machine.
	for after, deadline := polls.Load()+2, time.Now().Add(30*time.Second); polls.Load() < after; {
		if time.Now().After(deadline) {
			t.Fatal("the receiver read nothing for 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	n, failed, first := st.Made()
	if n < 5 || failed > 0 {
		t.Fatalf("Made: %d changes, %d failed (first: %v); want about 20, none failed", n, failed, first)
	}
	if got := st.CommittedBetween(began, ended.Add(time.Second)); got != n {
		t.Errorf("CommittedBetween the run's start and end = %d, want %d", got, n)
	}
	if got := st.CommittedBetween(ended.Add(time.Second), ended.Add(2*time.Second)); got != 0 {
		t.Errorf("CommittedBetween after the run = %d, want 0", got)
	}

	t.Run("a receiver that read every change has each once, after its commit", func(t *testing.T) {
		l := st.Collect([]*stream.Receiver{polled}, nil)
		// Each seen once, or superseded: on a busy machine a read can take
		// longer than a slot's 0.8 s between changes, and only a seat's
		// last state must arrive.
		if l.Changes != n || l.Failures != 0 || l.Missed != 0 || len(l.Lat)+l.Superseded != n || len(l.Slowest) != len(l.Lat) ||
			l.Superseded > n/4 {
			t.Fatalf("Collect = %d changes, %d failures, %d missed, %d latencies, %d superseded, %d slowest; want %d changes, all seen once or superseded",
				l.Changes, l.Failures, l.Missed, len(l.Lat), l.Superseded, len(l.Slowest), n)
		}
		for i, d := range l.Lat {
			if d < 0 || d > 5*time.Second || (i > 0 && d < l.Lat[i-1]) {
				t.Errorf("latency %d = %s: want sorted, between 0 and 5 s", i, d)
			}
		}
		if l.Summary() == "-" {
			t.Error("Summary of seen changes is -")
		}
	})
	t.Run("a receiver fed nothing missed every change, unless skipped", func(t *testing.T) {
		seen := len(st.Collect([]*stream.Receiver{polled}, nil).Lat) // all but any superseded (above)
		l := st.Collect([]*stream.Receiver{polled, ignored}, nil)
		if l.Missed != n || len(l.Lat) != seen {
			t.Errorf("Collect = %d missed, %d latencies; want %d and %d", l.Missed, len(l.Lat), n, seen)
		}
		l = st.Collect([]*stream.Receiver{polled, ignored}, func(i int) bool { return i == 1 })
		if l.Missed != 0 || len(l.Lat) != seen {
			t.Errorf("Collect skipping it = %d missed, %d latencies; want 0 and %d", l.Missed, len(l.Lat), seen)
		}
		if s := st.Collect([]*stream.Receiver{ignored}, nil).Summary(); s != "-" {
			t.Errorf("Summary of nothing seen = %q, want -", s)
		}
	})
	t.Run("a change a later one of its seats superseded unseen is not missed", func(t *testing.T) {
		r := st.NewReceiver()
		// Only each seat's last state, as a hub that read the seats late
		// would send it.
		seats, err := store.SeatStates(ctx, show, nil)
		if err != nil {
			t.Fatal(err)
		}
		at := r.Now()
		for _, s := range seats {
			r.Saw(s.ID, s.Status == booking.SeatHeld, at)
		}
		l := st.Collect([]*stream.Receiver{r}, nil)
		if l.Missed != 0 || l.Superseded+len(l.Lat) != n || len(l.Lat) == 0 {
			t.Errorf("Collect = %d missed, %d superseded, %d seen; want 0 missed and the %d changes superseded or seen",
				l.Missed, l.Superseded, len(l.Lat), n)
		}
	})
	t.Run("a seat seen in the state before its change does not count", func(t *testing.T) {
		r := st.NewReceiver()
		// After the run every slot's current change is known; seeing the
		// opposite state of each slot's first seat records nothing.
		seats, err := store.SeatStates(ctx, show, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range seats {
			r.Saw(s.ID, s.Status != booking.SeatHeld, r.Now())
		}
		if l := st.Collect([]*stream.Receiver{r}, nil); len(l.Lat) != 0 {
			t.Errorf("%d changes seen from the wrong state", len(l.Lat))
		}
	})
	t.Run("ReleaseAll leaves every seat available", func(t *testing.T) {
		if err := st.ReleaseAll(ctx); err != nil {
			t.Fatal(err)
		}
		seats, err := store.SeatStates(ctx, show, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range seats {
			if s.Status != booking.SeatAvailable {
				t.Errorf("seat %s is %s after ReleaseAll", s.ID, s.Status)
			}
		}
		pgtest.CheckInvariants(t, store)
	})
}
