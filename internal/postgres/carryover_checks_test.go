package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/migrations"
)

// The payment checks a build before River kept in payment_checks become
// River jobs, due when they were, with how often the provider was asked and
// why it last failed, and the table goes: in one transaction, once, however
// many instances start together and however often they start.
func TestPaymentChecksAreCarriedOverToRiver(t *testing.T) {
	w := newWorld(t)
	pool := w.store.Pool()
	w.store.PaymentCheckDelay = 30 * time.Second
	// The table as a build before River left it (000018's down file makes
	// it again if the carry-over already ran on this database).
	down, err := migrations.FS.ReadFile("000018_payment_checks_on_river.down.sql")
	if err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, pool, string(down))
	fresh := w.hold(w.user(), "A1")   // never asked yet
	failing := w.hold(w.user(), "A2") // asked three times, failing
	watched := w.hold(w.user(), "A3") // with a check job already
	armed := w.clock.Now()
	pgtest.Exec(t, pool, `
		INSERT INTO payment_checks (hold_id, armed_at, next_check_at, checks, last_error)
		VALUES ($1, $4, NULL, 0, NULL), ($2, $4, $5, 3, 'provider unavailable'), ($3, $4, $6, 1, NULL)`,
		fresh.ID, failing.ID, watched.ID, armed, armed.Add(time.Minute), armed.Add(5*time.Minute))
	if err := w.store.WatchPayments(ctx, watched.ID); err != nil {
		t.Fatal(err)
	}

	carryOver := func() error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return postgres.CarryOverPaymentChecks(ctx, w.store, tx) })
	}
	errs := make([]error, 2)
	pgtest.Release(2, func(i int) { errs[i] = carryOver() })
	for _, err := range errs {
		if err != nil {
			t.Fatalf("carry over: %v", err)
		}
	}
	if pgtest.Scalar[bool](t, pool, `SELECT to_regclass('payment_checks') IS NOT NULL`) {
		t.Fatal("payment_checks is still there")
	}
	type job struct {
		due       time.Time
		queue     string
		checks    int
		lastError *string
	}
	for _, want := range []struct {
		hold, lastError string
		job
	}{
		{hold: fresh.ID, job: job{due: armed.Add(30 * time.Second)}},
		{hold: failing.ID, lastError: "provider unavailable", job: job{due: armed.Add(time.Minute), checks: 3}},
		{hold: watched.ID, job: job{due: armed.Add(30 * time.Second)}}, // its own job's
	} {
		var got job
		err := pool.QueryRow(ctx, `
			SELECT scheduled_at, queue, coalesce((metadata->>$3)::int, 0), metadata->>$4 FROM river_job
			 WHERE kind = $1 AND args->>'hold_id' = $2 AND state = 'scheduled'`,
			jobs.PaymentCheck{}.Kind(), want.hold, jobs.PaymentCheckChecks, jobs.PaymentCheckLastError).
			Scan(&got.due, &got.queue, &got.checks, &got.lastError)
		if err != nil {
			t.Fatalf("the check of hold %s: %v", want.hold, err)
		}
		if !got.due.Equal(want.due) || got.queue != jobs.QueuePayments || got.checks != want.checks ||
			(got.lastError == nil) != (want.lastError == "") || (got.lastError != nil && *got.lastError != want.lastError) {
			t.Errorf("the check of hold %s is due %v in %s, checks %d, last error %v; want due %v, checks %d, last error %q",
				want.hold, got.due, got.queue, got.checks, got.lastError, want.due, want.checks, want.lastError)
		}
	}
	if n := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = $1`, jobs.PaymentCheck{}.Kind()); n != 3 {
		t.Fatalf("%d check jobs, want one per hold", n)
	}
	if err := carryOver(); err != nil {
		t.Fatalf("carry over again: %v", err)
	}
}
