package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/marquee-tickets/marquee/internal/payment"
)

// WebhookWorker delivers the sandbox's queued webhooks to the merchant, server
// to server, outside any transaction, retrying with backoff. Workers of
// several instances share the queue: each delivery is leased by one of them
// at a time (FOR UPDATE SKIP LOCKED), and a worker that dies leaves its
// lease to run out and the delivery to be taken again. Delivery is at least
// once, in no guaranteed order, as with any real provider.
type WebhookWorker struct {
	Sandbox  *Sandbox
	Interval time.Duration // how often the queue is polled; 0 = 1 s
	Batch    int           // deliveries leased at once; 0 = 20
	// Lease is how long a leased delivery is this worker's; 0 = 1 minute.
	// It must exceed the HTTP client's timeout.
	Lease time.Duration
	// MaxAttempts after which a delivery is given up; 0 = 16 (about 3 hours).
	MaxAttempts int
}

// Delivery is one queued webhook and how its delivery went.
type Delivery struct {
	ID            int64
	PaymentID     string
	Event         string // the status the webhook reports: succeeded or failed
	Body          string
	Status        string // PENDING, DELIVERED or GAVE_UP
	Attempts      int
	NextAttemptAt time.Time
	LastStatus    *int
	LastError     string
	CreatedAt     time.Time
	DeliveredAt   *time.Time
}

func (w *WebhookWorker) defaults() (interval time.Duration, batch int, lease time.Duration, maxAttempts int) {
	interval, batch, lease, maxAttempts = w.Interval, w.Batch, w.Lease, w.MaxAttempts
	if interval <= 0 {
		interval = time.Second
	}
	if batch <= 0 {
		batch = 20
	}
	if lease <= 0 {
		lease = time.Minute
	}
	if maxAttempts <= 0 {
		maxAttempts = 16
	}
	return
}

// Run delivers webhooks until ctx is done.
func (w *WebhookWorker) Run(ctx context.Context) {
	interval, _, _, _ := w.defaults()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		w.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.Sandbox.kick:
		}
	}
}

// wake tells this instance's worker that a webhook is queued.
func (s *Sandbox) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// RunOnce attempts every delivery due now, in the order they became due, and
// returns how many were delivered.
func (w *WebhookWorker) RunOnce(ctx context.Context) int {
	_, batch, lease, maxAttempts := w.defaults()
	s := w.Sandbox
	delivered := 0
	for ctx.Err() == nil {
		due, err := s.leaseDeliveries(ctx, batch, lease)
		if err != nil {
			if ctx.Err() == nil {
				s.cfg.Log.Error("lease webhooks", "err", err)
			}
			return delivered
		}
		for _, d := range due {
			status, err := s.deliver(ctx, d)
			if err == nil {
				if err := s.delivered(ctx, d.ID, status); err != nil {
					s.cfg.Log.Error("record webhook delivery", "delivery_id", d.ID, "payment_id", d.PaymentID, "err", err)
					continue
				}
				s.cfg.Log.Debug("webhook delivered", "delivery_id", d.ID, "payment_id", d.PaymentID, "status", status, "attempt", d.Attempts)
				delivered++
				continue
			}
			if ctx.Err() != nil {
				// Shutting down: the lease runs out and another attempt follows.
				return delivered
			}
			giveUp := d.Attempts >= maxAttempts
			s.cfg.Log.Warn("webhook delivery failed", "delivery_id", d.ID, "payment_id", d.PaymentID,
				"attempt", d.Attempts, "gave_up", giveUp, "err", err)
			if err := s.deliveryFailed(ctx, d.ID, status, err, WebhookBackoff(d.Attempts), giveUp); err != nil {
				s.cfg.Log.Error("record failed webhook delivery", "delivery_id", d.ID, "payment_id", d.PaymentID, "err", err)
			}
		}
		if len(due) < batch {
			return delivered
		}
	}
	return delivered
}

// WebhookBackoff is the wait after failed attempt n: 1 s doubling, at most
// 30 minutes.
func WebhookBackoff(attempts int) time.Duration {
	d := time.Second
	for i := 1; i < attempts && d < 30*time.Minute; i++ {
		d *= 2
	}
	return min(d, 30*time.Minute)
}

// leaseDeliveries claims up to limit due deliveries for lease and returns
// them in the order they became due.
func (s *Sandbox) leaseDeliveries(ctx context.Context, limit int, lease time.Duration) ([]Delivery, error) {
	rows, err := s.pool.Query(ctx, `
		WITH now AS (SELECT coalesce($1::timestamptz, clock_timestamp()) AS t),
		due AS (
			SELECT w.id, w.next_attempt_at FROM sandbox_webhooks w, now
			 WHERE w.status = 'PENDING' AND w.next_attempt_at <= now.t
			 ORDER BY w.next_attempt_at, w.id LIMIT $2
			 FOR UPDATE OF w SKIP LOCKED
		)
		UPDATE sandbox_webhooks w
		   SET attempts = w.attempts + 1, next_attempt_at = now.t + $3 * interval '1 microsecond'
		  FROM due, now
		 WHERE w.id = due.id
		RETURNING w.id, w.payment_id, w.body, w.attempts, due.next_attempt_at`,
		s.now(), limit, lease.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("sandbox: lease webhooks: %w", err)
	}
	due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := r.Scan(&d.ID, &d.PaymentID, &d.Body, &d.Attempts, &d.NextAttemptAt)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: lease webhooks: %w", err)
	}
	slices.SortFunc(due, func(a, b Delivery) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return due, nil
}

// deliver posts d, signed now, and returns the answer's status. Only a 2xx
// answer is a delivery.
func (s *Sandbox) deliver(ctx context.Context, d Delivery) (int, error) {
	body := []byte(d.Body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "MarqueeSandboxPay/1")
	req.Header.Set(payment.SignatureHeader, payment.Sign(s.cfg.Secret, time.Now(), body))
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("answered %d: %s", resp.StatusCode, strings.TrimSpace(string(answer)))
	}
	return resp.StatusCode, nil
}

func (s *Sandbox) delivered(ctx context.Context, id int64, status int) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE sandbox_webhooks SET status = 'DELIVERED', last_status = $2, last_error = NULL,
		       delivered_at = coalesce($3::timestamptz, clock_timestamp())
		 WHERE id = $1`, id, status, s.now())
	return err
}

func (s *Sandbox) deliveryFailed(ctx context.Context, id int64, status int, cause error, backoff time.Duration, giveUp bool) error {
	var lastStatus *int
	if status != 0 {
		lastStatus = &status
	}
	next := "PENDING"
	if giveUp {
		next = "GAVE_UP"
	}
	msg := cause.Error()
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	_, err := s.pool.Exec(ctx, `
		WITH now AS (SELECT coalesce($5::timestamptz, clock_timestamp()) AS t)
		UPDATE sandbox_webhooks SET status = $6, last_status = $2, last_error = $3,
		       next_attempt_at = now.t + $4 * interval '1 microsecond'
		  FROM now
		 WHERE id = $1 AND status = 'PENDING'`, id, lastStatus, msg, backoff.Microseconds(), s.now(), next)
	return err
}

// Deliveries returns the webhooks queued for checkout id's payments, oldest
// first; with id "", the latest limit webhooks of any checkout, newest first.
func (s *Sandbox) Deliveries(ctx context.Context, checkoutID string, limit int) ([]Delivery, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT w.id, w.payment_id, coalesce(w.body::jsonb->>'status', ''), w.body, w.status, w.attempts, w.next_attempt_at, w.last_status,
		       coalesce(w.last_error, ''), w.created_at, w.delivered_at
		  FROM sandbox_webhooks w JOIN sandbox_payments p ON p.id = w.payment_id
		 WHERE $1 = '' OR p.checkout_id = $1
		 ORDER BY CASE WHEN $1 = '' THEN -w.id ELSE w.id END
		 LIMIT $2`, checkoutID, limit)
	if err != nil {
		return nil, fmt.Errorf("sandbox: list webhooks: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := r.Scan(&d.ID, &d.PaymentID, &d.Event, &d.Body, &d.Status, &d.Attempts, &d.NextAttemptAt, &d.LastStatus,
			&d.LastError, &d.CreatedAt, &d.DeliveredAt)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: list webhooks: %w", err)
	}
	return list, nil
}
