// Package pgtest gives each test a fresh, migrated PostgreSQL database and
// the fixtures booking tests share. The server is DATABASE_URL's when set
// (make test sets it), else the one on 127.0.0.1:5432.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/postgres"
)

const defaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// ServerURL is the URL of the server tests create their databases on.
func ServerURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return defaultURL
}

// NewDatabase creates an empty database with every migration applied,
// dropped when the test ends, and returns its URL.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		tb.Fatalf("connect to test server %s: %v", postgres.RedactURL(ServerURL()), err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := "marquee_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), ServerURL())
		if err != nil {
			tb.Errorf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(ServerURL())
	if err != nil {
		tb.Fatalf("parse server url: %v", err)
	}
	u.Path = "/" + name
	dbURL := u.String()
	if err := postgres.Migrate(ctx, dbURL); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	return dbURL
}

// NewStore returns a store on a fresh database with a pool of maxConns.
func NewStore(tb testing.TB, maxConns int32) *postgres.Store {
	tb.Helper()
	pool, err := postgres.Connect(context.Background(), NewDatabase(tb), maxConns)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return postgres.NewStore(pool)
}

// Clock is a controllable clock for Store.Clock: time moves only when a test moves it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock stopped at now, truncated to microseconds as
// Postgres stores time.
func NewClock(now time.Time) *Clock { return &Clock{now: now.UTC().Truncate(time.Microsecond)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// CheckInvariants fails the test for every broken booking invariant.
func CheckInvariants(tb testing.TB, s *postgres.Store) {
	tb.Helper()
	v, err := s.InvariantViolations(context.Background())
	if err != nil {
		tb.Fatalf("check invariants: %v", err)
	}
	for _, x := range v {
		tb.Errorf("invariant violated: %s", x)
	}
}

// Exec runs SQL on the store's database, failing the test on error.
func Exec(tb testing.TB, pool *pgxpool.Pool, sql string, args ...any) {
	tb.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

// Scalar runs a one-value query, failing the test on error.
func Scalar[T any](tb testing.TB, pool *pgxpool.Pool, sql string, args ...any) T {
	tb.Helper()
	var v T
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
	return v
}

var userSeq struct {
	sync.Mutex
	n int
}

// hash of "password123" at bcrypt's minimum cost, so fixtures stay fast.
const fixtureHash = "$2a$04$jLAH.lnrJZ5WXm2dh35Vje1rukTAvlSLlMza8IcEJC/A7wu24VKei"

// FixturePassword is the password of every user made by User.
const FixturePassword = "password123"

// User creates an account and returns its id.
func User(tb testing.TB, s *postgres.Store) string {
	tb.Helper()
	userSeq.Lock()
	userSeq.n++
	n := userSeq.n
	userSeq.Unlock()
	b := make([]byte, 4)
	rand.Read(b)
	u, err := s.CreateUser(context.Background(), fmt.Sprintf("user%d-%x@example.com", n, b), fmt.Sprintf("User %d", n), fixtureHash, "moviegoer")
	if err != nil {
		tb.Fatal(err)
	}
	return u.ID
}
