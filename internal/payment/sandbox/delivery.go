package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/payment"
)

// WebhookWorker delivers the sandbox's webhooks to the merchant, server to
// server, outside any transaction: one River job (jobs.WebhookDelivery) per
// row of sandbox_webhooks, inserted with it. River hands each job to one
// worker of one instance at a time, retries a failed delivery after
// WebhookBackoff and gives it up after jobs.WebhookAttempts; the row keeps
// how the delivery went, for the sandbox's pages. Delivery is at least once
// (a worker killed after the merchant answered posts again), in no
// guaranteed order, as with any real provider. Only a 2xx answer is a
// delivery.
type WebhookWorker struct {
	river.WorkerDefaults[jobs.WebhookDelivery]
	Sandbox *Sandbox
}

// Delivery is one queued webhook and how its delivery went.
type Delivery struct {
	ID          int64
	PaymentID   string
	Event       string // the status the webhook reports: succeeded or failed
	Body        string
	Status      string // PENDING, DELIVERED or GAVE_UP
	Attempts    int
	LastStatus  *int
	LastError   string
	CreatedAt   time.Time
	DeliveredAt *time.Time
	// NextAttemptAt is when a PENDING delivery is tried next, and GaveUpAt
	// when a GAVE_UP one was given up: its job's, while River keeps it.
	NextAttemptAt *time.Time
	GaveUpAt      *time.Time
}

// Work posts job's webhook, signed now, unless it was delivered already (a
// job run again after its worker died). A failure is recorded on the
// delivery and returned, for River to retry; the last attempt's gives the
// delivery up.
func (w *WebhookWorker) Work(ctx context.Context, job *river.Job[jobs.WebhookDelivery]) error {
	s := w.Sandbox
	d, err := s.startDelivery(ctx, job.Args.DeliveryID)
	if errors.Is(err, pgx.ErrNoRows) {
		// Nothing to send, now or on any retry.
		return river.JobCancel(fmt.Errorf("sandbox: webhook %d: no such delivery", job.Args.DeliveryID))
	}
	if err != nil {
		return err
	}
	if d.Status == "DELIVERED" {
		return nil
	}
	log := s.cfg.Log.With("delivery_id", d.ID, "payment_id", d.PaymentID, "job_id", job.ID, "attempt", job.Attempt)
	status, err := s.deliver(ctx, d)
	if err == nil {
		if err := s.delivered(context.WithoutCancel(ctx), d.ID, status); err != nil {
			// Unrecorded, the delivery is retried: at least once.
			return err
		}
		log.Debug("webhook delivered", "status", status)
		return nil
	}
	err = fmt.Errorf("sandbox: deliver webhook %d of payment %s: %w", d.ID, d.PaymentID, err)
	if errors.Is(ctx.Err(), context.Canceled) {
		// The instance is stopping: River makes the job available again
		// without counting this attempt, so there is nothing to record.
		return err
	}
	giveUp := job.Attempt >= job.MaxAttempts
	log.Warn("webhook delivery failed", "gave_up", giveUp, "err", err)
	if err := s.deliveryFailed(context.WithoutCancel(ctx), d.ID, status, err, giveUp); err != nil {
		log.Error("record failed webhook delivery", "err", err)
	}
	return err
}

// NextRetry waits WebhookBackoff after a failed attempt, by the sandbox's
// clock (River's own retries wait attempt⁴ seconds, far longer than a
// provider waits to resend a webhook).
func (w *WebhookWorker) NextRetry(job *river.Job[jobs.WebhookDelivery]) time.Time {
	return w.Sandbox.clock().Add(WebhookBackoff(job.Attempt))
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

// startDelivery counts one more attempt at delivery id, unless it was
// delivered, and returns it; pgx.ErrNoRows if there is none.
func (s *Sandbox) startDelivery(ctx context.Context, id int64) (Delivery, error) {
	d := Delivery{ID: id}
	err := s.pool.QueryRow(ctx, `
		UPDATE sandbox_webhooks SET attempts = attempts + CASE WHEN status = 'DELIVERED' THEN 0 ELSE 1 END
		 WHERE id = $1
		RETURNING payment_id, body, status, attempts`, id).Scan(&d.PaymentID, &d.Body, &d.Status, &d.Attempts)
	if err != nil {
		return d, fmt.Errorf("sandbox: start webhook %d: %w", id, err)
	}
	return d, nil
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
	if _, err := s.pool.Exec(ctx, `
		UPDATE sandbox_webhooks SET status = 'DELIVERED', last_status = $2, last_error = NULL,
		       delivered_at = coalesce($3::timestamptz, clock_timestamp())
		 WHERE id = $1`, id, status, s.now()); err != nil {
		return fmt.Errorf("sandbox: record webhook %d delivered: %w", id, err)
	}
	return nil
}

// deliveryFailed records a failed attempt at delivery id: the answer's
// status (0: none) and why; giveUp, that there will be no other.
func (s *Sandbox) deliveryFailed(ctx context.Context, id int64, status int, cause error, giveUp bool) error {
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
	// A delivery recorded DELIVERED meanwhile (a job run twice) stays so.
	if _, err := s.pool.Exec(ctx, `
		UPDATE sandbox_webhooks SET status = $4, last_status = $2, last_error = $3
		 WHERE id = $1 AND status <> 'DELIVERED'`, id, lastStatus, msg, next); err != nil {
		return fmt.Errorf("sandbox: record webhook %d failed: %w", id, err)
	}
	return nil
}

// Resume queues the job of every delivery still PENDING that has none:
// those queued before deliveries were River's jobs (migration 000019). A
// delivery whose job is waiting, running or done is left alone (its job is
// unique), so every instance may call it at start-up. It returns how many
// jobs it queued.
func (s *Sandbox) Resume(ctx context.Context) (int, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM sandbox_webhooks WHERE status = 'PENDING' ORDER BY id`)
	if err != nil {
		return 0, fmt.Errorf("sandbox: pending webhooks: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("sandbox: pending webhooks: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: jobs.WebhookDelivery{DeliveryID: id}}
	}
	res, err := s.jobs.InsertMany(ctx, params)
	if err != nil {
		return 0, fmt.Errorf("sandbox: queue %d pending webhooks: %w", len(ids), err)
	}
	queued := 0
	for _, r := range res {
		if !r.UniqueSkippedAsDuplicate {
			queued++
		}
	}
	return queued, nil
}

// Deliveries returns the webhooks queued for checkout id's payments, oldest
// first; with id "", the latest limit webhooks of any checkout, newest first.
func (s *Sandbox) Deliveries(ctx context.Context, checkoutID string, limit int) ([]Delivery, error) {
	// River keeps when a delivery is tried next, or was given up, on its
	// job (found by its args, which River indexes).
	rows, err := s.pool.Query(ctx, `
		SELECT w.id, w.payment_id, coalesce(w.body::jsonb->>'status', ''), w.body, w.status, w.attempts, w.last_status,
		       coalesce(w.last_error, ''), w.created_at, w.delivered_at,
		       CASE WHEN w.status = 'PENDING' THEN j.scheduled_at END,
		       CASE WHEN w.status = 'GAVE_UP' THEN j.finalized_at END
		  FROM sandbox_webhooks w JOIN sandbox_payments p ON p.id = w.payment_id
		  LEFT JOIN LATERAL (
		       SELECT scheduled_at, finalized_at FROM river_job
		        WHERE kind = $3 AND args @> jsonb_build_object('delivery_id', w.id)
		        ORDER BY id DESC LIMIT 1
		  ) j ON true
		 WHERE $1 = '' OR p.checkout_id = $1
		 ORDER BY CASE WHEN $1 = '' THEN -w.id ELSE w.id END
		 LIMIT $2`, checkoutID, limit, jobs.WebhookDelivery{}.Kind())
	if err != nil {
		return nil, fmt.Errorf("sandbox: list webhooks: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := r.Scan(&d.ID, &d.PaymentID, &d.Event, &d.Body, &d.Status, &d.Attempts, &d.LastStatus,
			&d.LastError, &d.CreatedAt, &d.DeliveredAt, &d.NextAttemptAt, &d.GaveUpAt)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: list webhooks: %w", err)
	}
	return list, nil
}
