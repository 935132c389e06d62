// Package postgres is the store of Marquee: every read and write of booking
// state, as raw SQL beside the method that runs it. Each exported method owns
// its transaction. Every path that locks takes show_seat rows first, in
// (show_id, seat_id) order, then hold rows by id, then payment and booking
// rows, so no two transactions can wait on each other in a cycle.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/migrations"
)

// Store is the booking store on one PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	jobs *jobs.Inserter // inserts background jobs in the store's transactions

	// Clock, when set, replaces the database clock for every decision. Tests
	// set it to cross deadlines exactly; production leaves it nil so that all
	// app instances share the database's clock.
	Clock func() time.Time

	// LockTimeout bounds how long a hold waits for a seat row another request
	// has locked. A stampede answers 409 quickly rather than queueing.
	LockTimeout time.Duration

	// PaymentCheckDelay is how long after a checkout opens its payment
	// check is first due (the reconcile worker's Delay); 0 =
	// jobs.DefaultPaymentCheckDelay.
	PaymentCheckDelay time.Duration

	// SupportEmail is customer service's address, told when a refund keeps
	// failing; "" tells nobody but the moviegoer.
	SupportEmail string
}

// NewStore returns a store using pool.
func NewStore(pool *pgxpool.Pool) *Store {
	inserter, err := jobs.NewInserter(pool)
	if err != nil {
		// River refuses only a configuration it cannot use, and this one
		// is fixed.
		panic(err)
	}
	return &Store{pool: pool, jobs: inserter, LockTimeout: 100 * time.Millisecond}
}

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// now is the clock argument of a query: nil lets SQL use the database clock.
func (s *Store) now() any {
	if s.Clock == nil {
		return nil
	}
	return s.Clock()
}

// sessionGuards are the settings of every connection of the pool. The
// server enforces them itself, so they hold when the app stalls, loses its
// network or dies in the middle of a transaction: Postgres ends an idle
// transaction, and with it its seat locks, without waiting for a client
// that may never come back.
var sessionGuards = map[string]string{
	// A transaction the app left open between statements (it stalled, was
	// cut off or killed) is rolled back after 5 s.
	"idle_in_transaction_session_timeout": "5s",
	// No statement outlives the 10 s a request may take.
	"statement_timeout": "10s",
	// A wait for a lock gives up before the request does. Holds set their
	// own, much shorter, lock timeout (Store.LockTimeout).
	"lock_timeout": "5s",
	// Names the app's sessions in pg_stat_activity.
	"application_name": "marquee",
}

// Connect opens a pool to databaseURL with the session guards every
// connection needs: no statement and no idle transaction may hold seat locks
// for long, whatever a client or a bug does.
func Connect(ctx context.Context, databaseURL string, maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// An unreachable host must fail the start, not wait for TCP to give up.
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	// A value the URL sets (?statement_timeout=30s) is the operator's and
	// wins.
	for name, value := range sessionGuards {
		if _, set := cfg.ConnConfig.RuntimeParams[name]; !set {
			cfg.ConnConfig.RuntimeParams[name] = value
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return pool, nil
}

// Migrate applies every embedded migration not yet applied to databaseURL,
// then River's (the background jobs' tables).
func Migrate(ctx context.Context, databaseURL string) error {
	m, done, err := Migrator(databaseURL)
	if err != nil {
		return err
	}
	defer done()
	if err := knownVersion(m); err != nil {
		return err
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("apply migrations: %w", err)
	}
	if err := migrateRiver(ctx, databaseURL); err != nil {
		return err
	}
	return carryOver(ctx, databaseURL)
}

// Migrator returns the embedded migrations bound to databaseURL, for moving
// to a given version (the tests of the down migrations), and a func that
// closes its connection.
func Migrator(databaseURL string) (*migrate.Migrate, func(), error) {
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("migrations source: %w", err)
	}
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, nil, fmt.Errorf("parse database url: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	db := stdlib.OpenDB(*cfg)
	driver, err := migratepgx.WithInstance(db, &migratepgx.Config{})
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("migrations driver: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("migrations: %w", err)
	}
	return m, func() { m.Close() }, nil
}

// ErrUnknownSchema is a database at a migration version this build does not
// have: made by a newer build, or by one from before the pre-release
// migrations were squashed into today's baseline.
var ErrUnknownSchema = errors.New("the database's schema is at a migration this build does not have")

// knownVersion refuses a database whose migration version is not one of
// ours, with what to do about it, rather than golang-migrate's "file does
// not exist".
func knownVersion(m *migrate.Migrate) error {
	version, _, err := m.Version()
	if errors.Is(err, migrate.ErrNilVersion) {
		return nil // a new database
	}
	if err != nil {
		return fmt.Errorf("read the schema version: %w", err)
	}
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return fmt.Errorf("migrations source: %w", err)
	}
	defer src.Close()
	if _, _, err := src.ReadUp(version); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (version %d): drop the database and start again (for the private server of `make run`, `make clean` does that)", ErrUnknownSchema, version)
	} else if err != nil {
		return fmt.Errorf("read migration %d: %w", version, err)
	}
	return nil
}

// Ready reports whether the database answers and every migration is applied.
func (s *Store) Ready(ctx context.Context) error {
	var version int
	var dirty bool
	err := s.pool.QueryRow(ctx, `SELECT version, dirty FROM schema_migrations`).Scan(&version, &dirty)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	latest, err := latestMigration()
	if err != nil {
		return err
	}
	if dirty || version < latest {
		return fmt.Errorf("schema at version %d (dirty=%v), want %d", version, dirty, latest)
	}
	return nil
}

func latestMigration() (int, error) {
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return 0, fmt.Errorf("migrations source: %w", err)
	}
	defer src.Close()
	v, err := src.First()
	if err != nil {
		return 0, fmt.Errorf("first migration: %w", err)
	}
	for {
		next, err := src.Next(v)
		if err != nil {
			return int(v), nil
		}
		v = next
	}
}

// RedactURL returns databaseURL without its password, for logs.
func RedactURL(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "(unparsable database url)"
	}
	return u.Redacted()
}

// inTx runs fn in a transaction, committing when it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// pgCode returns the SQLSTATE of err and the constraint it names, if any.
func pgCode(err error) (code, constraint string) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code, pgErr.ConstraintName
	}
	return "", ""
}

const (
	codeUniqueViolation = "23505"
	codeExclusion       = "23P01"
	codeLockNotAvail    = "55P03"
	codeForeignKey      = "23503"
	codeCheck           = "23514"

	// The server cannot serve the connection (SQLSTATE class 08, and
	// class 57's shutdowns); too many clients (53300).
	classConnectionException = "08"
	codeAdminShutdown        = "57P01"
	codeCrashShutdown        = "57P02"
	codeCannotConnectNow     = "57P03"
	codeTooManyConnections   = "53300"
)

// ErrUnavailable marks an error that says the database is out of reach:
// down, restarting, refusing connections, or the network to it broken.
// Nothing about the request was wrong, and the same request may be sent
// again in a few seconds: holds are idempotent by their key and payments
// by their id, so a retry finds what a lost answer had done.
var ErrUnavailable = errors.New("the database cannot be reached")

// Unavailable returns err marked with ErrUnavailable (errors.Is) when it
// says the database cannot be reached, and err unchanged otherwise. It is
// the one place that knows which driver errors mean that. It reads any
// network failure as the database's: one from elsewhere (the payment
// provider) must be named by its caller first, as boxoffice does with
// ErrProviderUnavailable.
func Unavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || !unreachable(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// unreachable reports whether err is a failure to reach the database rather
// than an answer from it, a bug or the request's own deadline.
func unreachable(err error) bool {
	var connect *pgconn.ConnectError
	connecting := errors.As(err, &connect)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// The client went away, or the request's time ran out while a
		// statement ran: not the database's absence. Running out of time
		// while opening a connection is.
		return connecting && errors.Is(err, context.DeadlineExceeded)
	}
	if connecting {
		// Refused, reset, timed out, or the server answered that it is
		// starting up, shutting down or full.
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case codeAdminShutdown, codeCrashShutdown, codeCannotConnectNow, codeTooManyConnections:
			return true
		}
		return strings.HasPrefix(pgErr.Code, classConnectionException)
	}
	var netErr net.Error
	return errors.Is(err, pgconn.ErrConnClosed) || // the pool handed out a connection already lost
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || // the server closed the connection
		errors.As(err, &netErr) || // refused, reset, broken pipe
		pgconn.SafeToRetry(err) // the connection failed before the statement was sent
}
