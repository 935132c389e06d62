package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// emptyDatabase is a database with nothing in it, dropped when the test
// ends.
func emptyDatabase(t *testing.T) string {
	t.Helper()
	db, err := pgtest.CreateDatabase(t.Context(), pgtest.ServerURL(), "marquee_test_empty")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Drop(); err != nil {
			t.Error(err)
		}
	})
	return db.URL
}

// riverVersions returns the River migrations applied to the database at
// url and the number River has.
func riverVersions(t *testing.T, url string) (applied []int, all int) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		t.Fatal(err)
	}
	existing, err := m.ExistingVersions(t.Context())
	if err != nil {
		t.Fatalf("River's migrations on the database: %v", err)
	}
	for _, v := range existing {
		applied = append(applied, v.Version)
	}
	return applied, len(m.AllVersions())
}

// River's migrations are applied with ours: on a fresh database, and on one
// a build before River migrated (ours only), whose data stays as it was.
func TestMigrateAppliesRiversMigrations(t *testing.T) {
	t.Parallel()
	t.Run("fresh", func(t *testing.T) {
		t.Parallel()
		url := emptyDatabase(t)
		if err := postgres.Migrate(t.Context(), url); err != nil {
			t.Fatal(err)
		}
		if applied, all := riverVersions(t, url); len(applied) != all || all == 0 {
			t.Fatalf("River migrations %v applied, want all %d", applied, all)
		}
	})
	t.Run("from ours only", func(t *testing.T) {
		t.Parallel()
		url := emptyDatabase(t)
		m := migrator(t, url)
		if err := m.Up(); err != nil {
			t.Fatal(err)
		}
		pool, err := pgxpool.New(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		pgtest.Exec(t, pool, `INSERT INTO cities (slug, name) VALUES ('pune', 'Pune')`)
		if n := pgtest.Scalar[int64](t, pool, `SELECT count(*) FROM pg_tables WHERE tablename = 'river_job'`); n != 0 {
			t.Fatalf("river_job exists before River's migrations")
		}

		if err := postgres.Migrate(t.Context(), url); err != nil {
			t.Fatal(err)
		}
		if applied, all := riverVersions(t, url); len(applied) != all {
			t.Fatalf("River migrations %v applied, want all %d", applied, all)
		}
		if name := pgtest.Scalar[string](t, pool, `SELECT name FROM cities WHERE slug = 'pune'`); name != "Pune" {
			t.Fatalf("city %q after the migrations, want Pune", name)
		}
		// And again: nothing left to do.
		if err := postgres.Migrate(t.Context(), url); err != nil {
			t.Fatalf("Migrate on a migrated database: %v", err)
		}
	})
}

// App instances that start together migrate together: each waits for the
// other, and all start.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	url := emptyDatabase(t)
	const instances = 4
	start := make(chan struct{})
	errs := make(chan error, instances)
	var wg sync.WaitGroup
	for range instances {
		wg.Go(func() {
			<-start
			errs <- postgres.Migrate(context.WithoutCancel(t.Context()), url)
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Migrate: %v", err)
		}
	}
	if applied, all := riverVersions(t, url); len(applied) != all {
		t.Fatalf("River migrations %v applied, want all %d", applied, all)
	}
}
