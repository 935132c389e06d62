package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

var (
	ctx    = context.Background()
	secret = []byte("whsec_test")
)

// merchant is the webhook receiver: it checks every signature and records
// what it was sent, answering with the statuses it is told to, in turn.
type merchant struct {
	t        *testing.T
	srv      *httptest.Server
	mu       sync.Mutex
	answers  []int // answered in turn; 200 once exhausted
	received []received
}

type received struct {
	Status int
	Body   map[string]any
}

func newMerchant(t *testing.T, answers ...int) *merchant {
	m := &merchant{t: t, answers: answers}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *merchant) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/payments/webhook" || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		m.t.Errorf("webhook sent as %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
	}
	if err := payment.Verify(secret, r.Header.Get(payment.SignatureHeader), body, time.Now(), payment.DefaultTolerance); err != nil {
		m.t.Errorf("webhook signature: %v", err)
	}
	m.mu.Lock()
	status := http.StatusOK
	if len(m.answers) > 0 {
		status, m.answers = m.answers[0], m.answers[1:]
	}
	var b map[string]any
	if err := json.Unmarshal(body, &b); err != nil {
		m.t.Errorf("webhook body %s: %v", body, err)
	}
	m.received = append(m.received, received{status, b})
	m.mu.Unlock()
	w.WriteHeader(status)
}

// delivered returns the bodies answered 2xx, in the order received.
func (m *merchant) delivered() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []map[string]any
	for _, r := range m.received {
		if r.Status < 300 {
			out = append(out, r.Body)
		}
	}
	return out
}

func (m *merchant) attempts() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.received)
}

// sandboxEnv is a sandbox on a fresh database, with a stopped clock, whose
// webhooks go to a merchant.
type sandboxEnv struct {
	pool    *pgxpool.Pool
	store   *postgres.Store // the database, on the sandbox's clock: when its jobs are due
	clock   *pgtest.Clock
	sandbox *sandbox.Sandbox
	worker  *sandbox.WebhookWorker
	hold    booking.Hold
}

func newSandboxEnv(t *testing.T, webhookURL string) *sandboxEnv {
	t.Helper()
	store := pgtest.NewStore(t, 4)
	e := &sandboxEnv{pool: store.Pool(), store: store, clock: pgtest.NewClock(time.Now())}
	e.sandbox = sandbox.New(e.pool, sandbox.Config{
		PublicURL: "http://marquee.test", WebhookURL: webhookURL, Secret: secret,
	})
	e.sandbox.Clock = e.clock.Now
	store.Clock = e.clock.Now
	e.worker = &sandbox.WebhookWorker{Sandbox: e.sandbox}
	e.hold = booking.Hold{
		ID: "6f1c1d2e-0000-4000-8000-000000000001", UserID: "6f1c1d2e-0000-4000-8000-0000000000aa",
		AmountMinor: 50000, Currency: "INR", ExpiresAt: e.clock.Now().Add(5 * time.Minute),
	}
	return e
}

// checkout opens a checkout of the env's hold (or of the hold of that
// number, see otherHold) and returns its id.
func (e *sandboxEnv) checkout(t *testing.T, hold ...booking.Hold) string {
	t.Helper()
	h := e.hold
	if len(hold) > 0 {
		h = hold[0]
	}
	co, err := e.sandbox.CreateCheckout(ctx, h, payment.Links{
		Return: "http://marquee.test/checkout/return?hold_id=" + h.ID, Back: "http://marquee.test/shows/7",
	})
	if err != nil {
		t.Fatal(err)
	}
	id, ok := strings.CutPrefix(co.URL, "http://marquee.test/sandbox/checkout/")
	if !ok {
		t.Fatalf("checkout url %q is not under the sandbox prefix", co.URL)
	}
	return id
}

// otherHold is the env's hold under another id, n from 2 to 9.
func (e *sandboxEnv) otherHold(n int) booking.Hold {
	h := e.hold
	h.ID = fmt.Sprintf("6f1c1d2e-0000-4000-8000-00000000000%d", n)
	return h
}

// deliver works the webhook jobs due by the env's clock, as River would,
// and returns how many completed.
func (e *sandboxEnv) deliver(t *testing.T) int {
	t.Helper()
	return pgtest.WorkJobs(t, e.store, river.Worker[jobs.WebhookDelivery](e.worker))
}

func (e *sandboxEnv) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	return pgtest.Scalar[int](t, e.pool, sql, args...)
}

func (e *sandboxEnv) status(t *testing.T) payment.Status {
	t.Helper()
	return e.report(t).Status
}

func (e *sandboxEnv) report(t *testing.T) payment.Report {
	t.Helper()
	r, err := e.sandbox.PaymentStatus(ctx, e.hold.ID)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSandboxCheckout(t *testing.T) {
	t.Parallel()
	e := newSandboxEnv(t, "http://127.0.0.1:1/payments/webhook")

	t.Run("no checkout: status none", func(t *testing.T) {
		if st := e.status(t); st != payment.StatusNone {
			t.Fatalf("status = %s, want none", st)
		}
	})

	id := e.checkout(t)
	t.Run("a checkout remembers its hold, amount and merchant", func(t *testing.T) {
		c, err := e.sandbox.Checkout(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if c.HoldID != e.hold.ID || c.Customer != e.hold.UserID || c.AmountMinor != 50000 || c.Currency != "INR" ||
			c.Merchant != "Marquee" || c.Status != sandbox.CheckoutOpen || c.Behaviour != "" ||
			c.ReturnURL != "http://marquee.test/checkout/return?hold_id="+e.hold.ID || c.BackURL != "http://marquee.test/shows/7" ||
			c.ExpiresAt == nil || !c.ExpiresAt.Equal(e.hold.ExpiresAt) {
			t.Fatalf("checkout = %+v", c)
		}
		if st := e.status(t); st != payment.StatusPending {
			t.Fatalf("status = %s, want pending", st)
		}
	})

	t.Run("a checkout asked for again while one is open is that one", func(t *testing.T) {
		co, err := e.sandbox.CreateCheckout(ctx, e.hold, payment.Links{Return: "http://marquee.test/checkout/return"})
		if err != nil || !co.Reused || co.URL != e.sandbox.CheckoutURL(id) {
			t.Fatalf("second CreateCheckout = %+v, %v; want checkout %s again", co, err, id)
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_checkouts`); n != 1 {
			t.Fatalf("%d checkouts of one hold, want 1", n)
		}
	})

	t.Run("unknown checkout is not found", func(t *testing.T) {
		for _, bad := range []string{"cs_00000000000000000000000000000000", "", "garbage'--"} {
			if _, err := e.sandbox.Checkout(ctx, bad); !errors.Is(err, booking.ErrNotFound) {
				t.Errorf("Checkout(%q) = %v, want ErrNotFound", bad, err)
			}
			if _, err := e.sandbox.Pay(ctx, bad, sandbox.BehaveNormal); !errors.Is(err, booking.ErrNotFound) {
				t.Errorf("Pay(%q) = %v, want ErrNotFound", bad, err)
			}
		}
	})

	t.Run("unknown behaviour is refused and charges nothing", func(t *testing.T) {
		if _, err := e.sandbox.Pay(ctx, id, "explode"); !errors.Is(err, sandbox.ErrUnknownBehaviour) {
			t.Fatalf("Pay = %v, want ErrUnknownBehaviour", err)
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_payments`); n != 0 {
			t.Fatalf("%d payments recorded", n)
		}
	})

	t.Run("decline charges nothing and queues one failed webhook", func(t *testing.T) {
		c, err := e.sandbox.Decline(ctx, id)
		if err != nil || c.Status != sandbox.CheckoutDeclined {
			t.Fatalf("Decline = %+v, %v", c, err)
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_payments WHERE status = 'succeeded'`); n != 0 {
			t.Fatalf("%d succeeded payments after a decline", n)
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_webhooks WHERE body::jsonb->>'status' = 'failed'`); n != 1 {
			t.Fatalf("%d failed webhooks queued, want 1", n)
		}
		if st := e.status(t); st != payment.StatusDeclined {
			t.Fatalf("status = %s, want declined", st)
		}
	})

	t.Run("a declined checkout cannot be paid", func(t *testing.T) {
		c, err := e.sandbox.Pay(ctx, id, sandbox.BehaveNormal)
		if err != nil || c.Status != sandbox.CheckoutDeclined {
			t.Fatalf("Pay after decline = %+v, %v", c, err)
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_payments WHERE status = 'succeeded'`); n != 0 {
			t.Fatal("a declined checkout was charged")
		}
	})

	retry := e.checkout(t)
	t.Run("a new checkout after a decline is pending", func(t *testing.T) {
		if st := e.status(t); st != payment.StatusPending {
			t.Fatalf("status = %s, want pending", st)
		}
	})

	t.Run("pay records one payment and queues one signed-later webhook in the same transaction", func(t *testing.T) {
		c, err := e.sandbox.Pay(ctx, retry, sandbox.BehaveNormal)
		if err != nil || c.Status != sandbox.CheckoutPaid || c.Behaviour != sandbox.BehaveNormal || c.CompletedAt == nil {
			t.Fatalf("Pay = %+v, %v", c, err)
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_payments WHERE checkout_id = $1 AND status = 'succeeded'`, retry); n != 1 {
			t.Fatalf("%d payments, want 1", n)
		}
		var body map[string]any
		raw := pgtest.Scalar[string](t, e.pool, `
			SELECT w.body FROM sandbox_webhooks w JOIN sandbox_payments p ON p.id = w.payment_id WHERE p.checkout_id = $1`, retry)
		if err := json.Unmarshal([]byte(raw), &body); err != nil {
			t.Fatal(err)
		}
		if body["hold_id"] != e.hold.ID || body["amount_minor"] != 50000.0 || body["currency"] != "INR" ||
			body["status"] != "succeeded" || !strings.HasPrefix(body["payment_id"].(string), "pay_") || len(body) != 6 {
			t.Fatalf("webhook body = %s", raw)
		}
		captured, err := time.Parse(time.RFC3339Nano, body["captured_at"].(string))
		if err != nil || !captured.Equal(*c.CompletedAt) || captured.Sub(e.clock.Now()).Abs() > time.Microsecond {
			t.Fatalf("webhook captured_at = %v (%v), want the payment's time %v", body["captured_at"], err, e.clock.Now())
		}
		r := e.report(t)
		if len(r.Charges) == 1 && r.Charges[0].CapturedAt.Equal(captured) {
			r.Charges[0].CapturedAt = captured // the same instant; only the time zone may differ
		}
		if r.Status != payment.StatusSucceeded || len(r.Charges) != 1 || r.Charges[0] != (booking.Payment{
			ID: body["payment_id"].(string), HoldRef: e.hold.ID, AmountMinor: 50000, Currency: "INR", CapturedAt: captured,
		}) {
			t.Fatalf("report = %+v, want succeeded with the charge its webhook carries", r)
		}
	})

	t.Run("a second Pay (double submit) charges nothing more and says the hold is paid", func(t *testing.T) {
		c, err := e.sandbox.Pay(ctx, retry, sandbox.BehaveDuplicate)
		if !errors.Is(err, sandbox.ErrHoldPaid) || c.Status != sandbox.CheckoutPaid || c.Behaviour != sandbox.BehaveNormal {
			t.Fatalf("second Pay = %+v, %v; want ErrHoldPaid", c, err)
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_payments WHERE checkout_id = $1`, retry); n != 1 {
			t.Fatalf("%d payments after a double submit, want 1", n)
		}
		if _, err := e.sandbox.Decline(ctx, retry); !errors.Is(err, sandbox.ErrHoldPaid) {
			t.Fatalf("Decline of a paid checkout = %v, want ErrHoldPaid", err)
		}
		if c, _ := e.sandbox.Checkout(ctx, retry); c.Status != sandbox.CheckoutPaid {
			t.Fatalf("a paid checkout became %s", c.Status)
		}
	})

	t.Run("a paid hold gets no new checkout", func(t *testing.T) {
		co, err := e.sandbox.CreateCheckout(ctx, e.hold, payment.Links{Return: "http://marquee.test/checkout/return"})
		if !errors.Is(err, payment.ErrAlreadyPaid) {
			t.Fatalf("CreateCheckout of a paid hold = %+v, %v; want ErrAlreadyPaid", co, err)
		}
		if st := e.status(t); st != payment.StatusSucceeded {
			t.Fatalf("status = %s, want succeeded", st)
		}
	})

	t.Run("an older checkout of a paid hold takes no money", func(t *testing.T) {
		c, err := e.sandbox.Pay(ctx, id, sandbox.BehaveNormal)
		if !errors.Is(err, sandbox.ErrHoldPaid) || !c.HoldPaid {
			t.Fatalf("Pay of the declined checkout of a paid hold = %+v, %v; want ErrHoldPaid", c, err)
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_payments WHERE status = 'succeeded'`); n != 1 {
			t.Fatalf("%d succeeded payments, want 1", n)
		}
	})
}

// However many ask at once, a hold has one open checkout: one call opens
// it and every other gets it back.
func TestSandboxParallelCheckoutsOpenOne(t *testing.T) {
	t.Parallel()
	e := newSandboxEnv(t, "http://127.0.0.1:1/payments/webhook")
	const n = 16
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		got   [n]payment.Checkout
		errs  [n]error
	)
	for i := range n {
		wg.Go(func() {
			<-start
			got[i], errs[i] = e.sandbox.CreateCheckout(ctx, e.hold, payment.Links{Return: "http://marquee.test/checkout/return"})
		})
	}
	close(start)
	wg.Wait()
	opened := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("CreateCheckout %d: %v", i, errs[i])
		}
		if got[i].URL != got[0].URL {
			t.Fatalf("checkouts %s and %s of one hold", got[0].URL, got[i].URL)
		}
		if !got[i].Reused {
			opened++
		}
	}
	if opened != 1 {
		t.Fatalf("%d calls opened a checkout, want 1", opened)
	}
	if c := e.count(t, `SELECT count(*) FROM sandbox_checkouts`); c != 1 {
		t.Fatalf("%d checkouts stored, want 1", c)
	}
}

func TestSandboxParallelPayChargesOnce(t *testing.T) {
	t.Parallel()
	e := newSandboxEnv(t, "http://127.0.0.1:1/payments/webhook")
	id := e.checkout(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = e.sandbox.Pay(ctx, id, sandbox.BehaveNormal)
			} else {
				_, err = e.sandbox.Decline(ctx, id)
			}
			// Once one Pay has charged, the others are told the hold is paid.
			if err != nil && !errors.Is(err, sandbox.ErrHoldPaid) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := e.count(t, `SELECT count(*) FROM sandbox_payments`); n != 1 {
		t.Fatalf("%d payment attempts from 8 parallel submits, want 1", n)
	}
	if n := e.count(t, `SELECT count(*) FROM sandbox_webhooks`); n != 1 {
		t.Fatalf("%d webhooks, want 1", n)
	}
}

// A checkout takes money only while its hold is valid: up to the instant
// before the deadline, never at it or after.
func TestSandboxRefusesPaymentAfterTheHoldExpired(t *testing.T) {
	t.Parallel()
	e := newSandboxEnv(t, "http://127.0.0.1:1/payments/webhook")
	late, onTime, declined := e.checkout(t), e.checkout(t, e.otherHold(2)), e.checkout(t, e.otherHold(3))

	e.clock.Set(e.hold.ExpiresAt.Add(-time.Microsecond))
	if c, err := e.sandbox.Pay(ctx, onTime, sandbox.BehaveNormal); err != nil || c.Status != sandbox.CheckoutPaid {
		t.Fatalf("Pay 1 µs before the deadline = %+v, %v", c, err)
	}

	e.clock.Set(e.hold.ExpiresAt)
	for _, b := range []sandbox.Behaviour{sandbox.BehaveNormal, sandbox.BehaveDrop, sandbox.BehaveTwoPayments} {
		if _, err := e.sandbox.Pay(ctx, late, b); !errors.Is(err, sandbox.ErrCheckoutExpired) {
			t.Fatalf("Pay (%s) at the deadline = %v, want ErrCheckoutExpired", b, err)
		}
	}
	if _, err := e.sandbox.Decline(ctx, declined); !errors.Is(err, sandbox.ErrCheckoutExpired) {
		t.Fatalf("Decline at the deadline = %v, want ErrCheckoutExpired", err)
	}
	for _, id := range []string{late, declined} {
		c, err := e.sandbox.Checkout(ctx, id)
		if err != nil || c.Status != sandbox.CheckoutOpen || !c.Expired(e.clock.Now()) {
			t.Fatalf("refused checkout = %+v, %v; want open and expired", c, err)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM sandbox_payments`); n != 1 {
		t.Fatalf("%d payments recorded, want only the one in time", n)
	}
	if n := e.count(t, `SELECT count(*) FROM sandbox_webhooks`); n != 1 {
		t.Fatalf("%d webhooks queued, want only the one in time", n)
	}
	if _, err := e.sandbox.CreateCheckout(ctx, e.otherHold(4), payment.Links{Return: "http://marquee.test/checkout/return"}); !errors.Is(err, payment.ErrDeadlinePassed) {
		t.Fatalf("CreateCheckout at the deadline = %v, want ErrDeadlinePassed", err)
	}
}

// The provider's report lists every charge of a hold, for reconciliation:
// two payments, with what their webhooks would carry and when they were
// captured.
func TestSandboxReportListsEveryCharge(t *testing.T) {
	t.Parallel()
	e := newSandboxEnv(t, "http://127.0.0.1:1/payments/webhook")
	paid := e.pay(t, sandbox.BehaveTwoPayments)
	r := e.report(t)
	ids := pgtest.Scalar[[]string](t, e.pool, `SELECT array_agg(id ORDER BY created_at, id) FROM sandbox_payments`)
	if r.Status != payment.StatusSucceeded || len(r.Charges) != 2 || len(ids) != 2 {
		t.Fatalf("report = %+v, payments %v", r, ids)
	}
	for i, c := range r.Charges {
		if c != (booking.Payment{ID: ids[i], HoldRef: e.hold.ID, AmountMinor: 50000, Currency: "INR", CapturedAt: *paid.CompletedAt}) {
			t.Errorf("charge %d = %+v, want payment %s captured at %v", i, c, ids[i], *paid.CompletedAt)
		}
	}
}

// pay opens and pays a checkout with behaviour b.
func (e *sandboxEnv) pay(t *testing.T, b sandbox.Behaviour) sandbox.Checkout {
	t.Helper()
	c, err := e.sandbox.Pay(ctx, e.checkout(t), b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWebhookDelivery(t *testing.T) {
	t.Parallel()

	t.Run("normal: one job with the webhook, delivered once, signed", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveNormal)
		// The job was inserted in the payment's transaction, for the
		// webhook's row, in the payments queue.
		id := pgtest.Scalar[int64](t, e.pool, `SELECT id FROM sandbox_webhooks`)
		rivertest.RequireInserted(ctx, t, riverpgxv5.New(e.pool), jobs.WebhookDelivery{DeliveryID: id},
			&rivertest.RequireInsertedOpts{Queue: jobs.QueuePayments, MaxAttempts: jobs.WebhookAttempts})
		if n := e.deliver(t); n != 1 {
			t.Fatalf("delivered %d, want 1", n)
		}
		// The merchant checks every signature against its own clock.
		if got := m.delivered(); len(got) != 1 || got[0]["status"] != "succeeded" {
			t.Fatalf("merchant got %v", got)
		}
		if n := e.deliver(t); n != 0 || m.attempts() != 1 {
			t.Fatal("a delivered webhook was sent again")
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_webhooks WHERE status = 'DELIVERED' AND last_status = 200 AND attempts = 1`); n != 1 {
			t.Fatal("delivery not recorded")
		}
	})

	t.Run("delay: nothing before 5 s, delivered at 5 s", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveDelay)
		e.clock.Advance(sandbox.WebhookDelay - time.Millisecond)
		if n := e.deliver(t); n != 0 || m.attempts() != 0 {
			t.Fatal("a delayed webhook went out early")
		}
		e.clock.Advance(time.Millisecond)
		if n := e.deliver(t); n != 1 || len(m.delivered()) != 1 {
			t.Fatalf("delivered %d at the delay, want 1", n)
		}
	})

	t.Run("duplicate: the same payment twice", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveDuplicate)
		if n := e.deliver(t); n != 2 {
			t.Fatalf("delivered %d, want 2", n)
		}
		got := m.delivered()
		if len(got) != 2 || got[0]["payment_id"] != got[1]["payment_id"] {
			t.Fatalf("merchant got %v, want one payment twice", got)
		}
	})

	t.Run("drop: money taken, nothing sent", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveDrop)
		e.clock.Advance(time.Hour)
		if n := e.deliver(t); n != 0 || m.attempts() != 0 {
			t.Fatal("a dropped webhook was sent")
		}
		if e.count(t, `SELECT count(*) FROM sandbox_payments WHERE status = 'succeeded'`) != 1 || e.status(t) != payment.StatusSucceeded {
			t.Fatal("a dropped webhook's payment was not taken")
		}
	})

	t.Run("reorder: succeeded, then a stale failed of the same payment", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveReorder)
		if n := e.deliver(t); n != 1 {
			t.Fatalf("delivered %d at once, want only the succeeded one", n)
		}
		e.clock.Advance(time.Minute)
		if n := e.deliver(t); n != 1 {
			t.Fatalf("delivered %d after the gap, want the failed one", n)
		}
		got := m.delivered()
		if len(got) != 2 || got[0]["status"] != "succeeded" || got[1]["status"] != "failed" || got[0]["payment_id"] != got[1]["payment_id"] {
			t.Fatalf("merchant got %v, want succeeded then failed of one payment", got)
		}
	})

	t.Run("two payments: two payment ids, both succeeded", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveTwoPayments)
		if n := e.deliver(t); n != 2 {
			t.Fatalf("delivered %d, want 2", n)
		}
		got := m.delivered()
		if len(got) != 2 || got[0]["payment_id"] == got[1]["payment_id"] || got[0]["status"] != "succeeded" || got[1]["status"] != "succeeded" {
			t.Fatalf("merchant got %v, want two distinct succeeded payments", got)
		}
	})

	t.Run("retries a 5xx with backoff, then delivers", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t, 500, 503)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveNormal)
		if n := e.deliver(t); n != 0 || m.attempts() != 1 {
			t.Fatalf("first attempt: delivered %d in %d attempts", n, m.attempts())
		}
		if got := e.count(t, `SELECT last_status FROM sandbox_webhooks WHERE status = 'PENDING'`); got != 500 {
			t.Fatalf("last_status = %d, want 500", got)
		}
		// The dashboard shows when River tries again.
		list, err := e.sandbox.Deliveries(ctx, "", 10)
		if err != nil || len(list) != 1 || list[0].NextAttemptAt == nil ||
			!list[0].NextAttemptAt.Equal(e.clock.Now().Add(sandbox.WebhookBackoff(1))) || !strings.Contains(list[0].LastError, "answered 500") {
			t.Fatalf("deliveries = %+v, %v; want the next attempt after the backoff, and the answer", list, err)
		}
		e.clock.Advance(sandbox.WebhookBackoff(1) - time.Millisecond)
		if e.deliver(t); m.attempts() != 1 {
			t.Fatal("retried before the backoff passed")
		}
		e.clock.Advance(time.Millisecond)
		e.deliver(t) // 503
		e.clock.Advance(sandbox.WebhookBackoff(2))
		if n := e.deliver(t); n != 1 || m.attempts() != 3 || len(m.delivered()) != 1 {
			t.Fatalf("third attempt delivered %d (%d attempts)", n, m.attempts())
		}
		if n := e.count(t, `SELECT attempts FROM sandbox_webhooks WHERE status = 'DELIVERED' AND last_error IS NULL`); n != 3 {
			t.Fatalf("%d attempts recorded, want 3", n)
		}
	})

	t.Run("retries when the connection is refused", func(t *testing.T) {
		t.Parallel()
		// A port that was just free: nobody listens there.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		e := newSandboxEnv(t, "http://"+addr+"/payments/webhook")
		e.pay(t, sandbox.BehaveNormal)
		if n := e.deliver(t); n != 0 {
			t.Fatal("delivered to nobody")
		}
		var lastError string
		if err := e.pool.QueryRow(ctx, `SELECT last_error FROM sandbox_webhooks WHERE last_status IS NULL AND status = 'PENDING'`).Scan(&lastError); err != nil || !strings.Contains(lastError, "refused") {
			t.Fatalf("last_error = %q, %v", lastError, err)
		}
		// The app comes up at that address.
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("port %s taken meanwhile: %v", addr, err)
		}
		m := newMerchant(t)
		m.srv.Close()
		m.srv = httptest.NewUnstartedServer(http.HandlerFunc(m.serve))
		m.srv.Listener = ln
		m.srv.Start()
		e.clock.Advance(sandbox.WebhookBackoff(1))
		if n := e.deliver(t); n != 1 || len(m.delivered()) != 1 {
			t.Fatalf("after the app came up: delivered %d", n)
		}
	})

	t.Run("gives up after the last attempt", func(t *testing.T) {
		t.Parallel()
		answers := make([]int, jobs.WebhookAttempts+1)
		for i := range answers {
			answers[i] = http.StatusInternalServerError
		}
		m := newMerchant(t, answers...)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveNormal)
		for range jobs.WebhookAttempts + 1 {
			e.deliver(t)
			e.clock.Advance(time.Hour)
		}
		if m.attempts() != jobs.WebhookAttempts {
			t.Fatalf("%d attempts, want %d", m.attempts(), jobs.WebhookAttempts)
		}
		if e.count(t, `SELECT count(*) FROM sandbox_webhooks WHERE status = 'GAVE_UP' AND last_status = 500`) != 1 {
			t.Fatal("delivery not marked given up")
		}
		if st := pgtest.Scalar[string](t, e.pool, `SELECT state::text FROM river_job WHERE kind = $1`, jobs.WebhookDelivery{}.Kind()); st != string(rivertype.JobStateDiscarded) {
			t.Fatalf("job %s, want discarded", st)
		}
		list, err := e.sandbox.Deliveries(ctx, "", 10)
		if err != nil || len(list) != 1 || list[0].GaveUpAt == nil || list[0].NextAttemptAt != nil {
			t.Fatalf("deliveries = %+v, %v; want when it was given up", list, err)
		}
	})

	t.Run("a delivered webhook is not sent again by its job run again", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveNormal)
		if n := e.deliver(t); n != 1 {
			t.Fatalf("delivered %d, want 1", n)
		}
		// The worker was killed after the merchant answered, before River
		// recorded the job done: River rescues it and runs it again.
		id := pgtest.Scalar[int64](t, e.pool, `SELECT id FROM sandbox_webhooks`)
		job := &river.Job[jobs.WebhookDelivery]{
			JobRow: &rivertype.JobRow{ID: 1, Attempt: 2, MaxAttempts: jobs.WebhookAttempts},
			Args:   jobs.WebhookDelivery{DeliveryID: id},
		}
		if err := e.worker.Work(ctx, job); err != nil {
			t.Fatalf("the job run again: %v", err)
		}
		if m.attempts() != 1 || e.count(t, `SELECT attempts FROM sandbox_webhooks WHERE status = 'DELIVERED'`) != 1 {
			t.Fatalf("the merchant was sent %d webhooks, want 1", m.attempts())
		}
		// A job of no delivery is cancelled: no retry would find one.
		job.Args.DeliveryID = id + 100
		var cancel *rivertype.JobCancelError
		if err := e.worker.Work(ctx, job); !errors.As(err, &cancel) {
			t.Fatalf("the job of no delivery = %v, want it cancelled", err)
		}
	})

	t.Run("webhooks pending from before their jobs get them at start-up", func(t *testing.T) {
		t.Parallel()
		m := newMerchant(t)
		e := newSandboxEnv(t, m.srv.URL+"/payments/webhook")
		e.pay(t, sandbox.BehaveDuplicate)
		// As a build from before left them: rows, no jobs.
		pgtest.Exec(t, e.pool, `DELETE FROM river_job`)
		if n, err := e.sandbox.Resume(ctx); err != nil || n != 2 {
			t.Fatalf("Resume = %d, %v; want 2 jobs queued", n, err)
		}
		if n, err := e.sandbox.Resume(ctx); err != nil || n != 0 {
			t.Fatalf("Resume again = %d, %v; want none", n, err)
		}
		if n := e.deliver(t); n != 2 || len(m.delivered()) != 2 {
			t.Fatalf("delivered %d, want 2", n)
		}
		// Delivered: nothing pending, nothing to queue however long the
		// jobs are kept.
		pgtest.Exec(t, e.pool, `DELETE FROM river_job`)
		if n, err := e.sandbox.Resume(ctx); err != nil || n != 0 {
			t.Fatalf("Resume after delivery = %d, %v; want none", n, err)
		}
	})
}

func TestSandboxRefunds(t *testing.T) {
	t.Parallel()
	e := newSandboxEnv(t, "http://127.0.0.1:1/payments/webhook")
	c := e.pay(t, sandbox.BehaveNormal)
	paymentID := pgtest.Scalar[string](t, e.pool, `SELECT id FROM sandbox_payments WHERE checkout_id = $1`, c.ID)
	refund := func(id string, amount int64) error {
		return e.sandbox.Refund(ctx, booking.Refund{ID: id, PaymentID: paymentID, AmountMinor: amount, Currency: "INR"})
	}

	t.Run("a refund is recorded once, however often it is asked for", func(t *testing.T) {
		for range 3 {
			if err := refund("r1", 20000); err != nil {
				t.Fatal(err)
			}
		}
		if n := e.count(t, `SELECT count(*) FROM sandbox_refunds`); n != 1 {
			t.Fatalf("%d refunds recorded, want 1", n)
		}
	})
	t.Run("refunds never exceed the payment", func(t *testing.T) {
		if err := refund("r2", 30001); !errors.Is(err, sandbox.ErrRefundTooLarge) {
			t.Fatalf("refund over the rest = %v, want ErrRefundTooLarge", err)
		}
		if err := refund("r2", 30000); err != nil {
			t.Fatal(err)
		}
		if err := e.sandbox.Refund(ctx, booking.Refund{ID: "r3", PaymentID: paymentID, AmountMinor: 1, Currency: "USD"}); !errors.Is(err, sandbox.ErrRefundTooLarge) {
			t.Fatalf("refund in another currency = %v", err)
		}
	})
	t.Run("a payment the sandbox never took cannot be refunded", func(t *testing.T) {
		err := e.sandbox.Refund(ctx, booking.Refund{ID: "r4", PaymentID: "pay_nope", AmountMinor: 1, Currency: "INR"})
		if !errors.Is(err, sandbox.ErrUnknownPayment) {
			t.Fatalf("refund of an unknown payment = %v", err)
		}
		declined := e.checkout(t, e.otherHold(2))
		if _, err := e.sandbox.Decline(ctx, declined); err != nil {
			t.Fatal(err)
		}
		failed := pgtest.Scalar[string](t, e.pool, `SELECT id FROM sandbox_payments WHERE checkout_id = $1`, declined)
		if err := e.sandbox.Refund(ctx, booking.Refund{ID: "r5", PaymentID: failed, AmountMinor: 1, Currency: "INR"}); !errors.Is(err, sandbox.ErrUnknownPayment) {
			t.Fatalf("refund of a declined payment = %v", err)
		}
	})
	t.Run("fail refunds: every refund fails until switched off", func(t *testing.T) {
		other, err := e.sandbox.Pay(ctx, e.checkout(t, e.otherHold(3)), sandbox.BehaveNormal)
		if err != nil {
			t.Fatal(err)
		}
		pid := pgtest.Scalar[string](t, e.pool, `SELECT id FROM sandbox_payments WHERE checkout_id = $1`, other.ID)
		if err := e.sandbox.SetFailRefunds(ctx, true); err != nil {
			t.Fatal(err)
		}
		if st, _ := e.sandbox.Settings(ctx); !st.FailRefunds {
			t.Fatal("setting not stored")
		}
		r := booking.Refund{ID: "r6", PaymentID: pid, AmountMinor: 50000, Currency: "INR"}
		if err := e.sandbox.Refund(ctx, r); !errors.Is(err, sandbox.ErrRefundsFailing) {
			t.Fatalf("refund while failing = %v", err)
		}
		if err := e.sandbox.SetFailRefunds(ctx, false); err != nil {
			t.Fatal(err)
		}
		if err := e.sandbox.Refund(ctx, r); err != nil {
			t.Fatalf("refund after switching off = %v", err)
		}
	})
}

func TestParseBehaviour(t *testing.T) {
	t.Parallel()
	for _, b := range sandbox.Behaviours {
		if got, err := sandbox.ParseBehaviour(string(b.Behaviour)); err != nil || got != b.Behaviour {
			t.Errorf("ParseBehaviour(%q) = %q, %v", b.Behaviour, got, err)
		}
	}
	if got, err := sandbox.ParseBehaviour(""); err != nil || got != sandbox.BehaveNormal {
		t.Errorf(`ParseBehaviour("") = %q, %v`, got, err)
	}
	for _, bad := range []string{"NORMAL", "delay ", "x", fmt.Sprint(1)} {
		if _, err := sandbox.ParseBehaviour(bad); !errors.Is(err, sandbox.ErrUnknownBehaviour) {
			t.Errorf("ParseBehaviour(%q) = %v", bad, err)
		}
	}
}

func TestSandboxCheckoutURL(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"http://localhost:8080", "http://localhost:8080/"} {
		got := sandbox.New(nil, sandbox.Config{PublicURL: base}).CheckoutURL("cs_1")
		if want := "http://localhost:8080/sandbox/checkout/cs_1"; got != want {
			t.Errorf("CheckoutURL with %q = %q, want %q", base, got, want)
		}
	}
}
