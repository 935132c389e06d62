package postgres_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Every migration after the tables can be undone with data in the tables
// and applied again, so a release can be rolled back: holds, a booking and
// seat changes not yet announced survive the round trip. All the way down
// leaves nothing of our schema behind (River's, migrated by River, stays).
func TestMigrationsDownAndUpAgainWithData(t *testing.T) {
	w := newWorld(t)
	held := w.hold(w.user(), "A2", "A1")
	paid := w.hold(w.user(), "B1")
	if c, err := w.pay(paid, "pay_migrate"); err != nil || c.Outcome != booking.OutcomeBooked {
		t.Fatalf("pay = %+v, %v", c, err)
	}
	pending := pendingEvents(t, w.store)
	if pending != 4 { // A1, A2, and B1 held then booked
		t.Fatalf("%d seat changes pending, want 4", pending)
	}

	m := migrator(t, w.store.Pool().Config().ConnString())
	latest, _, err := m.Version()
	if err != nil {
		t.Fatal(err)
	}
	roundTrip := func(down uint) {
		t.Helper()
		if err := m.Migrate(down); err != nil {
			t.Fatalf("down to %d from %d: %v", down, latest, err)
		}
		if err := m.Up(); err != nil {
			t.Fatalf("up again from %d: %v", down, err)
		}
		if v, dirty, err := m.Version(); err != nil || dirty || v != latest {
			t.Fatalf("version after the round trip = %d (dirty %v, %v), want %d", v, dirty, err, latest)
		}
	}
	// Down to the seat_events queue (000002) and back: the changes not yet
	// announced are kept.
	roundTrip(2)
	if n := pendingEvents(t, w.store); n != pending {
		t.Fatalf("%d seat changes pending after the round trip, want %d", n, pending)
	}
	// Down to the bare tables and back.
	roundTrip(1)
	if st, owner := w.seat("A1"); st != booking.SeatHeld || owner != held.ID {
		t.Fatalf("A1 = %s %s, want HELD by %s", st, owner, held.ID)
	}
	// The functions work again: a release and a new hold.
	if _, err := w.store.CancelHold(ctx, held.UserID, held.ID); err != nil {
		t.Fatal(err)
	}
	// Seats that leave nobody alone: the theatre's orphan rule, off in
	// the fixture, came back on with its column.
	w.hold(w.user(), "A3", "A4")

	if err := m.Down(); err != nil {
		t.Fatalf("down from %d: %v", latest, err)
	}
	left := pgtest.Scalar[[]string](t, w.store.Pool(), `
		SELECT coalesce(array_agg(name ORDER BY name), '{}') FROM (
			SELECT c.relname::text AS name FROM pg_class c
			 WHERE c.relnamespace = 'public'::regnamespace AND c.relname NOT LIKE 'schema_migrations%'
			UNION ALL
			SELECT p.proname::text || '()' FROM pg_proc p
			 WHERE p.pronamespace = 'public'::regnamespace
			   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
			UNION ALL
			SELECT t.typname::text FROM pg_type t
			 WHERE t.typnamespace = 'public'::regnamespace AND t.typtype IN ('e', 'd', 'c') AND t.typrelid = 0
			   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e')) o
		 WHERE name NOT LIKE 'river\_%'`)
	if len(left) > 0 {
		t.Fatalf("all the way down left %v", left)
	}
	if err := m.Up(); err != nil {
		t.Fatalf("up from nothing: %v", err)
	}
	w.venue = pgtest.NewVenue(t, w.store)
	w.show = pgtest.NewShow(t, w.store, w.venue, 1, 2, w.start.Add(48*time.Hour))
	w.hold(w.user(), "A1")
}

func migrator(t *testing.T, dbURL string) *migrate.Migrate {
	t.Helper()
	m, done, err := postgres.Migrator(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(done)
	return m
}

// A database at a migration this build does not have (a newer build's, or
// one from before the baseline) is refused with what to do, and left as it
// was.
func TestMigrateRefusesAnUnknownSchemaVersion(t *testing.T) {
	s := pgtest.NewStore(t, 2)
	url := s.Pool().Config().ConnString()
	latest := pgtest.Scalar[int64](t, s.Pool(), `SELECT version FROM schema_migrations`)
	pgtest.Exec(t, s.Pool(), `UPDATE schema_migrations SET version = 999`)
	err := postgres.Migrate(t.Context(), url)
	if !errors.Is(err, postgres.ErrUnknownSchema) {
		t.Fatalf("Migrate = %v, want ErrUnknownSchema", err)
	}
	if !strings.Contains(err.Error(), "version 999") || !strings.Contains(err.Error(), "drop the database") {
		t.Errorf("the error %q does not say which version or what to do", err)
	}
	if v := pgtest.Scalar[int64](t, s.Pool(), `SELECT version FROM schema_migrations`); v != 999 {
		t.Errorf("schema version %d after the refusal, want 999 untouched", v)
	}

	pgtest.Exec(t, s.Pool(), `UPDATE schema_migrations SET version = $1`, latest)
	if err := postgres.Migrate(t.Context(), url); err != nil {
		t.Fatalf("Migrate at the latest version = %v, want nil", err)
	}
}
