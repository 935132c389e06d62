package main

import (
	"context"
	"errors"
	"net/http"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// TestRefundJobKilled proves that a refund job survives a SIGKILL of the
// app working it, and that the refund is paid exactly once. A booking is
// paid at Sandbox Pay and cancelled through the API, which queues its
// refund job; the test holds a row lock the job needs, so the job stops at
// a known point, and kills the app while River has the job running. The
// next app (on the same database) rescues the job after jobsRescueAfter,
// shortened for the test, and pays the refund:
//
//   - killed waiting for the provider: the job has recorded its attempt
//     (StartRefund) and waits inside Sandbox Pay's refund, which has not
//     recorded anything yet;
//   - killed after the provider refunded: Sandbox Pay has recorded the
//     refund, and the app waits to record that it succeeded. The run again
//     asks the provider once more, and only its idempotency by refund id
//     keeps it from paying twice.
//
// After each, the database shows the refund SUCCEEDED, one refund of the
// payment at the provider, the job completed at its second attempt after
// River's rescue, and booking_invariant_violations() empty.
func TestRefundJobKilled(t *testing.T) {
	t.Parallel()
	// One app at a time (a new one starts once the killed one's sessions
	// are gone): its pool, small (killSlots), the jobs' pool and the live
	// seat map's listener; and the test's own: its pool and the two
	// connections that hold locks.
	pgtest.Reserve(t, killSlots+backgroundConns+jobsConns+1+5)
	k, email := newRefundKill(t)
	k.start(t)
	k.signIn(t, email)

	t.Run("killed waiting for the provider", func(t *testing.T) {
		bookingID, paymentID := k.book(t, "A1")
		// The sandbox's refund locks the payment's row before it records
		// anything: while the test has it, the job waits there.
		provider := lockRow(t, k.url, `SELECT 1 FROM sandbox_payments WHERE id = $1 FOR UPDATE`, paymentID)
		refundID := k.cancel(t, bookingID)
		k.waitBlocked(t, provider)
		k.killRunning(t, refundID, provider)

		if n := k.providerRefunds(t, paymentID); n != 0 {
			t.Fatalf("the provider has %d refunds of payment %s after the kill, want 0: the kill came too late", n, paymentID)
		}
		k.checkUnpaid(t, refundID)
		k.restartAndAwait(t, refundID, paymentID)
	})

	t.Run("killed after the provider refunded", func(t *testing.T) {
		bookingID, paymentID := k.book(t, "A2")
		provider := lockRow(t, k.url, `SELECT 1 FROM sandbox_payments WHERE id = $1 FOR UPDATE`, paymentID)
		refundID := k.cancel(t, bookingID)
		k.waitBlocked(t, provider)
		// The job is inside the provider's call, past StartRefund, whose
		// statement has committed: the refund's row is free to lock now,
		// and RefundSucceeded will wait for it once the provider is let go.
		refund := lockRow(t, k.url, `SELECT 1 FROM refunds WHERE id = $1 FOR UPDATE`, refundID)
		provider.release(t)
		k.waitBlocked(t, refund)
		// RefundSucceeded runs only once the provider's transaction has
		// committed its refund.
		if n := k.providerRefunds(t, paymentID); n != 1 {
			t.Fatalf("the provider has %d refunds of payment %s before the kill, want 1", n, paymentID)
		}
		k.killRunning(t, refundID, refund)

		// The killed app's RefundSucceeded was in a transaction it never
		// committed.
		k.checkUnpaid(t, refundID)
		k.restartAndAwait(t, refundID, paymentID)
	})

	pgtest.CheckInvariants(t, k.store)
}

// testRescueAfter is the apps' jobsRescueAfter: River takes a job a dead
// app left running for the next one once it has run this long. It is short
// so the test waits seconds, not the production 5 minutes, and long enough
// for a job's work (River times jobs out after as long, see jobs.Config).
const testRescueAfter = 5 * time.Second

// refundKill is the app of TestRefundJobKilled, started again after each
// kill, and what the test sees of its database.
type refundKill struct {
	owner *testing.T // the apps live as long as this test
	url   string
	store *postgres.Store
	check *pgxpool.Pool // the test's own connections
	sb    *sandbox.Sandbox
	show  int64
	app   *app
	v     *visitor // the moviegoer, signed in; the session outlives the apps
}

// newRefundKill makes the database of a test that books through the app
// as the payment provider's shopper: a show of four seats in a row, and a
// moviegoer, whose e-mail it returns. It starts no app.
func newRefundKill(t *testing.T) (*refundKill, string) {
	t.Helper()
	dbURL := pgtest.NewDatabase(t)
	store, check := openChecker(t, dbURL, 3)
	k := &refundKill{
		owner: t, url: dbURL, store: store, check: check,
		show: pgtest.NewShow(t, store, pgtest.NewVenue(t, store), 1, 4, time.Now().Add(72*time.Hour)),
		// The test is the shopper at Sandbox Pay's page: it pays through
		// the sandbox itself, on the app's database.
		sb: sandbox.New(check, sandbox.Config{PublicURL: faultsPublicURL, Secret: []byte(faultsSecret)}),
	}
	user := pgtest.User(t, store)
	return k, pgtest.Scalar[string](t, check, `SELECT email FROM users WHERE id = $1`, user)
}

// signIn signs the moviegoer email in at k's app.
func (k *refundKill) signIn(t *testing.T, email string) {
	t.Helper()
	k.v = newVisitor(k.app.Base, newTransport())
	if err := k.v.login(context.Background(), email); err != nil {
		t.Fatal(err)
	}
}

// killSlots are the request slots of the test's app (READ_SLOTS,
// WRITE_SLOTS, WEBHOOK_SLOTS below): one moviegoer's requests need few, and
// its pool is a connection for each and backgroundConns.
const killSlots = 2 + 2 + 1

func (k *refundKill) start(t *testing.T) {
	t.Helper()
	k.app = startAppFor(t, k.owner, k.url, rescueAfterEnv+"="+testRescueAfter.String(),
		"READ_SLOTS=2", "WRITE_SLOTS=2", "WEBHOOK_SLOTS=1")
	if k.v != nil {
		k.v.base = k.app.Base
	}
}

// book books seat and returns the booking and its payment: a hold, a
// checkout, paid at Sandbox Pay, and the payment's webhook. Sandbox Pay is
// told to drop its own webhook (PUBLIC_URL leads nowhere); the test
// delivers it, as the provider would.
func (k *refundKill) book(t *testing.T, seat string) (bookingID, paymentID string) {
	t.Helper()
	ctx := context.Background()
	hold, err := k.v.send(ctx, http.MethodPost, holdPath(k.show), "refund-kill-"+seat, holdBody([]string{seat}), nil)
	if err != nil || hold.Status != http.StatusCreated {
		t.Fatalf("hold %s: %v %v", seat, hold, err)
	}
	co, err := k.v.send(ctx, http.MethodPost, "/api/v1/holds/"+hold.str("hold_id")+"/checkout", "", nil, nil)
	if err != nil || co.Status != http.StatusCreated {
		t.Fatalf("checkout of hold %s: %v %v", hold.str("hold_id"), co, err)
	}
	checkoutID := path.Base(co.str("checkout_url"))
	if _, err := k.sb.Pay(ctx, checkoutID, sandbox.BehaveDrop); err != nil {
		t.Fatalf("pay checkout %s: %v", checkoutID, err)
	}
	paymentID = pgtest.Scalar[string](t, k.check,
		`SELECT id FROM sandbox_payments WHERE checkout_id = $1 AND status = 'succeeded'`, checkoutID)
	paid, err := k.v.webhook(ctx, webhookBody(paymentID, hold))
	if err != nil || paid.Status != http.StatusOK || paid.str("outcome") != "BOOKED" {
		t.Fatalf("the webhook of payment %s: %v %v, want 200 BOOKED", paymentID, paid, err)
	}
	return paid.str("booking_id"), paymentID
}

// cancel cancels booking, which queues its refund with the refund's job,
// and returns the refund.
func (k *refundKill) cancel(t *testing.T, bookingID string) (refundID string) {
	t.Helper()
	a, err := k.v.send(context.Background(), http.MethodPost, "/api/v1/bookings/"+bookingID+"/cancel", "", nil, nil)
	if err != nil || a.Status != http.StatusOK {
		t.Fatalf("cancel booking %s: %v %v", bookingID, a, err)
	}
	// A refund of nothing is SUCCEEDED at once, without a job worth
	// killing.
	if r, _ := a.JSON["refund"].(map[string]any); r["status"] != "PENDING" || r["amount_minor"] == 0.0 {
		t.Fatalf("cancel booking %s: refund %v, want a PENDING refund of more than nothing", bookingID, a.JSON["refund"])
	}
	return pgtest.Scalar[string](t, k.check, `SELECT id::text FROM refunds WHERE booking_id = $1`, bookingID)
}

// rowLock is a row locked FOR UPDATE by a connection of the test's own,
// until released. The connection has none of the app's session guards, so
// Postgres does not end its transaction while it waits.
type rowLock struct {
	tx  pgx.Tx
	pid uint32
}

func lockRow(t *testing.T, databaseURL, sql string, args ...any) *rowLock {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, checkerURL(databaseURL))
	if err != nil {
		t.Fatalf("connect to lock a row: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatalf("begin to lock a row: %v", err)
	}
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("%s: %v, %d rows, want 1", sql, err, tag.RowsAffected())
	}
	return &rowLock{tx: tx, pid: conn.PgConn().PID()}
}

// release ends the lock's transaction, and the wait of whoever waits for
// it.
func (l *rowLock) release(t *testing.T) {
	t.Helper()
	if err := l.tx.Rollback(context.Background()); err != nil {
		t.Fatalf("release the row lock of session %d: %v", l.pid, err)
	}
}

// waitBlocked waits until a session of the app waits for lock. The app
// gives up on a lock after its lock_timeout (5 s), so the test must act on
// it at once.
func (k *refundKill) waitBlocked(t *testing.T, lock *rowLock) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var query string
		err := k.check.QueryRow(ctx, `
			SELECT query FROM pg_stat_activity
			 WHERE datname = current_database() AND application_name = 'marquee'
			   AND $1::int = ANY (pg_blocking_pids(pid))`, lock.pid).Scan(&query)
		switch {
		case err == nil:
			t.Logf("the app waits for the test's lock in: %.120s", strings.Join(strings.Fields(query), " "))
			return
		case !errors.Is(err, pgx.ErrNoRows):
			t.Fatalf("look for the app waiting for the lock of session %d: %v", lock.pid, err)
		case time.Now().After(deadline):
			t.Fatalf("no session of the app waited for the lock of session %d within 60 s", lock.pid)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// refundJob is River's row of a refund's job.
type refundJob struct {
	ID      int64
	State   string
	Attempt int
	Rescued bool // River's rescuer took it from a dead worker
}

func (k *refundKill) job(t *testing.T, refundID string) refundJob {
	t.Helper()
	var j refundJob
	err := k.check.QueryRow(context.Background(), `
		SELECT id, state, attempt,
		       EXISTS (SELECT FROM unnest(errors) e WHERE e->>'error' LIKE 'Stuck job rescued%')
		  FROM river_job WHERE kind = 'refund' AND args->>'refund_id' = $1`, refundID).
		Scan(&j.ID, &j.State, &j.Attempt, &j.Rescued)
	if err != nil {
		t.Fatalf("the job of refund %s: %v", refundID, err)
	}
	return j
}

// killRunning SIGKILLs the app while River has refund's job running, then
// releases lock, which the app was waiting for, and waits until Postgres
// has ended every session of the killed app: what it had not committed is
// rolled back, and it can commit nothing more.
func (k *refundKill) killRunning(t *testing.T, refundID string, lock *rowLock) {
	t.Helper()
	ctx := context.Background()
	if j := k.job(t, refundID); j.State != "running" || j.Attempt != 1 {
		t.Fatalf("refund %s's job before the kill: %+v, want running, attempt 1", refundID, j)
	}
	pids, err := appBackends(ctx, k.check)
	if err != nil {
		t.Fatalf("the app's sessions: %v", err)
	}
	k.app.kill()
	lock.release(t)
	if err := waitGone(ctx, k.check, pids, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// checkUnpaid checks that the killed app left refund as the job's start
// made it: one attempt, not SUCCEEDED, its job still running.
func (k *refundKill) checkUnpaid(t *testing.T, refundID string) {
	t.Helper()
	var status string
	var attempts int
	if err := k.check.QueryRow(context.Background(), `SELECT status, attempts FROM refunds WHERE id = $1`, refundID).
		Scan(&status, &attempts); err != nil {
		t.Fatalf("refund %s: %v", refundID, err)
	}
	if status != "PENDING" || attempts != 1 {
		t.Fatalf("refund %s after the kill: %s after %d attempts, want PENDING after 1", refundID, status, attempts)
	}
	if j := k.job(t, refundID); j.State != "running" || j.Attempt != 1 {
		t.Fatalf("refund %s's job after the kill: %+v, want still running, attempt 1", refundID, j)
	}
}

// providerRefunds is how many refunds Sandbox Pay has made of payment.
func (k *refundKill) providerRefunds(t *testing.T, paymentID string) int {
	t.Helper()
	return pgtest.Scalar[int](t, k.check, `SELECT count(*) FROM sandbox_refunds WHERE payment_id = $1`, paymentID)
}

// restartAndAwait starts the next app and waits for it to pay refund by
// the job the killed app left running, then checks that it was paid once.
func (k *refundKill) restartAndAwait(t *testing.T, refundID, paymentID string) {
	t.Helper()
	ctx := context.Background()
	began := time.Now()
	k.start(t)
	// River takes the job up once the killed app's leadership has lapsed
	// (15 s after it was last renewed), the new leader's rescuer has run and
	// the retry it schedules is due: seconds, by River's own intervals. The
	// deadline is for a loaded machine.
	deadline := time.Now().Add(3 * time.Minute)
	var status string
	var j refundJob
	for {
		if err := k.check.QueryRow(ctx, `SELECT status FROM refunds WHERE id = $1`, refundID).Scan(&status); err != nil {
			t.Fatalf("refund %s: %v", refundID, err)
		}
		if j = k.job(t, refundID); status == "SUCCEEDED" && j.State == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("refund %s is %s and its job %+v 3 minutes after the app was started again; want SUCCEEDED and completed",
				refundID, status, j)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("refund %s paid %v after the app was started again", refundID, time.Since(began).Round(time.Millisecond))

	if !j.Rescued || j.Attempt != 2 {
		t.Errorf("refund %s's job: %+v, want rescued and completed at attempt 2", refundID, j)
	}
	if attempts := pgtest.Scalar[int](t, k.check, `SELECT attempts FROM refunds WHERE id = $1`, refundID); attempts != 2 {
		t.Errorf("refund %s was attempted %d times, want 2: the killed app's and the rescue's", refundID, attempts)
	}
	// Paid once: one refund of the payment at the provider, this one, of
	// the refund's amount.
	rows, err := k.check.Query(ctx, `
		SELECT s.id, s.amount_minor = r.amount_minor AND s.currency = r.currency
		  FROM sandbox_refunds s JOIN refunds r ON r.payment_id = s.payment_id
		 WHERE r.id = $1`, refundID)
	if err != nil {
		t.Fatalf("the provider's refunds of payment %s: %v", paymentID, err)
	}
	type paid struct {
		ID        string
		SameMoney bool
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[paid])
	if err != nil {
		t.Fatalf("the provider's refunds of payment %s: %v", paymentID, err)
	}
	if len(got) != 1 || got[0].ID != refundID || !got[0].SameMoney {
		t.Errorf("the provider refunded payment %s %+v, want once, by refund %s, of its amount", paymentID, got, refundID)
	}
}
