package live

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// mapDiff names what differs between the map in memory and the database's
// seats, or is "" when they agree on every seat's state, holder, price and
// release time.
func mapDiff(got, want []booking.Seat) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d seats in memory, %d in the database", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Status != w.Status || g.HolderID != w.HolderID || !g.HeldUntil.Equal(w.HeldUntil) ||
			g.PriceMinor != w.PriceMinor || g.GridRow != w.GridRow || g.GridCol != w.GridCol {
			return fmt.Sprintf("seat %s: memory %s/%q until %v, database %s/%q until %v",
				w.ID, g.Status, g.HolderID, g.HeldUntil, w.Status, w.HolderID, w.HeldUntil)
		}
	}
	return ""
}

// waitAgrees waits until the hub's map of show is the database's.
func waitAgrees(t *testing.T, w *dbWorld, what string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(within)
	for {
		snap, err := w.hub.Map(ctx, w.show)
		if err != nil {
			t.Fatalf("%s: map in memory: %v", what, err)
		}
		want, err := w.store.SeatStates(ctx, w.show, nil)
		if err != nil {
			t.Fatal(err)
		}
		diff := mapDiff(snap.Seats, want)
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v on, the map in memory still differs from the database: %s", what, within, diff)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBoard(t *testing.T) {
	t.Run("the map in memory ends as the database after any interleaving of holds, releases, checkouts, expiries, blocks, payments and reconnects", func(t *testing.T) {
		clock := pgtest.NewClock(time.Now())
		w := newDBWorld(t, 20*time.Millisecond, func(l *Listener) { l.QuietCheck = 200 * time.Millisecond })
		w.store.Clock = clock.Now
		w.hub.Now = clock.Now
		pids := make(chan uint32, 1)
		go func() {
			for pid := range w.pids {
				select {
				case <-pids:
				default:
				}
				pids <- pid
			}
		}()
		ctx := context.Background()
		admin := pgtest.User(t, w.store)
		venue := w.venue.TheatreID
		users := make([]string, 6)
		for i := range users {
			users[i] = pgtest.User(t, w.store)
		}
		seed := uint64(time.Now().UnixNano())
		t.Logf("seed %d", seed)
		rng := rand.New(rand.NewPCG(seed, seed))
		var seats []string
		for _, row := range "ABCD" {
			for n := 1; n <= 5; n++ {
				seats = append(seats, fmt.Sprintf("%c%d", row, n))
			}
		}
		pick := func(rng *rand.Rand, n int) []string {
			p := slices.Clone(seats)
			rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
			return p[:n]
		}
		waitAgrees(t, w, "at the start")

		var payments sync.Mutex
		paid := 0
		// step does one random thing as user i; the errors a crowd meets
		// (seats taken, a hold already held or ended) are part of the game.
		step := func(rng *rand.Rand, i int) (string, error) {
			user := users[i]
			switch k := rng.IntN(10); {
			case k < 4:
				_, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: w.show, Seats: pick(rng, 1+rng.IntN(3)),
					TTL: time.Duration(1+rng.IntN(4)) * time.Minute, Key: fmt.Sprint("k-", w.keys.Add(1))}, 10)
				return "hold", tolerate(err)
			case k < 6:
				h, err := w.store.ActiveHold(ctx, user)
				if err != nil {
					return "release", tolerate(err)
				}
				_, err = w.store.CancelHold(ctx, user, h.ID)
				return "release", tolerate(err)
			case k < 7:
				h, err := w.store.ActiveHold(ctx, user)
				if err != nil {
					return "pay", tolerate(err)
				}
				if rng.IntN(2) == 0 {
					// A checkout: the hold keeps its seats for a grace
					// past its deadline, which the map must learn.
					_, _, err = w.store.PrepareCheckout(ctx, user, h.ID, 2*time.Minute)
					return "checkout", tolerate(err)
				}
				payments.Lock()
				paid++
				id := fmt.Sprint("pay-", paid)
				payments.Unlock()
				_, err = w.store.ConfirmPayment(ctx, booking.Payment{ID: id, HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency})
				return "pay", tolerate(err)
			case k < 8:
				e := audit.Entry{ActorID: admin, TheatreID: venue, Action: "show.block_seats", Object: "show"}
				if rng.IntN(2) == 0 {
					_, err := w.store.BlockSeats(ctx, w.show, pick(rng, 2), e)
					return "block", tolerate(err)
				}
				e.Action = "show.unblock_seats"
				_, err := w.store.UnblockSeats(ctx, w.show, pick(rng, 3), e)
				return "unblock", tolerate(err)
			default:
				_, err := w.store.ExpireHolds(ctx, 10)
				return "sweep", err
			}
		}
		for round := range 12 {
			// Four users at once, for interleavings no sequence has.
			var wg sync.WaitGroup
			for g := range 4 {
				r := rand.New(rand.NewPCG(rng.Uint64(), uint64(g)))
				wg.Go(func() {
					for range 6 {
						if what, err := step(r, (g+round)%len(users)); err != nil {
							t.Errorf("%s: %v", what, err)
						}
					}
				})
			}
			// Time passes (holds lapse in memory as in the database), and
			// now and then the listener is cut off.
			clock.Advance(time.Duration(rng.IntN(90)) * time.Second)
			if round%4 == 3 {
				select {
				case pid := <-pids:
					pgtest.Exec(t, w.store.Pool(), `SELECT pg_terminate_backend($1)`, int32(pid))
				case <-time.After(within):
					t.Fatal("no listener connection to cut")
				}
			}
			wg.Wait()
			if t.Failed() {
				t.FailNow()
			}
			// More time, with no sweep after it: holds that lapse now are
			// freed by the clock alone, in memory as in the database's reads.
			clock.Advance(time.Duration(rng.IntN(90)) * time.Second)
			waitAgrees(t, w, fmt.Sprintf("after round %d", round+1))
		}
		pgtest.CheckInvariants(t, w.store)
	})

	t.Run("a map read once an update was delivered shows the change", func(t *testing.T) {
		w := newDBWorld(t, 20*time.Millisecond)
		ctx := context.Background()
		if _, err := w.hub.Map(ctx, w.show); err != nil {
			t.Fatal(err)
		}
		sub := w.hub.Subscribe(w.show, 64)
		defer sub.Close()
		v := &viewer{t: t, sub: sub, seats: map[string]seatState{}}
		for i := range 5 {
			seat := fmt.Sprintf("B%d", i+1)
			h := w.hold(pgtest.User(t, w.store), seat)
			v.until("the hold of "+seat, func(u Update) bool { return names(u, seat, booking.SeatHeld) })
			snap, err := w.hub.Map(ctx, w.show)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(snap.Seats, func(s booking.Seat) bool { return s.ID == seat })
			if got := snap.Seats[i]; got.Status != booking.SeatHeld || got.HolderID != h.UserID {
				t.Fatalf("the update holding %s was delivered, then the map said %s/%q", seat, got.Status, got.HolderID)
			}
		}
	})

	t.Run("a gap in the feed's numbers resyncs every map", func(t *testing.T) {
		m := metrics.New(prometheus.NewRegistry())
		w := newDBWorld(t, 20*time.Millisecond, func(l *Listener) { l.Metrics = m })
		w.connected()
		sub := w.hub.Subscribe(w.show, 64)
		defer sub.Close()
		v := &viewer{t: t, sub: sub, seats: map[string]seatState{}}
		w.hold(pgtest.User(t, w.store), "C1")
		v.until("the hold of C1", func(u Update) bool { return names(u, "C1", booking.SeatHeld) })
		// Numbers taken by notifications this listener never heard.
		pgtest.Exec(t, w.store.Pool(), `UPDATE seat_feed SET seq = seq + 3`)
		w.hold(pgtest.User(t, w.store), "C2")
		// The gap is found by C2's number, or, on a machine slow enough for
		// a quiet check to run first, by the feed's position: either way
		// once, and every viewer resyncs.
		resynced := false
		v.until("C2 held", func(u Update) bool {
			resynced = resynced || u.Resync
			return names(u, "C2", booking.SeatHeld)
		})
		deadline := time.Now().Add(within)
		for testutil.ToFloat64(m.LiveGaps) < 1 {
			if time.Now().After(deadline) {
				t.Fatalf("%v on, no gap found", within)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if !resynced {
			v.until("the resync", isResync)
		}
		v.wantDatabase(w)
		if n := testutil.ToFloat64(m.LiveGaps); n != 1 {
			t.Fatalf("%v gaps counted, want 1", n)
		}
	})

	t.Run("a quiet listener that finds the feed ahead of what it heard resyncs", func(t *testing.T) {
		m := metrics.New(prometheus.NewRegistry())
		w := newDBWorld(t, 20*time.Millisecond, func(l *Listener) { l.QuietCheck = 50 * time.Millisecond; l.Metrics = m })
		w.connected()
		// A notification lost without a trace: the feed moved, nothing came.
		pgtest.Exec(t, w.store.Pool(), `UPDATE seat_feed SET seq = seq + 1`)
		deadline := time.Now().Add(within)
		for testutil.ToFloat64(m.LiveGaps) < 1 {
			if time.Now().After(deadline) {
				t.Fatalf("%v on, the quiet checks have not found the feed ahead", within)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// tolerate keeps the errors of a crowd's ordinary refusals out of a test's
// failures.
func tolerate(err error) error {
	var taken *booking.SeatsUnavailableError
	var active *booking.ActiveHoldError
	switch {
	case err == nil, errors.As(err, &taken), errors.As(err, &active),
		errors.Is(err, booking.ErrNotFound), errors.Is(err, booking.ErrHoldConfirmed):
		return nil
	}
	return err
}

func TestSnapshot(t *testing.T) {
	at := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	seats := []booking.Seat{
		{ID: "A1", Status: booking.SeatHeld, HolderID: "u1", HeldUntil: at.Add(time.Minute)},
		{ID: "A2", Status: booking.SeatHeld, HolderID: "u2", HeldUntil: at.Add(2 * time.Minute)},
		{ID: "A3", Status: booking.SeatBooked},
	}
	s := newSnapshot(7, slices.Clone(seats), at)
	if !s.Until.Equal(at.Add(time.Minute)) || s.stale(at.Add(time.Minute-time.Microsecond)) || !s.stale(at.Add(time.Minute)) {
		t.Fatalf("Until %v: the snapshot must hold until the first hold lets go, exactly", s.Until)
	}
	next := s.freedAt(at.Add(time.Minute))
	if next.Version != s.Version+1 || next.Seats[0].Status != booking.SeatAvailable || next.Seats[0].HolderID != "" ||
		next.Seats[1].Status != booking.SeatHeld || !next.Until.Equal(at.Add(2*time.Minute)) {
		t.Fatalf("freed at the first deadline: %+v", next)
	}
	if s.Seats[0].Status != booking.SeatHeld {
		t.Fatal("freeing changed the snapshot it started from")
	}
	if _, ok := s.patched([]booking.Seat{{ID: "Z9"}}, at); ok {
		t.Fatal("a seat not on the map patched it: the layout changed, the map must be read whole")
	}

	mine, shared := next.ViewedBy("u2", nil, nil)
	if shared || mine[1].HolderID != "" || mine[1].Status != booking.SeatHeld {
		t.Fatalf("a seat the map gives a viewer with no hold now must show held, not theirs: %+v", mine[1])
	}
	hold := &booking.Hold{ShowID: 7, Seats: []string{"A1"}, ExpiresAt: at.Add(5 * time.Minute)}
	mine, _ = next.ViewedBy("u3", hold, nil)
	if !mine[0].Mine || mine[0].Status != booking.SeatHeld {
		t.Fatalf("the viewer's hold, newer than the map, must show as theirs: %+v", mine[0])
	}
	freed, _ := next.ViewedBy("u2", nil, []string{"A2"})
	if freed[1].Status != booking.SeatAvailable {
		t.Fatalf("a seat the viewer has just let go must show available: %+v", freed[1])
	}
	guest, shared := next.ViewedBy("", nil, nil)
	if !shared || &guest[0] != &next.Seats[0] {
		t.Fatal("a guest must get the shared seats")
	}

	var builds int
	for range 3 {
		v, _ := next.Memo("k", func() (any, error) { builds++; return builds, nil })
		if v != 1 {
			t.Fatalf("Memo = %v, want the first build's", v)
		}
	}
}

func TestBoardEviction(t *testing.T) {
	f := newFakeSeats(map[int64]int{1: 3, 2: 3})
	h := NewHub(f.load, quiet)
	now := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	h.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h.FeedUp() // as a listener would
	runUntilEnd(t, h.Run)
	ctx := context.Background()
	for _, show := range []int64{1, 2} {
		if _, err := h.Map(ctx, show); err != nil {
			t.Fatal(err)
		}
	}
	sub := h.Subscribe(2, 4)
	defer sub.Close()
	mu.Lock()
	now = now.Add(boardIdle)
	mu.Unlock()
	h.mu.Lock()
	h.evictIdle(h.now())
	h.mu.Unlock()
	if n := h.Followed(); n != 1 {
		t.Fatalf("%d maps kept after the idle time, want 1: the one watched live", n)
	}
	loads := f.loads.Load()
	if _, err := h.Map(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if f.loads.Load() != loads+1 {
		t.Fatal("a forgotten map must be read again when next asked for")
	}
	if _, err := h.Map(ctx, 3); !errors.Is(err, booking.ErrNotFound) {
		t.Fatalf("a show without seats: %v, want not found", err)
	}

	// The listener loses the feed: nothing is kept, every ask reads.
	h.FeedDown()
	if n := h.Followed(); n != 0 {
		t.Fatalf("%d maps kept after the feed was lost", n)
	}
	loads = f.loads.Load()
	for range 2 {
		if _, err := h.Map(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if f.loads.Load() != loads+2 || h.Followed() != 0 {
		t.Fatal("without the feed every ask must read the database, and keep nothing")
	}
}

func TestListenerName(t *testing.T) {
	// pgtest.Listeners counts the listeners by this name, which it cannot
	// import from here.
	if ApplicationName != "marquee live listener" {
		t.Fatalf("ApplicationName %q: change pgtest's listenerName with it", ApplicationName)
	}
}
