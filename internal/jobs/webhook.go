package jobs

import "github.com/riverqueue/river"

// QueuePayments is the queue of the jobs that talk to the payment provider
// on the shop's behalf or the provider's, apart from the default queue so
// that a slow provider holds up nothing else.
const QueuePayments = "payments"

// WebhookDelivery posts Sandbox Pay's webhook DeliveryID (a row of
// sandbox_webhooks, which keeps its body and how its delivery went) to the
// merchant. One job per delivery, whatever inserts it again.
type WebhookDelivery struct {
	DeliveryID int64 `json:"delivery_id"`
}

func (WebhookDelivery) Kind() string { return "sandbox_webhook" }

// WebhookAttempts is how many times a webhook is posted before the sandbox
// gives it up, as real providers do: with the sandbox's waits (1 s doubling
// to 30 minutes) about three hours in all.
const WebhookAttempts = 16

func (WebhookDelivery) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue: QueuePayments, MaxAttempts: WebhookAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true},
	}
}
