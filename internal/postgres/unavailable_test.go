package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Unavailable marks the errors of a database out of reach, as the driver
// really returns them, and nothing else: not the database's answers, not a
// request's own deadline.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	pgtest.Reserve(t, 5)
	dbURL := pgtest.NewDatabase(t)
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	admin, victim, slow, idle := connect(), connect(), connect(), connect()

	// A connection its server ended (an administrator, or a shutdown):
	// 57P01 on the next statement, then "conn closed".
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend($1)`, victim.PgConn().PID()); err != nil {
		t.Fatal(err)
	}
	_, terminated := victim.Exec(ctx, `SELECT 1`)
	_, closed := victim.Exec(ctx, `SELECT 1`)

	_, refused := postgres.Connect(ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", 1)
	missing, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	missing.Path += "_missing"
	_, unknownDB := pgx.Connect(ctx, missing.String())

	_, syntax := admin.Exec(ctx, `SELEKT 1`)
	_, division := admin.Exec(ctx, `SELECT 1/0`)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, deadline := slow.Exec(short, `SELECT pg_sleep(5)`)
	cancelled, cancelNow := context.WithCancel(ctx)
	cancelNow()
	_, gone := idle.Exec(cancelled, `SELECT 1`)

	for _, tc := range []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"a backend terminated (57P01)", terminated, true},
		{"a statement on a closed connection", closed, true},
		{"a connection refused", refused, true},
		{"a database that does not exist", unknownDB, true},
		{"already marked, and wrapped", fmt.Errorf("op: %w", postgres.Unavailable(refused)), true},
		{"a syntax error", syntax, false},
		{"a division by zero", division, false},
		{"the request's deadline", deadline, false},
		{"the client gone", gone, false},
		{"some other error", errors.New("connection refused"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("the statement did not fail")
			}
			got := postgres.Unavailable(tc.err)
			if errors.Is(got, postgres.ErrUnavailable) != tc.unavailable {
				t.Errorf("Unavailable(%v) marked = %v, want %v", tc.err, !tc.unavailable, tc.unavailable)
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("Unavailable(%v) = %v: the cause is lost", tc.err, got)
			}
		})
	}
	if postgres.Unavailable(nil) != nil {
		t.Error("Unavailable(nil) is not nil")
	}
}

// Every connection of the pool carries the session guards, and a value set
// in the URL wins over the guard's.
func TestConnectSessionGuards(t *testing.T) {
	t.Parallel()
	pgtest.Reserve(t, 2)
	dbURL := pgtest.NewDatabase(t)
	for _, tc := range []struct {
		url                                string
		idle, statement, lock, application string
	}{
		{dbURL, "5s", "10s", "5s", "marquee"},
		{dbURL + "&statement_timeout=30s&application_name=report", "5s", "30s", "5s", "report"},
	} {
		pool, err := postgres.Connect(ctx, tc.url, 1)
		if err != nil {
			t.Fatal(err)
		}
		var idle, statement, lock, application string
		err = pool.QueryRow(ctx, `SELECT current_setting('idle_in_transaction_session_timeout'),
			current_setting('statement_timeout'), current_setting('lock_timeout'), current_setting('application_name')`).
			Scan(&idle, &statement, &lock, &application)
		pool.Close()
		if err != nil {
			t.Fatal(err)
		}
		if idle != tc.idle || statement != tc.statement || lock != tc.lock || application != tc.application {
			t.Errorf("%s: idle_in_transaction_session_timeout=%s statement_timeout=%s lock_timeout=%s application_name=%s, want %s %s %s %s",
				tc.url, idle, statement, lock, application, tc.idle, tc.statement, tc.lock, tc.application)
		}
	}
}
