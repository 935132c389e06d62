package pgtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

func TestCreateDatabase(t *testing.T) {
	ctx := context.Background()
	db, err := pgtest.CreateDatabase(ctx, pgtest.ServerURL(), "marquee_pgtest")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(db.Name, "marquee_pgtest_") || !strings.Contains(db.URL, "/"+db.Name) {
		t.Errorf("database %q at %s", db.Name, postgres.RedactURL(db.URL))
	}
	c, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	if err := c.QueryRow(ctx, `SELECT current_database()`).Scan(&name); err != nil || name != db.Name {
		t.Errorf("connected to %q (%v), want %q", name, err, db.Name)
	}
	// Drop closes connections still open.
	if err := db.Drop(); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	if _, err := pgx.Connect(ctx, db.URL); err == nil {
		t.Error("the database still takes connections after Drop")
	}
	if _, err := pgtest.CreateDatabase(ctx, "mysql://localhost/x", "marquee_pgtest"); err == nil {
		t.Error("CreateDatabase of a mysql:// URL: no error")
	}
}

func TestServerFigures(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 2)
	set, err := pgtest.Settings(ctx, s.Pool())
	if err != nil {
		t.Fatal(err)
	}
	if set.Version == "" || set.Fsync == "" || set.SynchronousCommit == "" || set.Autovacuum == "" {
		t.Errorf("settings %+v: want all four", set)
	}
	free, err := pgtest.FreeConnections(ctx, s.Pool())
	if err != nil || free < 1 {
		t.Errorf("FreeConnections = %d, %v", free, err)
	}
	pids, err := pgtest.BackendPIDs(ctx, s.Pool())
	if err != nil || len(pids) < 1 {
		t.Errorf("BackendPIDs = %v, %v; want at least the pool's connection", pids, err)
	}
	dbURL := s.Pool().Config().ConnConfig.ConnString()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	before, err := pgtest.Listeners(ctx, s.Pool())
	if err != nil {
		t.Fatal(err)
	}
	if err := pgtest.Listen(ctx, conn, "bench_test"); err != nil {
		t.Fatal(err)
	}
	if after, err := pgtest.Listeners(ctx, s.Pool()); err != nil || after != before+1 {
		t.Errorf("Listeners = %d, %v after a LISTEN; want %d", after, err, before+1)
	}
	if more, err := pgtest.BackendPIDs(ctx, s.Pool()); err != nil || len(more) <= len(pids) {
		t.Errorf("BackendPIDs = %v with another connection, want more than %v", more, pids)
	}
}

func TestNaiveHold(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 4, time.Now().Add(24*time.Hour))
	alice, bob := pgtest.User(t, s), pgtest.User(t, s)
	req := booking.HoldRequest{UserID: alice, ShowID: show, Seats: []string{"A2", "A1"}, TTL: time.Minute, Key: "k1"}
	id, err := pgtest.NaiveHold(ctx, s.Pool(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the hold is the store's: its seats, price, key and expiry", func(t *testing.T) {
		h, err := s.Hold(ctx, alice, id)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(h.Seats, []string{"A1", "A2"}) || h.State != booking.HoldHeld || h.AmountMinor != 2*pgtest.Prices["STANDARD"] {
			t.Errorf("hold %+v: want A1, A2 held for two standard seats", h)
		}
		if d := time.Until(h.ExpiresAt); d > time.Minute || d < 30*time.Second {
			t.Errorf("expires in %s, want about a minute", d)
		}
		// The store sees the key: the same request replays the hold.
		res, err := s.HoldSeats(ctx, req, 10)
		if err != nil || !res.Replayed || res.Hold.ID != id {
			t.Errorf("HoldSeats with the naive hold's key = %+v, %v; want its replay", res, err)
		}
		pgtest.CheckInvariants(t, s)
	})
	t.Run("a taken seat loses", func(t *testing.T) {
		_, err := pgtest.NaiveHold(ctx, s.Pool(), booking.HoldRequest{UserID: bob, ShowID: show, Seats: []string{"A2", "A3"}, TTL: time.Minute, Key: "k2"})
		if !errors.Is(err, pgtest.ErrSeatsTaken) {
			t.Errorf("NaiveHold of a taken seat = %v, want ErrSeatsTaken", err)
		}
	})
	t.Run("an unknown seat is an error, not a lost race", func(t *testing.T) {
		_, err := pgtest.NaiveHold(ctx, s.Pool(), booking.HoldRequest{UserID: bob, ShowID: show, Seats: []string{"Z9"}, TTL: time.Minute, Key: "k3"})
		if err == nil || errors.Is(err, pgtest.ErrSeatsTaken) {
			t.Errorf("NaiveHold of an unknown seat = %v", err)
		}
	})
	t.Run("Settle releases what is left held", func(t *testing.T) {
		released, err := pgtest.Settle(ctx, s.Pool())
		if err != nil || released != 2 {
			t.Fatalf("Settle = %d, %v; want the hold's 2 seats", released, err)
		}
		h, err := s.Hold(ctx, alice, id)
		if err != nil || h.State != booking.HoldCancelled {
			t.Errorf("hold after Settle: %+v, %v; want cancelled", h, err)
		}
		if again, err := pgtest.Settle(ctx, s.Pool()); err != nil || again != 0 {
			t.Errorf("a second Settle = %d, %v; want nothing to release", again, err)
		}
		pgtest.CheckInvariants(t, s)
	})
}

func TestNaiveNotify(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 2)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 4, time.Now().Add(24*time.Hour))
	alice := pgtest.User(t, s)
	if err := pgtest.InstallNaiveNotify(ctx, s.Pool(), "bad channel; DROP TABLE holds"); err == nil {
		t.Error("InstallNaiveNotify of a channel that is not a plain name: no error")
	}
	if err := pgtest.InstallNaiveNotify(ctx, s.Pool(), "bench_seats"); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, s.Pool().Config().ConnConfig.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgtest.Listen(ctx, conn, "bench_seats"); err != nil {
		t.Fatal(err)
	}
	hold := func(key string) {
		t.Helper()
		res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: alice, ShowID: show, Seats: []string{"A1", "A2"}, TTL: time.Minute, Key: key}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CancelHold(ctx, alice, res.Hold.ID); err != nil {
			t.Fatal(err)
		}
	}
	next := func(within time.Duration) (string, bool) {
		wctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		n, err := conn.WaitForNotification(wctx)
		if err != nil {
			return "", false
		}
		return n.Payload, true
	}

	t.Run("installed disabled: nothing is sent", func(t *testing.T) {
		hold("off")
		if p, ok := next(300 * time.Millisecond); ok {
			t.Errorf("got %s with the trigger disabled", p)
		}
	})
	t.Run("enabled: one NOTIFY per statement naming the show and its seats", func(t *testing.T) {
		if err := pgtest.SetAnnouncementTriggers(ctx, s.Pool(), false, true); err != nil {
			t.Fatal(err)
		}
		if err := pgtest.ClearSeatEvents(ctx, s.Pool()); err != nil {
			t.Fatal(err)
		}
		hold("on")
		for _, what := range []string{"hold", "release"} {
			p, ok := next(10 * time.Second)
			if !ok {
				t.Fatalf("no notification for the %s", what)
			}
			var msg struct {
				Show  int64    `json:"show"`
				Seats []string `json:"seats"`
				At    int64    `json:"at"`
			}
			if err := json.Unmarshal([]byte(p), &msg); err != nil || msg.Show != show || !slices.Equal(msg.Seats, []string{"A1", "A2"}) || msg.At == 0 {
				t.Errorf("%s: payload %s (%v)", what, p, err)
			}
		}
		if p, ok := next(300 * time.Millisecond); ok {
			t.Errorf("a third notification: %s", p)
		}
		// The hold path still records its own seat_events rows; the
		// statement trigger, disabled, nothing more.
		if n, err := pgtest.CountSeatEvents(ctx, s.Pool()); err != nil || n != 2 {
			t.Errorf("seat_events = %d, %v; want the hold path's 2", n, err)
		}
	})
}

func TestDoubleAllocations(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 1, 4, time.Now().Add(24*time.Hour))
	alice, bob := pgtest.User(t, s), pgtest.User(t, s)
	res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: alice, ShowID: show, Seats: []string{"A1", "A2"}, TTL: time.Minute, Key: "k1"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := pgtest.DoubleAllocations(ctx, s.Pool(), show); err != nil || len(got) != 0 {
		t.Fatalf("DoubleAllocations of one hold = %v, %v; want none", got, err)
	}
	counts, err := pgtest.SeatCounts(ctx, s.Pool(), show)
	if err != nil || counts["HELD"] != 2 || counts["AVAILABLE"] != 2 || len(counts) != 2 {
		t.Errorf("SeatCounts = %v, %v; want 2 held, 2 available", counts, err)
	}
	// A second live hold naming A2, written past hold_seats as a broken
	// hold path would: the seat has two owners.
	pgtest.Exec(t, s.Pool(), `
		INSERT INTO holds (user_id, show_id, seat_ids, state, expires_at, amount_minor, currency, created_at)
		SELECT $1, show_id, ARRAY['A2', 'A3'], 'HELD', expires_at, amount_minor, currency, created_at
		  FROM holds WHERE id = $2`, bob, res.Hold.ID)
	got, err := pgtest.DoubleAllocations(ctx, s.Pool(), show)
	if err != nil || len(got) != 1 || !strings.HasPrefix(got[0], "seat A2: hold ") || strings.Count(got[0], "hold ") != 2 {
		t.Errorf("DoubleAllocations = %q, %v; want A2 in two holds", got, err)
	}
	// An expired hold claims nothing.
	pgtest.Exec(t, s.Pool(), `UPDATE holds SET expires_at = created_at + interval '1 microsecond' WHERE user_id = $1`, bob)
	if got, err := pgtest.DoubleAllocations(ctx, s.Pool(), show); err != nil || len(got) != 0 {
		t.Errorf("DoubleAllocations with the second hold lapsed = %v, %v; want none", got, err)
	}
}
