package pgtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/postgres"
)

// seeds are the databases filled once per test process, by the name of
// what fills them, that the tests asking for one get copies of.
var seeds struct {
	mu sync.Mutex
	by map[string]*seed
}

type seed struct {
	once     sync.Once
	template string // the filled database the copies are made from
	err      error
}

// NewSeededStore is NewStore on a copy of a database fill has filled. The
// first test of the process to ask for name fills one, on the connections
// it reserves for its own store; from then on each test that asks, that
// first one too, gets a copy, which the server makes in a fraction of the
// time a fill takes (the demo catalogue: seconds of posters and seat rows).
// The filled database is dropped with the process's others (Main).
func NewSeededStore(tb testing.TB, maxConns int32, name string, fill func(context.Context, *postgres.Store) error) *postgres.Store {
	tb.Helper()
	Reserve(tb, maxConns)
	seeds.mu.Lock()
	if seeds.by == nil {
		seeds.by = map[string]*seed{}
	}
	sd := seeds.by[name]
	if sd == nil {
		sd = &seed{}
		seeds.by[name] = sd
	}
	seeds.mu.Unlock()
	sd.once.Do(func() {
		began := time.Now()
		if sd.template, sd.err = fillTemplate(maxConns, fill); sd.err == nil {
			tb.Logf("%s database %s filled in %s", name, sd.template, time.Since(began).Round(time.Millisecond))
		}
	})
	if sd.err != nil {
		tb.Fatalf("%s database: %v", name, sd.err)
	}
	pool, err := postgres.Connect(context.Background(), copyDatabase(tb, sd.template), maxConns)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return postgres.NewStore(pool)
}

// fillTemplate makes a migrated database, fills it on a pool of maxConns
// and closes it to connections, so that copies can be made of it.
func fillTemplate(maxConns int32, fill func(context.Context, *postgres.Store) error) (string, error) {
	ctx := context.Background()
	name, err := createCopy(ctx, server.template)
	if err != nil {
		return "", err
	}
	pool, err := postgres.Connect(ctx, databaseURL(name), maxConns)
	if err != nil {
		return "", err
	}
	err = fill(ctx, postgres.NewStore(pool))
	// A copy cannot be made while anyone is connected to its template.
	pool.Close()
	if err != nil {
		return "", fmt.Errorf("fill %s: %w", name, err)
	}
	if err := adminExec(ctx, "ALTER DATABASE "+name+" WITH ALLOW_CONNECTIONS false"); err != nil {
		return "", fmt.Errorf("close %s to connections: %w", name, err)
	}
	return name, nil
}
