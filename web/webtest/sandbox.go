package webtest

import (
	"log/slog"

	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// NewSandbox is Sandbox Pay on store's database, its pages under
// publicURL, its webhooks signed with WebhookSecret; log may be nil.
func NewSandbox(store *postgres.Store, publicURL string, log *slog.Logger) *sandbox.Sandbox {
	return sandbox.New(store.Pool(), sandbox.Config{PublicURL: publicURL, Secret: WebhookSecret, Log: log})
}
