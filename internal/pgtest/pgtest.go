// Package pgtest gives each test a fresh, migrated PostgreSQL database and
// the fixtures booking tests share. The server is DATABASE_URL's when set
// (make test sets it), else the one on 127.0.0.1:5432.
//
// A test process migrates one template database, the first time a test asks
// for a database, and each test's database is a copy of it (CREATE DATABASE
// ... TEMPLATE), which takes a fraction of running the migrations. The
// template and the copies are named after the process (marquee_tmpl_<token>,
// marquee_test_<token>_<n>), so test processes of several packages share a
// server without meeting, and the process holds an advisory lock named by
// its token for as long as it lives. A package's TestMain calling Main drops
// the template when the tests end; whatever a process leaves behind (no
// TestMain, a crash, a kill) is dropped by the next test process that finds
// no one holding its lock.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
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

// lockClass is the first key of every test process's advisory lock; the
// second is the process's token.
const lockClass = 0x6d717465 // "mqte"

// testDBName matches the databases test processes make, capturing the token.
var testDBName = regexp.MustCompile(`^marquee_(?:tmpl|test)_([0-9a-f]{8})(?:_[0-9]+)?$`)

// server is this process's side of the test server: set up once, by the
// first test that asks for a database.
var server struct {
	once     sync.Once
	err      error
	token    uint32 // names this process's databases and its lock
	template string
	seq      atomic.Int64

	// One connection per process, however many tests run in parallel: the
	// server's connections are shared by every package's test process. It
	// holds the process's advisory lock while the process lives, and makes
	// and drops the databases, one statement at a time.
	mu   sync.Mutex
	conn *pgx.Conn

	// slots is how many connections tests may reserve; held are the slots
	// this process holds (connections.go).
	slots int32
	held  map[int32]bool
}

// adminExec runs one statement on the process's connection.
func adminExec(ctx context.Context, sql string, args ...any) error {
	server.mu.Lock()
	defer server.mu.Unlock()
	_, err := server.conn.Exec(ctx, sql, args...)
	return err
}

// adminList runs a query of one column on the process's connection.
func adminList[T any](ctx context.Context, sql string, args ...any) ([]T, error) {
	server.mu.Lock()
	defer server.mu.Unlock()
	rows, err := server.conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[T])
}

// setUp takes the process's lock, drops what ended test processes left,
// and migrates the template.
func setUp(ctx context.Context, logf func(format string, args ...any)) (err error) {
	var b [4]byte
	rand.Read(b[:])
	server.token = binary.BigEndian.Uint32(b[:]) >> 1 // an int4 key, positive
	if server.conn, err = pgx.Connect(ctx, ServerURL()); err != nil {
		return fmt.Errorf("connect to test server %s: %w", postgres.RedactURL(ServerURL()), err)
	}
	if err := adminExec(ctx, `SELECT pg_advisory_lock($1, $2)`, lockClass, int32(server.token)); err != nil {
		return fmt.Errorf("take the test process lock: %w", err)
	}
	// What another process left is no reason to fail this one's tests.
	var max int32
	if err := server.conn.QueryRow(ctx, `SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int`).Scan(&max); err != nil {
		return fmt.Errorf("read max_connections: %w", err)
	}
	server.slots, server.held = max-connHeadroom, map[int32]bool{}
	if server.slots < 1 {
		return fmt.Errorf("the test server allows %d connections; tests need more than %d", max, connHeadroom)
	}
	if swept, err := sweep(ctx); err != nil {
		logf("dropping databases left by ended test processes: %v", err)
	} else if len(swept) > 0 {
		logf("dropped %d databases left by ended test processes: %v", len(swept), swept)
	}

	server.template = fmt.Sprintf("marquee_tmpl_%08x", server.token)
	if err := adminExec(ctx, "CREATE DATABASE "+server.template); err != nil {
		return fmt.Errorf("create template database: %w", err)
	}
	// Migrate closes its connection before it returns: a copy cannot be
	// made while anyone is connected to the template. Nobody may connect
	// afterwards either.
	if err := postgres.Migrate(ctx, databaseURL(server.template)); err != nil {
		return fmt.Errorf("migrate template database: %w", err)
	}
	if err := adminExec(ctx, "ALTER DATABASE "+server.template+" WITH ALLOW_CONNECTIONS false"); err != nil {
		return fmt.Errorf("close template database to connections: %w", err)
	}
	return nil
}

// sweep drops the databases of test processes that no longer hold their
// lock. The databases are listed before the live locks: a process takes its
// lock before it makes any database, so one listed is either alive in the
// locks or dead.
func sweep(ctx context.Context) ([]string, error) {
	byToken, err := testDatabases(ctx)
	if err != nil {
		return nil, err
	}
	live, err := adminList[int64](ctx, `
		SELECT objid::bigint FROM pg_locks
		 WHERE locktype = 'advisory' AND granted AND classid = $1 AND objsubid = 2`, lockClass)
	if err != nil {
		return nil, fmt.Errorf("list test process locks: %w", err)
	}
	for _, t := range live {
		delete(byToken, uint32(t))
	}
	var dead []string
	for _, names := range byToken {
		dead = append(dead, names...)
	}
	// Another process sweeping at once may drop some first.
	return dead, dropDatabases(ctx, dead)
}

// testDatabases lists the databases of test processes by token.
func testDatabases(ctx context.Context) (map[uint32][]string, error) {
	names, err := adminList[string](ctx, `SELECT datname FROM pg_database`)
	if err != nil {
		return nil, fmt.Errorf("list databases: %w", err)
	}
	byToken := map[uint32][]string{}
	for _, name := range names {
		if m := testDBName.FindStringSubmatch(name); m != nil {
			token, err := strconv.ParseUint(m[1], 16, 32)
			if err != nil {
				continue
			}
			byToken[uint32(token)] = append(byToken[uint32(token)], name)
		}
	}
	return byToken, nil
}

func dropDatabases(ctx context.Context, names []string) error {
	var errs []error
	for _, name := range names {
		if err := adminExec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			errs = append(errs, fmt.Errorf("drop database %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// databaseURL is the server's URL with database name in its path.
func databaseURL(name string) string {
	u, err := url.Parse(ServerURL())
	if err != nil {
		// pgx.Connect has parsed it already.
		panic(fmt.Sprintf("parse server url: %v", err))
	}
	u.Path = "/" + name
	return u.String()
}

// NewDatabase creates a database with every migration applied, dropped
// when the test ends, and returns its URL. Its commits are not flushed to
// disk before they return (synchronous_commit off).
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	ensureServer(tb)
	return copyDatabase(tb, server.template)
}

// copyDatabase creates a copy of template, dropped when the test ends, and
// returns its URL.
func copyDatabase(tb testing.TB, template string) string {
	tb.Helper()
	name, err := createCopy(context.Background(), template)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := adminExec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	return databaseURL(name)
}

// createCopy creates a database of this process's from template and
// returns its name.
func createCopy(ctx context.Context, template string) (string, error) {
	name := fmt.Sprintf("marquee_test_%08x_%d", server.token, server.seq.Add(1))
	if err := adminExec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+template); err != nil {
		return "", fmt.Errorf("create database from %s: %w", template, err)
	}
	// A commit does not wait for its WAL to reach the disk: the shared test
	// server is never crashed, so this costs the tests no truth (commits
	// are just as atomic, isolated and visible) and spares each commit a
	// flush on a machine where a hundred tests commit at once. A test that
	// crashes a server brings its own.
	if err := adminExec(ctx, "ALTER DATABASE "+name+" SET synchronous_commit = off"); err != nil {
		return "", fmt.Errorf("set up database %s: %w", name, err)
	}
	return name, nil
}

// ensureServer sets up this process's side of the test server, once.
func ensureServer(tb testing.TB) {
	tb.Helper()
	server.once.Do(func() {
		began := time.Now()
		if server.err = setUp(context.Background(), tb.Logf); server.err == nil {
			tb.Logf("template database %s migrated in %s", server.template, time.Since(began).Round(time.Millisecond))
		}
	})
	if server.err != nil {
		tb.Fatalf("test databases: %v", server.err)
	}
}

// Main runs a package's tests, then each of atEnd (what the tests shared,
// a browser say, stopped), then drops the databases this process made, the
// template among them, and exits. A package whose tests use databases
// calls it from its TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// Without it the template outlives the process until a later test process
// drops it.
func Main(m *testing.M, atEnd ...func()) {
	code := m.Run()
	for _, f := range atEnd {
		f()
	}
	if err := tearDown(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v (a later test process drops what is left)\n", err)
	}
	os.Exit(code)
}

// tearDown drops this process's databases and releases its lock.
func tearDown(ctx context.Context) error {
	if server.conn == nil {
		return nil
	}
	defer server.conn.Close(ctx) // and with it the lock
	byToken, err := testDatabases(ctx)
	if err != nil {
		return err
	}
	return dropDatabases(ctx, byToken[server.token])
}

// NewStore returns a store on a fresh database with a pool of maxConns,
// reserved (Reserve) for the test.
func NewStore(tb testing.TB, maxConns int32) *postgres.Store {
	tb.Helper()
	Reserve(tb, maxConns)
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
