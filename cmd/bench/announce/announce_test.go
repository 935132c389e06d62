package announce_test

import (
	"context"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/announce"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

func TestStart(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	pgtest.Reserve(t, 4)
	pool, err := postgres.Connect(ctx, dbURL, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.NewStore(pool)
	w, err := seed.Seed(ctx, store, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgtest.InstallNaiveNotify(ctx, pool, live.Channel); err != nil {
		t.Fatal(err)
	}
	user := w.Users[0]
	keys := 0
	// holdAndRelease holds A1 and A2 and releases them, and waits until
	// sub has seen both changes.
	holdAndRelease := func(t *testing.T, sub *live.Subscription) {
		t.Helper()
		keys++
		res, err := store.HoldSeats(ctx, booking.HoldRequest{UserID: user.ID, ShowID: w.HotShow, Seats: []string{"A1", "A2"}, TTL: time.Minute, Key: string(rune('a' + keys))}, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []booking.SeatStatus{booking.SeatHeld, booking.SeatAvailable} {
			if want == booking.SeatAvailable {
				if _, err := store.CancelHold(ctx, user.ID, res.Hold.ID); err != nil {
					t.Fatal(err)
				}
			}
			for seen := false; !seen; {
				select {
				case u := <-sub.Updates():
					for _, s := range u.Seats {
						seen = seen || (s.ID == "A1" && s.Status == want)
					}
				case <-time.After(time.Minute):
					t.Fatalf("no update with A1 %s within a minute", want)
				}
			}
		}
	}

	t.Run("the design: seat_events, the notifier and one listener feed the hub", func(t *testing.T) {
		if err := pgtest.SetAnnouncementTriggers(ctx, pool, true, false); err != nil {
			t.Fatal(err)
		}
		m, err := announce.Start(ctx, dbURL, store, pool, announce.Design)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := pgtest.Listeners(ctx, pool); err != nil || n != 1 {
			t.Errorf("%d listeners (%v), want 1", n, err)
		}
		sub := m.Hub.Subscribe(w.HotShow, 16)
		holdAndRelease(t, sub)
		sub.Close()
		// The backlog watch looks every 100 ms: twice, however late a
		// loaded machine runs it.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if _, samples := m.Backlog(); samples >= 2 || time.Now().After(deadline) {
				break
			}
		}
		m.Stop()
		if _, samples := m.Backlog(); samples < 2 {
			t.Errorf("the backlog was sampled %d times", samples)
		}
		if n, err := pgtest.CountSeatEvents(ctx, pool); err != nil || n != 0 {
			t.Errorf("seat_events has %d rows (%v) after the notifier ran: want them announced", n, err)
		}
		if err := announce.WaitListening(ctx, pool, 0); err != nil {
			t.Error(err)
		}
	})
	t.Run("naive with three listeners: every NOTIFY reaches each", func(t *testing.T) {
		if err := pgtest.SetAnnouncementTriggers(ctx, pool, false, true); err != nil {
			t.Fatal(err)
		}
		way := announce.Ways(3)[3]
		if !way.Naive || way.Listeners != 3 || way.Events || way.Notifier {
			t.Fatalf("Ways(3)[3] = %+v, want naive with 3 listeners", way)
		}
		m, err := announce.Start(ctx, dbURL, store, pool, way)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Stop()
		sub := m.Hub.Subscribe(w.HotShow, 16)
		defer sub.Close()
		holdAndRelease(t, sub)
		// A hold and a release: two NOTIFYs, each read by the 2 extra listeners.
		deadline := time.Now().Add(time.Minute)
		for m.Received() < 4 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if got := m.Received(); got != 4 {
			t.Errorf("the extra listeners read %d notifications, want 4", got)
		}
		if _, samples := m.Backlog(); samples != 0 {
			t.Errorf("a way without seat_events watched the backlog %d times", samples)
		}
	})
	t.Run("WaitListening gives up", func(t *testing.T) {
		wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		if err := announce.WaitListening(wctx, pool, 5); err == nil {
			t.Error("WaitListening for 5 listeners that never come: no error")
		}
	})
}
