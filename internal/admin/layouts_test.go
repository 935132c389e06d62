package admin_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

var ctx = context.Background()

// env is a store with a venue, a platform admin and a theatre admin of
// the venue's theatre.
type env struct {
	store             *postgres.Store
	svc               *admin.Service
	venue             pgtest.Venue
	platform, theatre admin.Actor
}

func newEnv(t *testing.T) *env {
	t.Helper()
	t.Parallel()
	s := pgtest.NewStore(t, 4)
	e := &env{store: s, svc: &admin.Service{Store: s, Log: slog.New(slog.DiscardHandler)}, venue: pgtest.NewVenue(t, s)}
	e.platform = e.actor(t, auth.RolePlatformAdmin)
	e.theatre = e.actor(t, auth.RoleTheatreAdmin)
	pgtest.Exec(t, s.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'manager')`, e.venue.TheatreID, e.theatre.UserID)
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	return e
}

func (e *env) actor(t *testing.T, role auth.Role) admin.Actor {
	t.Helper()
	id := pgtest.User(t, e.store)
	pgtest.Exec(t, e.store.Pool(), `UPDATE users SET role = $1 WHERE id = $2`, role, id)
	a, err := e.svc.Actor(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (e *env) audits(t *testing.T, action string) int64 {
	t.Helper()
	return pgtest.Scalar[int64](t, e.store.Pool(), `SELECT count(*) FROM audit_log WHERE action = $1`, action)
}

func TestCreateScreenChecksTheLayout(t *testing.T) {
	e := newEnv(t)
	seat := func(id string, row, col int) catalog.SeatSpec {
		return catalog.SeatSpec{ID: id, Row: "A", Number: col + 1, Category: "STANDARD", GridRow: row, GridCol: col}
	}
	with := func(fn func(*catalog.SeatSpec)) []catalog.SeatSpec {
		seats := []catalog.SeatSpec{seat("A1", 0, 0), seat("A2", 0, 1)}
		fn(&seats[1])
		return seats
	}
	many := make([]catalog.SeatSpec, admin.MaxSeats+1)
	for i := range many {
		many[i] = seat(fmt.Sprintf("S%d", i), i/50, i%50)
	}
	for _, tc := range []struct {
		name, screen string
		seats        []catalog.SeatSpec
		field, says  string
	}{
		{"no seats", "One", nil, "seats", "at least one seat"},
		{"too many seats", "One", many, "seats", "at most 2000"},
		{"a duplicate id", "One", []catalog.SeatSpec{seat("A1", 0, 0), seat("A1", 0, 1)}, "seats", "Seat A1: this id is in the layout twice"},
		{"a duplicate cell", "One", []catalog.SeatSpec{seat("A1", 0, 0), seat("A2", 0, 0)}, "seats", "Seat A2: its grid cell (row 0, column 0) is taken by seat A1"},
		{"a bad id", "One", with(func(s *catalog.SeatSpec) { s.ID = "A 2" }), "seats", "Seat 2 of the list: its id"},
		{"a bad category", "One", with(func(s *catalog.SeatSpec) { s.Category = "vip" }), "seats", "Seat A2: its category"},
		{"an empty row label", "One", with(func(s *catalog.SeatSpec) { s.Row = "" }), "seats", "Seat A2: its row label"},
		{"a long row label", "One", with(func(s *catalog.SeatSpec) { s.Row = "ABCDEFGHI" }), "seats", "Seat A2: its row label"},
		{"number 0", "One", with(func(s *catalog.SeatSpec) { s.Number = 0 }), "seats", "Seat A2: its number"},
		{"a negative grid row", "One", with(func(s *catalog.SeatSpec) { s.GridRow = -1 }), "seats", "Seat A2: its grid"},
		{"a huge grid column", "One", with(func(s *catalog.SeatSpec) { s.GridCol = 1 << 40 }), "seats", "Seat A2: its grid"},
		{"no name", "  ", with(func(*catalog.SeatSpec) {}), "name", "name of 1 to 60"},
		{"a NUL in the name", "a\x00b", with(func(*catalog.SeatSpec) {}), "name", "name of 1 to 60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.CreateScreen(ctx, e.platform, e.venue.TheatreID, tc.screen, tc.seats, nil)
			var bad *catalog.FieldError
			if !errors.As(err, &bad) || bad.Field != tc.field || !strings.Contains(bad.Message, tc.says) {
				t.Fatalf("CreateScreen = %v, want a %s error saying %q", err, tc.field, tc.says)
			}
		})
	}
	if n := pgtest.Scalar[int64](t, e.store.Pool(), `SELECT count(*) FROM screens`); n != 0 || e.audits(t, "screen.create") != 0 {
		t.Fatalf("bad layouts made %d screens", n)
	}
}

func TestScreensBelongToTheirTheatre(t *testing.T) {
	e := newEnv(t)
	other, err := e.store.CreateTheatre(ctx, catalog.Theatre{CityID: e.venue.CityID, Name: "Elsewhere", TimeZone: "Asia/Kolkata"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	layout := pgtest.Grid(2, 3)
	mine, err := e.svc.CreateScreen(ctx, e.theatre, e.venue.TheatreID, "Audi 1", layout, nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := e.svc.CreateScreen(ctx, e.platform, other, "Audi 1", layout, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.audits(t, "screen.create"); n != 2 {
		t.Fatalf("%d screen.create entries, want 2", n)
	}

	t.Run("the theatre admin reads their screen", func(t *testing.T) {
		sc, err := e.svc.Screen(ctx, e.theatre, mine)
		if err != nil || len(sc.Seats) != 6 || sc.TheatreID != e.venue.TheatreID {
			t.Fatalf("Screen = %+v, %v", sc, err)
		}
	})
	t.Run("another theatre's screen does not exist for them", func(t *testing.T) {
		if _, err := e.svc.Screen(ctx, e.theatre, theirs); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("Screen = %v", err)
		}
		if _, err := e.svc.ReplaceLayout(ctx, e.theatre, theirs, pgtest.Grid(1, 1), catalog.IdealChange{}); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("ReplaceLayout = %v", err)
		}
		if _, err := e.svc.CreateScreen(ctx, e.theatre, other, "Audi 2", layout, nil); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("CreateScreen = %v", err)
		}
		if n := pgtest.Scalar[int64](t, e.store.Pool(), `SELECT count(*) FROM seats WHERE screen_id = $1`, theirs); n != 6 {
			t.Fatalf("their screen has %d seats", n)
		}
	})
	t.Run("a layout change is audited with what changed", func(t *testing.T) {
		next := pgtest.Grid(2, 3)[:5]
		ch, err := e.svc.ReplaceLayout(ctx, e.theatre, mine, next, catalog.IdealChange{})
		if err != nil || ch.After != 5 {
			t.Fatalf("ReplaceLayout = %+v, %v", ch, err)
		}
		got := pgtest.Scalar[string](t, e.store.Pool(), `
			SELECT format('%s %s %s', before->'seats', after->'seats', after->'removed')
			  FROM audit_log WHERE action = 'screen.replace_layout' AND actor_id = $1`, e.theatre.UserID)
		if got != `6 5 ["B3"]` {
			t.Fatalf("audit = %s", got)
		}
	})
	t.Run("a moviegoer is no admin", func(t *testing.T) {
		if _, err := e.svc.Actor(ctx, pgtest.User(t, e.store)); !errors.Is(err, admin.ErrForbidden) {
			t.Fatalf("Actor = %v", err)
		}
	})
}

func TestReplaceLayoutOfAScreenOnSale(t *testing.T) {
	e := newEnv(t)
	show := pgtest.NewShow(t, e.store, e.venue, 2, 2, time.Now().Add(24*time.Hour))
	screen := pgtest.Scalar[int64](t, e.store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, show)
	user := pgtest.User(t, e.store)
	if _, err := e.store.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: []string{"A1"}, TTL: time.Minute, Key: "k"}, 10); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.ReplaceLayout(ctx, e.theatre, screen, pgtest.Grid(2, 2)[1:], catalog.IdealChange{})
	var inUse *catalog.LayoutInUseError
	if !errors.As(err, &inUse) || len(inUse.Seats) != 1 || inUse.Seats[0] != "A1" || inUse.Shows[0] != show {
		t.Fatalf("ReplaceLayout = %v", err)
	}
	if n := e.audits(t, "screen.replace_layout"); n != 0 {
		t.Fatalf("a refused change was audited %d times", n)
	}
}
