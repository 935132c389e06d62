package pgtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// holdPathDefs are the definitions the fixture replaces, as the database
// prints them.
func holdPathDefs(t *testing.T, s *postgres.Store) [3]string {
	t.Helper()
	return [3]string{
		pgtest.Scalar[string](t, s.Pool(), `SELECT pg_get_functiondef('hold_seats'::regproc)`),
		pgtest.Scalar[string](t, s.Pool(), `SELECT pg_get_functiondef('end_hold'::regproc)`),
		pgtest.Scalar[string](t, s.Pool(), `SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'show_seats_changed'`),
	}
}

func TestNoAnnouncements(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 2)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 4, time.Now().Add(24*time.Hour))
	alice, bob := pgtest.User(t, s), pgtest.User(t, s)
	latest := holdPathDefs(t, s)
	events := func() int64 {
		n, err := pgtest.CountSeatEvents(ctx, s.Pool())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	hold := func(user, key string, seats ...string) (booking.HoldResult, error) {
		return s.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: seats, TTL: time.Minute, Key: key}, 10)
	}
	// A hold and its release, each counted in seat_events with the
	// trigger off: what the functions record themselves.
	holdAndRelease := func(key string) (held, released int64) {
		t.Helper()
		if err := pgtest.ClearSeatEvents(ctx, s.Pool()); err != nil {
			t.Fatal(err)
		}
		res, err := hold(alice, key, "A1", "A2")
		if err != nil {
			t.Fatal(err)
		}
		held = events()
		if _, err := s.CancelHold(ctx, alice, res.Hold.ID); err != nil {
			t.Fatal(err)
		}
		return held, events() - held
	}
	pgtest.Exec(t, s.Pool(), `ALTER TABLE show_seats DISABLE TRIGGER show_seats_changed`)
	if h, r := holdAndRelease("before"); h != 1 || r != 1 {
		t.Fatalf("the latest hold path wrote %d and %d rows for a hold and a release, want 1 each", h, r)
	}

	restore, err := pgtest.NoAnnouncements(ctx, s.Pool())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("with the fixture and the trigger off, the hold path records nothing", func(t *testing.T) {
		pgtest.Exec(t, s.Pool(), `ALTER TABLE show_seats DISABLE TRIGGER show_seats_changed`)
		if h, r := holdAndRelease("fixture"); h != 0 || r != 0 {
			t.Errorf("a hold and a release wrote %d and %d seat_events rows, want none", h, r)
		}
	})
	t.Run("the trigger of the fixture records every UPDATE, the hold path's too", func(t *testing.T) {
		pgtest.Exec(t, s.Pool(), `ALTER TABLE show_seats ENABLE TRIGGER show_seats_changed`)
		if h, r := holdAndRelease("fixture-trigger"); h != 1 || r != 1 {
			t.Errorf("a hold and a release wrote %d and %d rows through the trigger, want 1 each", h, r)
		}
	})
	t.Run("the fixture's hold path decides as today's does", func(t *testing.T) {
		res, err := hold(alice, "decide", "B1", "B2")
		if err != nil {
			t.Fatal(err)
		}
		var taken *booking.SeatsUnavailableError
		if _, err := hold(bob, "decide", "B2", "B3"); !errors.As(err, &taken) || len(taken.Seats) != 1 || taken.Seats[0] != "B2" {
			t.Errorf("a hold of a taken seat = %v, want B2 unavailable", err)
		}
		if again, err := hold(alice, "decide", "B1", "B2"); err != nil || again.Hold.ID != res.Hold.ID || !again.Replayed {
			t.Errorf("a replay = %+v, %v; want the same hold, replayed", again, err)
		}
		if _, err := s.CancelHold(ctx, alice, res.Hold.ID); err != nil {
			t.Fatal(err)
		}
		pgtest.CheckInvariants(t, s)
	})

	if err := restore(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("restore puts back exactly what the fixture replaced", func(t *testing.T) {
		if got := holdPathDefs(t, s); got != latest {
			t.Errorf("after restore:\n%v\nwant:\n%v", got, latest)
		}
		pgtest.Exec(t, s.Pool(), `ALTER TABLE show_seats DISABLE TRIGGER show_seats_changed`)
		if h, r := holdAndRelease("after"); h != 1 || r != 1 {
			t.Errorf("the restored hold path wrote %d and %d rows, want 1 each", h, r)
		}
	})
	t.Run("the fixture applies again after a restore", func(t *testing.T) {
		restore, err := pgtest.NoAnnouncements(ctx, s.Pool())
		if err != nil {
			t.Fatal(err)
		}
		if err := pgtest.SetAnnouncementTriggers(ctx, s.Pool(), false, false); err == nil {
			t.Error("SetAnnouncementTriggers before InstallNaiveNotify: no error")
		}
		pgtest.Exec(t, s.Pool(), `ALTER TABLE show_seats DISABLE TRIGGER show_seats_changed`)
		if h, r := holdAndRelease("again"); h != 0 || r != 0 {
			t.Errorf("a hold and a release wrote %d and %d rows, want none", h, r)
		}
		if err := restore(ctx); err != nil {
			t.Fatal(err)
		}
		if got := holdPathDefs(t, s); got != latest {
			t.Errorf("after the second restore the hold path differs")
		}
	})
}
