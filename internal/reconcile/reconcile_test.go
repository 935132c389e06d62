package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/reconcile"
	"github.com/marquee-tickets/marquee/internal/refunds"
)

var ctx = context.Background()

const (
	delay   = 10 * time.Second
	maxWait = time.Minute
	settle  = 2 * time.Minute
	grace   = 2 * time.Minute // the holds' payment grace, as PAYMENT_GRACE's default
)

// world is the store and Sandbox Pay on one fresh database and one stopped
// clock, with a show to hold seats in. Webhooks are never sent: the sandbox's
// delivery worker does not run, as if every webhook were lost.
type world struct {
	t       *testing.T
	store   *postgres.Store
	clock   *pgtest.Clock
	sandbox *sandbox.Sandbox
	asked   *counting
	show    int64
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, store: pgtest.NewStore(t, 8), clock: pgtest.NewClock(time.Now())}
	w.store.Clock = w.clock.Now
	w.store.PaymentCheckDelay = delay
	w.sandbox = sandbox.New(w.store.Pool(), sandbox.Config{PublicURL: "http://marquee.test", Secret: []byte("0123456789abcdef")})
	w.sandbox.Clock = w.clock.Now
	w.asked = &counting{provider: w.sandbox, calls: map[string][]time.Time{}, clock: w.clock}
	w.show = pgtest.NewShow(t, w.store, pgtest.NewVenue(t, w.store), 10, 10, w.clock.Now().Add(72*time.Hour))
	t.Cleanup(func() { pgtest.CheckInvariants(t, w.store) })
	return w
}

// counting is a provider (the sandbox, unless set), with every question to
// it counted by hold.
type counting struct {
	provider reconcile.Provider
	clock    *pgtest.Clock
	mu       sync.Mutex
	calls    map[string][]time.Time
}

func (c *counting) PaymentStatus(ctx context.Context, holdID string) (payment.Report, error) {
	c.mu.Lock()
	c.calls[holdID] = append(c.calls[holdID], c.clock.Now())
	provider := c.provider
	c.mu.Unlock()
	return provider.PaymentStatus(ctx, holdID)
}

func (c *counting) times(holdID string) []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls[holdID])
}

func (c *counting) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, calls := range c.calls {
		n += len(calls)
	}
	return n
}

// answer makes p the provider asked from now on.
func (c *counting) answer(p reconcile.Provider) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.provider = p
}

func (w *world) worker() *reconcile.Worker {
	return &reconcile.Worker{
		Store: w.store, Provider: w.asked, Receiver: &boxoffice.Receiver{Store: w.store},
		Delay: delay, MaxWait: maxWait, Settle: settle,
	}
}

// check works the payment checks due by the clock, one at a time, as
// River's runner would, and returns how many questions they asked.
func (w *world) check() int {
	w.t.Helper()
	before := w.asked.total()
	pgtest.WorkJobs(w.t, w.store, w.worker())
	return w.asked.total() - before
}

// checkJob is a hold's payment check job as River keeps it.
type checkJob struct {
	state     rivertype.JobState
	due       time.Time // scheduled_at
	attempt   int       // failed checks (a snooze gives its attempt back)
	checks    int       // the questions the worker recorded
	lastError string
}

// job reads h's latest payment check job.
func (w *world) job(h booking.Hold) checkJob {
	w.t.Helper()
	var j checkJob
	err := w.store.Pool().QueryRow(ctx, `
		SELECT state::text, scheduled_at, attempt, coalesce((metadata->>$3)::int, 0), coalesce(metadata->>$4, '')
		  FROM river_job WHERE kind = $1 AND args->>'hold_id' = $2 ORDER BY id DESC LIMIT 1`,
		jobs.PaymentCheck{}.Kind(), h.ID, jobs.PaymentCheckChecks, jobs.PaymentCheckLastError).
		Scan(&j.state, &j.due, &j.attempt, &j.checks, &j.lastError)
	if err != nil {
		w.t.Fatalf("payment check of hold %s: %v", h.ID, err)
	}
	return j
}

// hold holds seat for a new user for ttl.
func (w *world) hold(seat string, ttl time.Duration) booking.Hold {
	w.t.Helper()
	res, err := w.store.HoldSeats(ctx, booking.HoldRequest{
		UserID: pgtest.User(w.t, w.store), ShowID: w.show, Seats: []string{seat}, TTL: ttl, Key: "k-" + seat,
	}, 10)
	if err != nil {
		w.t.Fatal(err)
	}
	return res.Hold
}

// checkout opens a checkout of h as the app does: the hold given its
// payment grace and watched first.
func (w *world) checkout(h booking.Hold) string {
	w.t.Helper()
	if _, payable, err := w.store.PrepareCheckout(ctx, h.UserID, h.ID, grace); err != nil || !payable {
		w.t.Fatalf("prepare checkout: payable %v, %v", payable, err)
	}
	co, err := w.sandbox.CreateCheckout(ctx, h, payment.Links{Return: "http://marquee.test/checkout/return?hold_id=" + h.ID})
	if err != nil {
		w.t.Fatal(err)
	}
	return co.URL[strings.LastIndex(co.URL, "/")+1:]
}

// payDropped pays h at the sandbox, whose webhook is lost.
func (w *world) payDropped(h booking.Hold) {
	w.t.Helper()
	if _, err := w.sandbox.Pay(ctx, w.checkout(h), sandbox.BehaveDrop); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) scalar(sql string, args ...any) string {
	w.t.Helper()
	return pgtest.Scalar[string](w.t, w.store.Pool(), sql, args...)
}

func (w *world) count(sql string, args ...any) int {
	w.t.Helper()
	return pgtest.Scalar[int](w.t, w.store.Pool(), sql, args...)
}

// A checkout arms its hold's check in its own transaction, due the delay
// after it; a second checkout of the hold keeps that one check as it is,
// and a hold that can no longer be paid arms none.
func TestCheckoutArmsOneCheckPerHold(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Minute)
	opened := w.clock.Now()
	w.checkout(h)
	rivertest.RequireInserted(ctx, t, riverpgxv5.New(w.store.Pool()), jobs.PaymentCheck{HoldID: h.ID}, &rivertest.RequireInsertedOpts{
		Queue: jobs.QueuePayments, MaxAttempts: jobs.PaymentCheckAttempts, State: rivertype.JobStateScheduled, ScheduledAt: opened.Add(delay),
	})

	w.clock.Advance(5 * time.Second)
	w.checkout(h) // another tab
	if err := w.store.WatchPayments(ctx, h.ID); err != nil {
		t.Fatal(err)
	}
	if n := w.count(`SELECT count(*) FROM river_job WHERE kind = 'payment_check'`); n != 1 {
		t.Fatalf("%d check jobs for one hold, want 1", n)
	}
	if j := w.job(h); !j.due.Equal(opened.Add(delay)) {
		t.Fatalf("the check is due at %v, want the first checkout's %v", j.due, opened.Add(delay))
	}

	lapsed := w.hold("A2", time.Minute)
	w.clock.Set(lapsed.ExpiresAt)
	if _, payable, err := w.store.PrepareCheckout(ctx, lapsed.UserID, lapsed.ID, grace); err != nil || payable {
		t.Fatalf("checkout of a lapsed hold: payable %v, %v", payable, err)
	}
	if n := w.count(`SELECT count(*) FROM river_job WHERE kind = 'payment_check' AND args->>'hold_id' = $1`, lapsed.ID); n != 0 {
		t.Fatal("a hold that cannot be paid is watched")
	}
	if err := w.store.WatchPayments(ctx, "6f1c1d2e-0000-4000-8000-000000000001"); !errors.Is(err, booking.ErrNotFound) {
		t.Fatalf("watch an unknown hold = %v, want ErrNotFound", err)
	}
}

func TestDroppedWebhookIsBookedWhileTheHoldIsValid(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Minute)
	w.payDropped(h)

	w.clock.Advance(delay - time.Microsecond)
	if n := w.check(); n != 0 {
		t.Fatalf("asked the provider %d times before the delay", n)
	}
	w.clock.Advance(time.Microsecond)
	if n := w.check(); n != 1 {
		t.Fatalf("asked %d times at the delay, want 1", n)
	}
	if got := w.scalar(`SELECT state FROM holds WHERE id = $1`, h.ID); got != "CONFIRMED" {
		t.Fatalf("hold is %s after reconciliation, want CONFIRMED", got)
	}
	if got := w.scalar(`SELECT outcome FROM payments WHERE hold_id = $1`, h.ID); got != "BOOKED" {
		t.Fatalf("payment outcome = %s", got)
	}
	wantPaid := w.scalar(`SELECT id FROM sandbox_payments WHERE hold_id = $1`, h.ID)
	if got := w.scalar(`SELECT payment_id FROM bookings WHERE hold_id = $1`, h.ID); got != wantPaid {
		t.Fatalf("booking's evidence = %s, want the sandbox's payment %s", got, wantPaid)
	}
	if w.count(`SELECT count(*) FROM refunds`) != 0 {
		t.Fatal("a reconciled payment of a valid hold was refunded")
	}
	// The check snoozed until the next one, which finds the outcome stored
	// and waits for the last look without asking.
	if j := w.job(h); j.state != rivertype.JobStateScheduled || !j.due.Equal(w.clock.Now().Add(delay)) || j.checks != 1 || j.attempt != 0 {
		t.Fatalf("after the first check: %+v; want it due again %v later", j, delay)
	}
	w.clock.Advance(delay)
	if n := w.check(); n != 0 {
		t.Fatalf("asked %d times about a booked hold before its deadline", n)
	}
	if j := w.job(h); !j.due.Equal(h.ExpiresAt.Add(settle)) {
		t.Fatalf("a booked hold's check is due at %v, want its last look at %v", j.due, h.ExpiresAt.Add(settle))
	}
}

// A payment in time whose webhook is lost, first asked about once its
// hold's grace is over, is refunded: the seats were let go.
func TestDroppedWebhookIsRefundedOnceTheGraceIsOver(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Second)
	w.payDropped(h)
	w.clock.Set(h.ExpiresAt.Add(grace)) // the first check comes after the grace
	if n := w.check(); n != 1 {
		t.Fatalf("asked %d times, want 1", n)
	}
	if got := w.scalar(`SELECT state FROM holds WHERE id = $1`, h.ID); got != "EXPIRED" {
		t.Fatalf("hold is %s, want EXPIRED", got)
	}
	if got := w.scalar(`SELECT outcome || ' ' || reason FROM payments WHERE hold_id = $1`, h.ID); got != "REFUND_REQUIRED hold_expired" {
		t.Fatalf("payment = %s", got)
	}
	if w.count(`SELECT count(*) FROM bookings`) != 0 || w.count(`SELECT count(*) FROM show_seats WHERE status <> 'AVAILABLE'`) != 0 {
		t.Fatal("a payment reconciled after expiry booked or kept seats")
	}
	// That was the last look: the check is over.
	if j := w.job(h); j.state != rivertype.JobStateCompleted {
		t.Fatalf("the check after the last look is %s, want completed", j.state)
	}
	// The refund worker pays it back through the sandbox, as for a late webhook.
	rf := &refunds.Worker{Store: w.store, Provider: w.sandbox, Log: slog.New(slog.DiscardHandler)}
	if n := pgtest.WorkJobs(t, w.store, rf); n != 1 || w.count(`SELECT count(*) FROM sandbox_refunds WHERE amount_minor = $1`, h.AmountMinor) != 1 {
		t.Fatalf("refunded %d through the sandbox", n)
	}
}

// checkUntilDone makes h's check every time it is due, and never a
// microsecond before, until its job completes.
func (w *world) checkUntilDone(h booking.Hold) {
	w.t.Helper()
	for range 20 {
		j := w.job(h)
		if j.state == rivertype.JobStateCompleted {
			return
		}
		w.clock.Set(j.due.Add(-time.Microsecond))
		before := len(w.asked.times(h.ID))
		w.check()
		if len(w.asked.times(h.ID)) != before || w.job(h).state != j.state {
			w.t.Fatalf("the check due at %v was made before", j.due)
		}
		w.clock.Set(j.due)
		w.check()
	}
	w.t.Fatalf("the check of hold %s does not end: %+v", h.ID, w.job(h))
}

// The schedule of one watched hold nobody pays: after the delay, backing off,
// at the deadline, and a last time after it; then the watch ends.
func TestChecksAroundAndAfterExpiryThenStop(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const ttl = 2 * time.Minute
	h := w.hold("A1", ttl)
	start := w.clock.Now()
	w.checkout(h)
	w.checkUntilDone(h)
	var at []time.Duration
	for _, c := range w.asked.times(h.ID) {
		at = append(at, c.Sub(start))
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, ttl, ttl + time.Minute, ttl + settle}
	if !slices.Equal(at, want) {
		t.Fatalf("asked at %v, want %v", at, want)
	}
	if j := w.job(h); j.checks != len(want) || j.lastError != "" {
		t.Fatalf("the finished check recorded %+v", j)
	}
	w.clock.Advance(time.Hour)
	if n := w.check(); n != 0 {
		t.Fatalf("asked %d times after the watch ended", n)
	}
}

// A hold whose webhook booked it is not asked about before its deadline,
// only once after it: for a second tab's payment whose webhook was lost.
func TestSettledHoldIsAskedOnlyAfterTheDeadline(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", time.Minute)
	second := w.checkout(h)
	// The webhook of a payment the sandbox does not know (another tab's at
	// another provider) books the hold; the checkout's own is lost.
	if _, err := w.store.ConfirmPayment(ctx, booking.Payment{ID: "pay_by_webhook", HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.sandbox.Pay(ctx, second, sandbox.BehaveDrop); err != nil {
		t.Fatal(err)
	}
	w.checkUntilDone(h)
	if calls := w.asked.times(h.ID); len(calls) != 1 || !calls[0].Equal(h.ExpiresAt.Add(settle)) {
		t.Fatalf("asked at %v, want once, at the deadline plus %v", calls, settle)
	}
	if got := w.scalar(`SELECT reason FROM payments WHERE hold_id = $1 AND payment_id <> 'pay_by_webhook'`, h.ID); got != booking.ReasonAlreadyConfirmed {
		t.Fatalf("the second tab's lost payment is %s, want refunded as already_confirmed", got)
	}
}

// Two instances' job runners share the checks: each hold is asked about
// once, and each payment processed once.
func TestTwoRunnersShareTheChecks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var holds []booking.Hold
	for i := range 8 {
		h := w.hold(fmt.Sprintf("B%d", i+1), 5*time.Minute)
		w.payDropped(h)
		holds = append(holds, h)
	}
	w.clock.Advance(delay)
	for range 2 {
		workers := river.NewWorkers()
		river.AddWorker(workers, w.worker())
		stop, err := jobs.Start(ctx, w.store.Pool(), jobs.Config{
			Workers: workers, Queues: map[string]int{jobs.QueuePayments: 4}, Log: slog.New(slog.DiscardHandler), Clock: w.clock.Now,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := stop(ctx); err != nil {
				t.Errorf("stop the runner: %v", err)
			}
		})
	}
	for deadline := time.Now().Add(time.Minute); w.count(`SELECT count(*) FROM river_job WHERE kind = 'payment_check' AND state = 'scheduled' AND scheduled_at > $1`, w.clock.Now()) < len(holds); {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d checks made after a minute", w.count(`SELECT count(*) FROM bookings`), len(holds))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, h := range holds {
		if n := len(w.asked.times(h.ID)); n != 1 {
			t.Errorf("hold %s asked about %d times", h.ID, n)
		}
	}
	if w.count(`SELECT count(*) FROM bookings`) != len(holds) || w.count(`SELECT count(*) FROM payments WHERE outcome = 'BOOKED'`) != len(holds) ||
		w.count(`SELECT count(*) FROM refunds`) != 0 {
		t.Fatal("want one booking per paid hold, and no refund")
	}
}

// The webhook arrives at the moment reconciliation processes the same
// payment: one outcome, stored once, whichever commits first.
func TestReconcilerRacingTheWebhook(t *testing.T) {
	t.Parallel()
	for _, ttl := range []time.Duration{5 * time.Minute, 5 * time.Second} {
		t.Run(fmt.Sprintf("hold of %v", ttl), func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			h := w.hold("C1", ttl)
			w.payDropped(h)
			// The long hold is still valid at the first check; the short
			// one's grace is over.
			at := w.clock.Now().Add(delay)
			if ttl < delay {
				at = h.ExpiresAt.Add(grace)
			}
			w.clock.Set(at)
			charge := w.report(h).Charges[0]
			receiver := &boxoffice.Receiver{Store: w.store}
			var outcomes [2]booking.Confirmation
			pgtest.Release(2, func(i int) {
				if i == 0 {
					w.check()
					return
				}
				c, err := receiver.Receive(ctx, charge, true) // what the webhook handler calls
				if err != nil {
					t.Error(err)
				}
				outcomes[1] = c
			})
			stored := w.scalar(`SELECT outcome FROM payments WHERE payment_id = $1`, charge.ID)
			if string(outcomes[1].Outcome) != stored || w.count(`SELECT count(*) FROM payments`) != 1 {
				t.Fatalf("webhook saw %s, stored %s", outcomes[1].Outcome, stored)
			}
			wantBooked := ttl > delay
			if booked := w.count(`SELECT count(*) FROM bookings`); booked != map[bool]int{true: 1, false: 0}[wantBooked] {
				t.Fatalf("%d bookings", booked)
			}
			if refunds := w.count(`SELECT count(*) FROM refunds`); refunds != map[bool]int{true: 0, false: 1}[wantBooked] {
				t.Fatalf("%d refunds", refunds)
			}
		})
	}
}

func (w *world) report(h booking.Hold) payment.Report {
	w.t.Helper()
	r, err := w.sandbox.PaymentStatus(ctx, h.ID)
	if err != nil || len(r.Charges) != 1 {
		w.t.Fatalf("report = %+v, %v", r, err)
	}
	return r
}

// malformed reports a charge for every hold it is asked about that no real
// payment could make.
type malformed struct{ charge booking.Payment }

func (m malformed) PaymentStatus(_ context.Context, holdID string) (payment.Report, error) {
	c := m.charge
	c.HoldRef = holdID
	return payment.Report{Status: payment.StatusSucceeded, Charges: []booking.Payment{c}}, nil
}

// A provider's answer goes through the same checks as its webhook: a
// charge whose id reads as a path, or whose amount is past the bound, is
// not recorded, and the check fails, to be made again, rather than
// finishing.
func TestReconciledChargeThatNoPaymentCouldBeIsRefused(t *testing.T) {
	t.Parallel()
	for name, charge := range map[string]booking.Payment{
		"payment id that is a path": {ID: "../shows/64/cancel", AmountMinor: 1, Currency: "INR"},
		"amount past the bound":     {ID: "pay_huge", AmountMinor: 9e18, Currency: "INR"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			h := w.hold("A1", 5*time.Minute)
			w.checkout(h)
			w.asked.answer(malformed{charge: charge})
			w.clock.Advance(delay)
			if n := w.check(); n != 1 {
				t.Fatalf("asked %d times, want 1", n)
			}
			if n := w.count(`SELECT count(*) FROM payments`) + w.count(`SELECT count(*) FROM refunds`); n != 0 {
				t.Fatalf("%d payments and refunds recorded from a malformed report", n)
			}
			j := w.job(h)
			if !strings.Contains(j.lastError, "invalid payment") || j.state != rivertype.JobStateRetryable || j.attempt != 1 {
				t.Fatalf("check after the refusal: %+v; want a failed attempt, to retry, that says why", j)
			}
		})
	}
}

// failing is a provider that cannot be reached.
type failing struct{}

func (failing) PaymentStatus(context.Context, string) (payment.Report, error) {
	return payment.Report{}, errors.New("provider unavailable")
}

// A check the provider fails is made again on the schedule a successful one
// keeps (not River's longer default waits), and the successful one after it
// goes on where the schedule was.
func TestFailedChecksAreRetriedOnTheSchedule(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Minute)
	w.payDropped(h)
	w.asked.answer(failing{})
	w.clock.Advance(delay)
	for attempt, wait := range []time.Duration{delay, 2 * delay} {
		if n := w.check(); n != 1 {
			t.Fatalf("attempt %d asked %d times", attempt+1, n)
		}
		j := w.job(h)
		if j.state != rivertype.JobStateRetryable || j.attempt != attempt+1 || !j.due.Equal(w.clock.Now().Add(wait)) || j.lastError != "provider unavailable" {
			t.Fatalf("after failure %d: %+v; want a retry %v later", attempt+1, j, wait)
		}
		w.clock.Set(j.due)
	}
	w.asked.answer(w.sandbox)
	if n := w.check(); n != 1 {
		t.Fatalf("the third check asked %d times", n)
	}
	if got := w.scalar(`SELECT state FROM holds WHERE id = $1`, h.ID); got != "CONFIRMED" {
		t.Fatalf("hold is %s once the provider answers, want CONFIRMED", got)
	}
	if j := w.job(h); j.state != rivertype.JobStateScheduled || !j.due.Equal(w.clock.Now().Add(4*delay)) || j.checks != 3 || j.lastError != "" {
		t.Fatalf("after the third check: %+v; want it due %v later, no error", j, 4*delay)
	}
}

// A check that keeps failing is given up after its attempts and left for a
// person: the admin's reconciliation queue lists it once its hold's
// deadline is well past, with how often the provider was asked and why it
// failed, and its retry makes it due again.
func TestACheckThatKeepsFailingIsLeftForAPerson(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Minute)
	w.checkout(h)
	pgtest.Exec(t, w.store.Pool(), `UPDATE river_job SET max_attempts = 2 WHERE kind = 'payment_check'`)
	w.asked.answer(failing{})
	w.clock.Advance(delay)
	w.check()
	w.clock.Set(w.job(h).due)
	w.check()
	if j := w.job(h); j.state != rivertype.JobStateDiscarded || j.checks != 2 {
		t.Fatalf("after its last attempt the check is %+v, want discarded", j)
	}

	q := booking.ReconcileQuery{All: true, CheckGrace: 10 * time.Minute}
	listed := func() []booking.ReconcileItem {
		t.Helper()
		items, err := w.store.Reconciliation(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	if items := listed(); len(items) != 0 {
		t.Fatalf("listed before the deadline and its grace: %+v", items)
	}
	w.clock.Set(h.ExpiresAt.Add(q.CheckGrace + time.Second))
	items := listed()
	if len(items) != 1 || items[0].Kind != booking.ReconcileUnsettledCheck || items[0].HoldID != h.ID || items[0].Checks != 2 ||
		items[0].LastError != "provider unavailable" {
		t.Fatalf("the queue lists %+v; want the check, asked twice, that says why", items)
	}
	if theatre, err := w.store.TheatreOfCheck(ctx, h.ID); err != nil || theatre == 0 {
		t.Fatalf("theatre of the check = %d, %v", theatre, err)
	}

	admin := audit.Entry{ActorID: pgtest.User(t, w.store), Action: "payment_check.retry", Object: "check " + h.ID}
	if err := w.store.RetryPaymentCheck(ctx, h.ID, admin); err != nil {
		t.Fatal(err)
	}
	if j := w.job(h); j.state != rivertype.JobStateAvailable {
		t.Fatalf("the retried check is %s, want available", j.state)
	}
	w.asked.answer(w.sandbox) // nothing was paid
	if n := w.check(); n != 1 {
		t.Fatalf("the retried check asked %d times", n)
	}
	if j := w.job(h); j.state != rivertype.JobStateCompleted {
		t.Fatalf("the retried check, past the last look, is %s; want completed", j.state)
	}
	if items := listed(); len(items) != 0 {
		t.Fatalf("a finished check is still listed: %+v", items)
	}
	if err := w.store.RetryPaymentCheck(ctx, h.ID, admin); !errors.Is(err, booking.ErrNothingToRetry) {
		t.Fatalf("retry a finished check = %v, want ErrNothingToRetry", err)
	}
	if _, err := w.store.TheatreOfCheck(ctx, h.ID); !errors.Is(err, booking.ErrNotFound) {
		t.Fatalf("theatre of a finished check = %v, want ErrNotFound", err)
	}
}

// A check of a hold that does not exist (its job inserted by hand) is
// cancelled: there is no payment to wait for.
func TestCheckOfNoHoldIsCancelled(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ghost := booking.Hold{ID: "6f1c1d2e-0000-4000-8000-000000000001"}
	inserter, err := river.NewClient(riverpgxv5.New(w.store.Pool()), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inserter.Insert(ctx, jobs.PaymentCheck{HoldID: ghost.ID}, nil); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Minute) // past the insert, by the database's clock
	if n := w.check(); n != 0 {
		t.Fatalf("asked %d times about no hold", n)
	}
	if j := w.job(ghost); j.state != rivertype.JobStateCancelled {
		t.Fatalf("the check of no hold is %s, want cancelled", j.state)
	}
}
