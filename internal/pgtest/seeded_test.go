package pgtest

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/postgres"
)

// A seeded database is filled once per process; each test asking for it
// gets a copy of its own, the filled one closed to connections.
func TestNewSeededStore(t *testing.T) {
	var fills atomic.Int32
	fill := func(ctx context.Context, s *postgres.Store) error {
		fills.Add(1)
		_, err := s.CreateCity(ctx, "Seeded", "seeded")
		return err
	}
	a := NewSeededStore(t, 2, t.Name(), fill)
	b := NewSeededStore(t, 2, t.Name(), fill)
	if n := fills.Load(); n != 1 {
		t.Fatalf("filled %d times for two stores, want once", n)
	}
	for _, s := range []*postgres.Store{a, b} {
		if n := Scalar[int](t, s.Pool(), `SELECT count(*) FROM cities WHERE slug = 'seeded'`); n != 1 {
			t.Fatalf("a copy has %d of the seeded cities, want 1", n)
		}
	}
	Exec(t, a.Pool(), `INSERT INTO cities (name, slug) VALUES ('Only Here', 'only-here')`)
	if n := Scalar[int](t, b.Pool(), `SELECT count(*) FROM cities`); n != 1 {
		t.Fatalf("the other copy has %d cities, want the seeded one", n)
	}
	if c, err := pgx.Connect(ctx, databaseURL(seeds.by[t.Name()].template)); err == nil {
		c.Close(ctx)
		t.Fatal("connected to the filled database: a copy would fail while the connection lasts")
	}
}
