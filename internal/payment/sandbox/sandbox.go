// Package sandbox is Sandbox Pay, the test payment provider that ships with
// Marquee as a separate party: its own tables, hosted pages and webhook
// delivery worker (a River job per webhook, see WebhookWorker).
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/payment"
)

// Sandbox is the payment provider that ships with Marquee: a hosted checkout
// served by the app's own binary under /sandbox/, with its own tables and its
// own webhook secret, reporting payments by signed webhook like a real
// provider. Developers can make it misbehave (see Behaviour, SetFailRefunds)
// so that every ugly path of a real provider can be tried by hand and tested.
//
// The sandbox never touches the booking schema: it knows the merchant only
// by the webhook address and the hold ids the merchant gave it.
type Sandbox struct {
	pool *pgxpool.Pool
	cfg  Config
	// jobs inserts each webhook's delivery job in the transaction that
	// queues the webhook.
	jobs *jobs.Inserter

	// Clock, when set, replaces the database clock for when webhooks are due
	// (tests cross the 5 s delay without sleeping): their jobs are
	// scheduled and retried by it. Signatures always carry the wall clock:
	// the receiver checks them against its own.
	Clock func() time.Time
}

// Config configures the sandbox.
type Config struct {
	// PublicURL is the base URL the sandbox's pages are served under, the
	// app's own (e.g. http://localhost:8080).
	PublicURL string
	// WebhookURL receives the signed webhooks; default PublicURL/payments/webhook.
	WebhookURL string
	// Secret signs the webhooks (PAYMENT_WEBHOOK_SECRET).
	Secret []byte
	// Merchant is the name shown on the checkout page; default "Marquee".
	Merchant string
	// Client sends the webhooks; default: a client with a 10 s timeout that
	// follows no redirects.
	Client *http.Client
	// Log may be nil.
	Log *slog.Logger
}

// Prefix is the path under which the sandbox's pages are served.
const Prefix = "/sandbox"

// New returns the sandbox provider keeping its state in pool's database
// (the tables of migration 000005).
func New(pool *pgxpool.Pool, cfg Config) *Sandbox {
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.WebhookURL == "" {
		cfg.WebhookURL = cfg.PublicURL + "/payments/webhook"
	}
	if cfg.Merchant == "" {
		cfg.Merchant = "Marquee"
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{
			Timeout: 10 * time.Second,
			// A webhook endpoint that redirects is misconfigured: say so in
			// the delivery log rather than post the payment somewhere else.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Sandbox{pool: pool, cfg: cfg}
	// The sandbox's own inserter, rather than jobs.NewInserter's, so that a
	// webhook's job is due by the sandbox's Clock, as the webhook is.
	inserter, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Test: river.TestConfig{Time: jobClock{s}}})
	if err != nil {
		// River refuses only a configuration it cannot use, and this one
		// is fixed.
		panic(fmt.Errorf("sandbox: river inserter: %w", err))
	}
	s.jobs = inserter
	return s
}

// jobClock is the sandbox's Clock as River's time, read when a job is
// inserted. Without a Clock, NowOrNil's nil lets the database's clock
// schedule the job, as it decides every other time of the sandbox's.
type jobClock struct{ s *Sandbox }

func (c jobClock) Now() time.Time { return c.s.clock() }

func (c jobClock) NowOrNil() *time.Time {
	if c.s.Clock == nil {
		return nil
	}
	t := c.s.Clock()
	return &t
}

// clock is the sandbox's Clock, or the wall clock.
func (s *Sandbox) clock() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock()
}

// Merchant is the name the checkout page shows.
func (s *Sandbox) Merchant() string { return s.cfg.Merchant }

// now is the clock argument of a query: nil lets SQL use the database clock.
func (s *Sandbox) now() any {
	if s.Clock == nil {
		return nil
	}
	return s.Clock()
}

// CheckoutStatus is where a hosted checkout stands.
type CheckoutStatus string

const (
	CheckoutOpen     CheckoutStatus = "OPEN"
	CheckoutPaid     CheckoutStatus = "PAID"
	CheckoutDeclined CheckoutStatus = "DECLINED"
)

// Checkout is one hosted checkout: an attempt to pay for one hold.
type Checkout struct {
	ID          string
	HoldID      string
	Customer    string // the merchant's user id
	AmountMinor int64
	Currency    string
	Merchant    string
	ReturnURL   string
	BackURL     string     // the merchant's page to leave to without paying; "" if none
	ExpiresAt   *time.Time // money is taken only before this (the hold's deadline); nil: no deadline
	Status      CheckoutStatus
	Behaviour   Behaviour // how the webhooks of the payment were sent; "" while open
	CreatedAt   time.Time
	CompletedAt *time.Time
	// HoldPaid: another checkout of the same hold was paid, so this one
	// takes no money.
	HoldPaid bool
}

// Expired reports whether open checkout c can no longer be paid at now:
// its hold's deadline has come (exactly at ExpiresAt, as the hold itself).
func (c Checkout) Expired(now time.Time) bool {
	return c.Status == CheckoutOpen && c.ExpiresAt != nil && !now.Before(*c.ExpiresAt)
}

// Behaviour is how the sandbox reports a payment: like a well-behaved
// provider, or in one of the ways real providers misbehave.
type Behaviour string

const (
	// BehaveNormal sends one succeeded webhook at once.
	BehaveNormal Behaviour = "normal"
	// BehaveDelay sends it after WebhookDelay.
	BehaveDelay Behaviour = "delay"
	// BehaveDuplicate sends the same succeeded webhook twice.
	BehaveDuplicate Behaviour = "duplicate"
	// BehaveDrop takes the money and never sends the webhook.
	BehaveDrop Behaviour = "drop"
	// BehaveReorder sends the succeeded webhook of the payment, then a
	// failed webhook of the same payment id (an earlier declined attempt
	// that arrives late), which must change nothing.
	BehaveReorder Behaviour = "reorder"
	// BehaveTwoPayments charges twice (two payment ids, as when a shopper
	// pays in two tabs) and sends both webhooks: one books, one is refunded.
	BehaveTwoPayments Behaviour = "two_payments"
)

// WebhookDelay is how late BehaveDelay sends its webhook.
const WebhookDelay = 5 * time.Second

// reorderGap is how long after the succeeded webhook BehaveReorder's stale
// failed webhook becomes due, so that it arrives second.
const reorderGap = time.Second

// Behaviours lists every behaviour with what it does, in the order the
// checkout page offers them.
var Behaviours = []struct {
	Behaviour   Behaviour
	Description string
}{
	{BehaveNormal, "Normal: one webhook, at once"},
	{BehaveDelay, "Delay the webhook by 5 s"},
	{BehaveDuplicate, "Duplicate: send the webhook twice"},
	{BehaveDrop, "Drop: take the money, never send the webhook"},
	{BehaveReorder, "Reorder: a stale \"failed\" event arrives after \"succeeded\""},
	{BehaveTwoPayments, "Two payments: charge twice (two payment ids)"},
}

// ParseBehaviour reads a behaviour; "" is BehaveNormal.
func ParseBehaviour(s string) (Behaviour, error) {
	if s == "" {
		return BehaveNormal, nil
	}
	for _, b := range Behaviours {
		if string(b.Behaviour) == s {
			return b.Behaviour, nil
		}
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownBehaviour, s)
}

// Errors of the sandbox.
var (
	ErrUnknownBehaviour = errors.New("sandbox: unknown test behaviour")
	// ErrRefundsFailing is what every refund answers while a developer has
	// told the sandbox to fail refunds.
	ErrRefundsFailing = errors.New("sandbox: refunds are set to fail")
	// ErrUnknownPayment: a refund for a payment the sandbox never took.
	ErrUnknownPayment = errors.New("sandbox: no succeeded payment with this id")
	// ErrRefundTooLarge: refunds of a payment would exceed what it charged.
	ErrRefundTooLarge = errors.New("sandbox: refunds would exceed the payment")
	// ErrCheckoutExpired: paying or declining a checkout whose hold's
	// deadline has passed. Nothing is charged.
	ErrCheckoutExpired = errors.New("sandbox: the checkout's hold has expired")
	// ErrHoldPaid: paying or declining a checkout whose hold is paid,
	// by it or by another checkout. Nothing more is charged.
	ErrHoldPaid = fmt.Errorf("sandbox: %w", payment.ErrAlreadyPaid)
)

// newID returns prefix and n random bytes in hex.
func newID(prefix string, n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// CreateCheckout opens a hosted checkout for hold h and returns its page's
// address, or the one already open for h (Reused). It takes money only
// before h.ExpiresAt (a zero ExpiresAt sets no deadline). A hold with a paid
// checkout gets none (payment.ErrAlreadyPaid), nor one past its deadline
// (payment.ErrDeadlinePassed).
//
// One open checkout per hold: under the hold's lock (see lockHold) a paid
// checkout is looked for, then the new one inserted unless one is open,
// which the unique index of open checkouts (000009) decides.
func (s *Sandbox) CreateCheckout(ctx context.Context, h booking.Hold, links payment.Links) (payment.Checkout, error) {
	if h.ID == "" || h.AmountMinor < 0 || links.Return == "" {
		return payment.Checkout{}, fmt.Errorf("sandbox: create checkout: incomplete hold %q or no return url", h.ID)
	}
	var expires *time.Time
	if !h.ExpiresAt.IsZero() {
		expires = &h.ExpiresAt
	}
	var back *string
	if links.Back != "" {
		back = &links.Back
	}
	var co payment.Checkout
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		now, err := s.lockHold(ctx, tx, h.ID)
		if err != nil {
			return err
		}
		var paid bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sandbox_checkouts WHERE hold_id = $1 AND status = 'PAID')`,
			h.ID).Scan(&paid); err != nil {
			return fmt.Errorf("sandbox: read checkouts of hold %s: %w", h.ID, err)
		}
		if paid {
			return fmt.Errorf("sandbox: checkout of hold %s: %w", h.ID, payment.ErrAlreadyPaid)
		}
		if expires != nil && !now.Before(*expires) {
			return fmt.Errorf("sandbox: checkout of hold %s at %s: %w", h.ID, now.Format(time.RFC3339), payment.ErrDeadlinePassed)
		}
		id := newID("cs_", 16)
		err = tx.QueryRow(ctx, `
			INSERT INTO sandbox_checkouts (id, hold_id, customer, amount_minor, currency, merchant, return_url, back_url, expires_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (hold_id) WHERE status = 'OPEN' DO NOTHING
			RETURNING id`,
			id, h.ID, h.UserID, h.AmountMinor, h.Currency, s.cfg.Merchant, links.Return, back, expires, now).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			co.Reused = true
			err = tx.QueryRow(ctx, `SELECT id FROM sandbox_checkouts WHERE hold_id = $1 AND status = 'OPEN'`, h.ID).Scan(&id)
		}
		if err != nil {
			return fmt.Errorf("sandbox: create checkout: %w", err)
		}
		co.URL = s.CheckoutURL(id)
		return nil
	})
	return co, err
}

// lockHold takes the sandbox's lock of hold holdID for the rest of tx and
// returns the clock read after it: opening, paying and declining checkouts
// of one hold happen one at a time, so one open checkout and one paid one
// per hold are decided by what committed before. It is taken before any
// checkout's row lock.
func (s *Sandbox) lockHold(ctx context.Context, tx pgx.Tx, holdID string) (time.Time, error) {
	var now time.Time
	if err := tx.QueryRow(ctx, `
		SELECT coalesce($2::timestamptz, clock_timestamp())
		  FROM pg_advisory_xact_lock(hashtext('sandbox_checkouts hold'), hashtext($1))`,
		holdID, s.now()).Scan(&now); err != nil {
		return now, fmt.Errorf("sandbox: lock hold %s: %w", holdID, err)
	}
	return now, nil
}

// CheckoutURL is the address of checkout id's page.
func (s *Sandbox) CheckoutURL(id string) string {
	return s.cfg.PublicURL + Prefix + "/checkout/" + url.PathEscape(id)
}

const checkoutColumns = `id, hold_id, customer, amount_minor, currency, merchant, return_url,
	coalesce(back_url, ''), expires_at, status, coalesce(behaviour, ''), created_at, completed_at,
	EXISTS (SELECT 1 FROM sandbox_checkouts o WHERE o.hold_id = sandbox_checkouts.hold_id AND o.status = 'PAID' AND o.id <> sandbox_checkouts.id)`

func scanCheckout(row pgx.Row, extra ...any) (Checkout, error) {
	var c Checkout
	err := row.Scan(append([]any{&c.ID, &c.HoldID, &c.Customer, &c.AmountMinor, &c.Currency, &c.Merchant, &c.ReturnURL,
		&c.BackURL, &c.ExpiresAt, &c.Status, &c.Behaviour, &c.CreatedAt, &c.CompletedAt, &c.HoldPaid}, extra...)...)
	return c, err
}

// Now is the sandbox's clock: the database's, or Clock when set. A
// checkout's deadline is decided by it.
func (s *Sandbox) Now(ctx context.Context) (time.Time, error) {
	var now time.Time
	if err := s.pool.QueryRow(ctx, `SELECT coalesce($1::timestamptz, clock_timestamp())`, s.now()).Scan(&now); err != nil {
		return now, fmt.Errorf("sandbox: read clock: %w", err)
	}
	return now, nil
}

// Checkout returns checkout id; booking.ErrNotFound if there is none.
func (s *Sandbox) Checkout(ctx context.Context, id string) (Checkout, error) {
	c, err := scanCheckout(s.pool.QueryRow(ctx, `SELECT `+checkoutColumns+` FROM sandbox_checkouts WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, fmt.Errorf("sandbox checkout %q: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("sandbox: read checkout: %w", err)
	}
	return c, nil
}

// webhookBody is the payment report of docs/api.md (POST /payments/webhook).
// CapturedAt is when the money was taken (when the attempt was made, for a
// failed one).
type webhookBody struct {
	PaymentID   string    `json:"payment_id"`
	HoldID      string    `json:"hold_id"`
	AmountMinor int64     `json:"amount_minor"`
	Currency    string    `json:"currency"`
	Status      string    `json:"status"`
	CapturedAt  time.Time `json:"captured_at"`
}

// webhook is one delivery to queue: a payment's report, due after delay.
type webhook struct {
	paymentID string
	status    string
	delay     time.Duration
}

// Pay charges checkout id and queues its webhooks as behaviour b says, in
// one transaction: no payment without its webhook, no webhook without its
// payment. A checkout whose hold is paid already, by it (a double-submitted
// Pay, a page left open) or by another checkout, charges nothing and fails
// with ErrHoldPaid; a declined one is returned unchanged; one whose hold has
// expired charges nothing and fails with ErrCheckoutExpired. The caller
// sends the shopper to the checkout's ReturnURL.
func (s *Sandbox) Pay(ctx context.Context, id string, b Behaviour) (Checkout, error) {
	if _, err := ParseBehaviour(string(b)); err != nil {
		return Checkout{}, err
	}
	c, err := s.complete(ctx, id, func(ctx context.Context, tx pgx.Tx, c Checkout, now time.Time) error {
		first := newID("pay_", 12)
		var hooks []webhook
		switch b {
		case BehaveNormal:
			hooks = []webhook{{first, "succeeded", 0}}
		case BehaveDelay:
			hooks = []webhook{{first, "succeeded", WebhookDelay}}
		case BehaveDuplicate:
			hooks = []webhook{{first, "succeeded", 0}, {first, "succeeded", 0}}
		case BehaveDrop:
			// The money is taken; the report is lost.
		case BehaveReorder:
			hooks = []webhook{{first, "succeeded", 0}, {first, "failed", reorderGap}}
		case BehaveTwoPayments:
			second := newID("pay_", 12)
			if err := insertPayment(ctx, tx, now, second, c, "succeeded"); err != nil {
				return err
			}
			hooks = []webhook{{first, "succeeded", 0}, {second, "succeeded", 0}}
		}
		if err := insertPayment(ctx, tx, now, first, c, "succeeded"); err != nil {
			return err
		}
		return s.enqueueWebhooks(ctx, tx, now, c, hooks)
	}, CheckoutPaid, b)
	return c, err
}

// Decline refuses to pay checkout id: nothing is charged, and a failed
// webhook reports the declined attempt. A checkout already declined is
// returned unchanged; one whose hold is paid fails with ErrHoldPaid, one
// whose hold has expired with ErrCheckoutExpired (there is nothing left to
// decline).
func (s *Sandbox) Decline(ctx context.Context, id string) (Checkout, error) {
	c, err := s.complete(ctx, id, func(ctx context.Context, tx pgx.Tx, c Checkout, now time.Time) error {
		p := newID("pay_", 12)
		if err := insertPayment(ctx, tx, now, p, c, "failed"); err != nil {
			return err
		}
		return s.enqueueWebhooks(ctx, tx, now, c, []webhook{{p, "failed", 0}})
	}, CheckoutDeclined, BehaveNormal)
	return c, err
}

// complete ends open checkout id as status, running charge at now under
// its hold's lock and its own. Whether the hold is paid and the deadline
// are decided under the locks too, so no payment slips past either.
func (s *Sandbox) complete(ctx context.Context, id string, charge func(context.Context, pgx.Tx, Checkout, time.Time) error,
	status CheckoutStatus, b Behaviour) (c Checkout, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The hold a checkout is for never changes: read it, lock it, then
		// the checkout.
		var holdID string
		err := tx.QueryRow(ctx, `SELECT hold_id FROM sandbox_checkouts WHERE id = $1`, id).Scan(&holdID)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("sandbox checkout %q: %w", id, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("sandbox: read checkout: %w", err)
		}
		now, err := s.lockHold(ctx, tx, holdID)
		if err != nil {
			return err
		}
		c, err = scanCheckout(tx.QueryRow(ctx, `SELECT `+checkoutColumns+` FROM sandbox_checkouts WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return fmt.Errorf("sandbox: lock checkout: %w", err)
		}
		if c.Status == CheckoutPaid || c.HoldPaid {
			return fmt.Errorf("checkout %s of hold %s: %w", c.ID, c.HoldID, ErrHoldPaid)
		}
		if c.Status != CheckoutOpen {
			return nil
		}
		if c.Expired(now) {
			return fmt.Errorf("checkout %s of hold %s at %s: %w", c.ID, c.HoldID, now.Format(time.RFC3339), ErrCheckoutExpired)
		}
		if err := charge(ctx, tx, c, now); err != nil {
			return err
		}
		c, err = scanCheckout(tx.QueryRow(ctx, `
			UPDATE sandbox_checkouts SET status = $2, behaviour = $3, completed_at = $4
			 WHERE id = $1
			RETURNING `+checkoutColumns, id, status, b, now))
		if err != nil {
			return fmt.Errorf("sandbox: complete checkout: %w", err)
		}
		return nil
	})
	return c, err
}

// insertPayment records a charge attempt made at now: its capture time.
func insertPayment(ctx context.Context, tx pgx.Tx, now time.Time, paymentID string, c Checkout, status string) error {
	if _, err := tx.Exec(ctx, `
		INSERT INTO sandbox_payments (id, checkout_id, hold_id, amount_minor, currency, status, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		paymentID, c.ID, c.HoldID, c.AmountMinor, c.Currency, status, now); err != nil {
		return fmt.Errorf("sandbox: record payment: %w", err)
	}
	return nil
}

// enqueueWebhooks queues hooks of a payment captured at now, in order, each
// with its delivery job: no webhook without its job, in tx. A delayed one's
// job is scheduled; River's scheduler, which looks every few seconds, then
// makes it available, so it goes out at the delay or a little after.
func (s *Sandbox) enqueueWebhooks(ctx context.Context, tx pgx.Tx, now time.Time, c Checkout, hooks []webhook) error {
	for _, h := range hooks {
		body, err := json.Marshal(webhookBody{
			PaymentID: h.paymentID, HoldID: c.HoldID, AmountMinor: c.AmountMinor, Currency: c.Currency, Status: h.status,
			CapturedAt: now.UTC(),
		})
		if err != nil {
			return fmt.Errorf("sandbox: encode webhook: %w", err)
		}
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO sandbox_webhooks (payment_id, body, created_at) VALUES ($1, $2, $3)
			RETURNING id`,
			h.paymentID, string(body), now).Scan(&id); err != nil {
			return fmt.Errorf("sandbox: queue webhook: %w", err)
		}
		// One due now is left unscheduled: River makes it available at once.
		var opts *river.InsertOpts
		if h.delay > 0 {
			opts = &river.InsertOpts{ScheduledAt: now.Add(h.delay)}
		}
		if _, err := s.jobs.InsertTx(ctx, tx, jobs.WebhookDelivery{DeliveryID: id}, opts); err != nil {
			return fmt.Errorf("sandbox: queue the delivery of webhook %d: %w", id, err)
		}
	}
	return nil
}

// PaymentStatus says how paying for hold holdID went: succeeded if any of its
// checkouts was paid, with every succeeded payment of them and when each was
// captured, else as its latest checkout stands.
func (s *Sandbox) PaymentStatus(ctx context.Context, holdID string) (payment.Report, error) {
	var st CheckoutStatus
	err := s.pool.QueryRow(ctx, `
		SELECT status FROM sandbox_checkouts WHERE hold_id = $1
		 ORDER BY status = 'PAID' DESC, seq DESC LIMIT 1`, holdID).Scan(&st)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return payment.Report{Status: payment.StatusNone}, nil
	case err != nil:
		return payment.Report{}, fmt.Errorf("sandbox: payment status: %w", err)
	case st == CheckoutDeclined:
		return payment.Report{Status: payment.StatusDeclined}, nil
	case st == CheckoutOpen:
		return payment.Report{Status: payment.StatusPending}, nil
	}
	rows, err := s.pool.Query(ctx, `
		SELECT id, hold_id, amount_minor, currency, created_at FROM sandbox_payments
		 WHERE hold_id = $1 AND status = 'succeeded' ORDER BY created_at, id`, holdID)
	if err != nil {
		return payment.Report{}, fmt.Errorf("sandbox: payments of hold %s: %w", holdID, err)
	}
	charges, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Payment, error) {
		var p booking.Payment
		err := r.Scan(&p.ID, &p.HoldRef, &p.AmountMinor, &p.Currency, &p.CapturedAt)
		return p, err
	})
	if err != nil {
		return payment.Report{}, fmt.Errorf("sandbox: payments of hold %s: %w", holdID, err)
	}
	return payment.Report{Status: payment.StatusSucceeded, Charges: charges}, nil
}

// Refund pays refund r back against the payment it names. The refund id is
// the idempotency key: a retry of a refund already made succeeds and pays
// nothing more. While refunds are set to fail, every refund fails.
func (s *Sandbox) Refund(ctx context.Context, r booking.Refund) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var failing bool
		if err := tx.QueryRow(ctx, `SELECT fail_refunds FROM sandbox_settings`).Scan(&failing); err != nil {
			return fmt.Errorf("sandbox: read settings: %w", err)
		}
		if failing {
			return ErrRefundsFailing
		}
		// The payment's row lock serializes refunds of one payment, so two
		// refunds never both fit under its amount by racing.
		var amount, refunded int64
		var currency string
		err := tx.QueryRow(ctx, `
			SELECT amount_minor, currency FROM sandbox_payments
			 WHERE id = $1 AND status = 'succeeded' FOR UPDATE`, r.PaymentID).Scan(&amount, &currency)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("refund %s of payment %q: %w", r.ID, r.PaymentID, ErrUnknownPayment)
		}
		if err != nil {
			return fmt.Errorf("sandbox: lock payment: %w", err)
		}
		var done bool
		if err := tx.QueryRow(ctx, `
			SELECT coalesce(sum(amount_minor), 0), bool_or(id = $2) IS TRUE
			  FROM sandbox_refunds WHERE payment_id = $1`, r.PaymentID, r.ID).Scan(&refunded, &done); err != nil {
			return fmt.Errorf("sandbox: read refunds: %w", err)
		}
		if done {
			return nil
		}
		if r.Currency != currency || r.AmountMinor < 0 || refunded+r.AmountMinor > amount {
			return fmt.Errorf("refund %s of %d %s against payment %s of %d %s (%d refunded): %w",
				r.ID, r.AmountMinor, r.Currency, r.PaymentID, amount, currency, refunded, ErrRefundTooLarge)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO sandbox_refunds (id, payment_id, amount_minor, currency, created_at)
			VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, clock_timestamp()))`,
			r.ID, r.PaymentID, r.AmountMinor, r.Currency, s.now()); err != nil {
			return fmt.Errorf("sandbox: record refund: %w", err)
		}
		return nil
	})
}

// Settings are the sandbox's developer switches.
type Settings struct {
	FailRefunds bool // every refund fails until switched off
}

// Settings returns the developer switches.
func (s *Sandbox) Settings(ctx context.Context) (Settings, error) {
	var st Settings
	if err := s.pool.QueryRow(ctx, `SELECT fail_refunds FROM sandbox_settings`).Scan(&st.FailRefunds); err != nil {
		return st, fmt.Errorf("sandbox: read settings: %w", err)
	}
	return st, nil
}

// SetFailRefunds makes every refund fail (on) or work again (off), for every
// instance sharing the database.
func (s *Sandbox) SetFailRefunds(ctx context.Context, on bool) error {
	if _, err := s.pool.Exec(ctx, `UPDATE sandbox_settings SET fail_refunds = $1`, on); err != nil {
		return fmt.Errorf("sandbox: set fail refunds: %w", err)
	}
	return nil
}
