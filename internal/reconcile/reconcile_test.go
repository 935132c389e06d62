package reconcile_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
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
	w.sandbox = sandbox.New(w.store.Pool(), sandbox.Config{PublicURL: "http://marquee.test", Secret: []byte("0123456789abcdef")})
	w.sandbox.Clock = w.clock.Now
	w.asked = &counting{provider: w.sandbox, calls: map[string][]time.Time{}, clock: w.clock}
	w.show = pgtest.NewShow(t, w.store, pgtest.NewVenue(t, w.store), 10, 10, w.clock.Now().Add(72*time.Hour))
	t.Cleanup(func() { pgtest.CheckInvariants(t, w.store) })
	return w
}

// counting is the sandbox, with every question to it counted by hold.
type counting struct {
	provider reconcile.Provider
	clock    *pgtest.Clock
	mu       sync.Mutex
	calls    map[string][]time.Time
}

func (c *counting) PaymentStatus(ctx context.Context, holdID string) (payment.Report, error) {
	c.mu.Lock()
	c.calls[holdID] = append(c.calls[holdID], c.clock.Now())
	c.mu.Unlock()
	return c.provider.PaymentStatus(ctx, holdID)
}

func (c *counting) times(holdID string) []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls[holdID])
}

func (w *world) worker() *reconcile.Worker {
	return &reconcile.Worker{
		Store: w.store, Provider: w.asked, Receiver: &boxoffice.Receiver{Store: w.store},
		Batch: 3, Delay: delay, MaxWait: maxWait, Settle: settle,
	}
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

func TestDroppedWebhookIsBookedWhileTheHoldIsValid(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Minute)
	w.payDropped(h)
	rw := w.worker()

	w.clock.Advance(delay - time.Microsecond)
	if n := rw.RunOnce(ctx); n != 0 {
		t.Fatalf("asked the provider %d times before the delay", n)
	}
	w.clock.Advance(time.Microsecond)
	if n := rw.RunOnce(ctx); n != 1 {
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
}

// A payment in time whose webhook is lost, first asked about once its
// hold's grace is over, is refunded: the seats were let go.
func TestDroppedWebhookIsRefundedOnceTheGraceIsOver(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("A1", 5*time.Second)
	w.payDropped(h)
	w.clock.Set(h.ExpiresAt.Add(grace)) // the first check comes after the grace
	if n := w.worker().RunOnce(ctx); n != 1 {
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
	// The refund worker pays it back through the sandbox, as for a late webhook.
	rf := &refunds.Worker{Store: w.store, Provider: w.sandbox, Batch: 10, Lease: time.Minute, Log: slog.New(slog.DiscardHandler)}
	if n := rf.RunOnce(ctx); n != 1 || w.count(`SELECT count(*) FROM sandbox_refunds WHERE amount_minor = $1`, h.AmountMinor) != 1 {
		t.Fatalf("refunded %d through the sandbox", n)
	}
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
	rw := w.worker()
	for range int((ttl + settle + time.Minute) / time.Second) {
		w.clock.Advance(time.Second)
		rw.RunOnce(ctx)
	}
	var at []time.Duration
	for _, c := range w.asked.times(h.ID) {
		at = append(at, c.Sub(start))
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, ttl, ttl + time.Minute, ttl + settle}
	if !slices.Equal(at, want) {
		t.Fatalf("asked at %v, want %v", at, want)
	}
	if w.count(`SELECT count(*) FROM payment_checks`) != 0 {
		t.Fatal("the watch did not end after the last check")
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
	rw := w.worker()
	for range int((time.Minute + settle) / time.Second) {
		w.clock.Advance(time.Second)
		rw.RunOnce(ctx)
	}
	if calls := w.asked.times(h.ID); len(calls) != 1 || !calls[0].Equal(h.ExpiresAt.Add(settle)) {
		t.Fatalf("asked at %v, want once, at the deadline plus %v", calls, settle)
	}
	if got := w.scalar(`SELECT reason FROM payments WHERE hold_id = $1 AND payment_id <> 'pay_by_webhook'`, h.ID); got != booking.ReasonAlreadyConfirmed {
		t.Fatalf("the second tab's lost payment is %s, want refunded as already_confirmed", got)
	}
}

// Two instances' workers released together share the checks: each hold is
// asked about once, and each payment processed once.
func TestTwoReconcilersRacingProcessEachPaymentOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var holds []booking.Hold
	for i := range 8 {
		h := w.hold(fmt.Sprintf("B%d", i+1), 5*time.Minute)
		w.payDropped(h)
		holds = append(holds, h)
	}
	w.clock.Advance(delay)
	asked := make([]int, 2)
	pgtest.Release(2, func(i int) { asked[i] = w.worker().RunOnce(ctx) })
	if asked[0]+asked[1] != len(holds) {
		t.Fatalf("the two workers asked %v times, want %d in all", asked, len(holds))
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
					w.worker().RunOnce(ctx)
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

func TestLeasedCheckIsNotTakenTwice(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	h := w.hold("D1", 5*time.Minute)
	w.checkout(h)
	w.clock.Advance(delay)
	first, err := w.store.LeasePaymentChecks(ctx, 10, delay, time.Minute)
	if err != nil || len(first) != 1 || first[0].HoldID != h.ID || first[0].Checks != 1 || !first[0].ExpiresAt.Equal(h.ExpiresAt) {
		t.Fatalf("lease = %+v, %v", first, err)
	}
	if again, _ := w.store.LeasePaymentChecks(ctx, 10, delay, time.Minute); len(again) != 0 {
		t.Fatal("a leased check was leased again before its lease ended")
	}
	w.clock.Advance(time.Minute)
	again, err := w.store.LeasePaymentChecks(ctx, 10, delay, time.Minute)
	if err != nil || len(again) != 1 || again[0].Checks != 2 {
		t.Fatalf("after the lease ran out: %+v, %v; want the check taken again", again, err)
	}

	t.Run("a checkout opened meanwhile re-arms; the old lease changes nothing", func(t *testing.T) {
		w.checkout(h)
		if err := w.store.FinishPaymentCheck(ctx, again[0]); err != nil {
			t.Fatal(err)
		}
		if err := w.store.ReschedulePaymentCheck(ctx, again[0], w.clock.Now().Add(time.Hour), nil); err != nil {
			t.Fatal(err)
		}
		w.clock.Advance(delay)
		rearmed, err := w.store.LeasePaymentChecks(ctx, 10, delay, time.Minute)
		if err != nil || len(rearmed) != 1 || rearmed[0].Checks != 1 {
			t.Fatalf("re-armed lease = %+v, %v", rearmed, err)
		}
	})
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
// not recorded, and the check is asked again rather than finished.
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
			rw := w.worker()
			rw.Provider = malformed{charge: charge}
			w.clock.Advance(delay)
			if n := rw.RunOnce(ctx); n != 1 {
				t.Fatalf("asked %d times, want 1", n)
			}
			if n := w.count(`SELECT count(*) FROM payments`) + w.count(`SELECT count(*) FROM refunds`); n != 0 {
				t.Fatalf("%d payments and refunds recorded from a malformed report", n)
			}
			if got := w.scalar(`SELECT coalesce(last_error, '') FROM payment_checks WHERE hold_id = $1`, h.ID); !strings.Contains(got, "invalid payment") {
				t.Fatalf("check's last error = %q, want the refusal", got)
			}
		})
	}
}
