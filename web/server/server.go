// Package server assembles Marquee's HTTP handler: the shared plumbing of
// web and every handler package, wired to the routes table (routes.go).
package server

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
)

// New returns the HTTP handler of the whole app: the JSON API, the pages,
// the live seat map and, when cfg.Sandbox is set, Sandbox Pay's pages. m
// may be nil (metrics are then kept on a private registry), gatherer is
// what /metrics serves (nil: the default gatherer), log may be nil.
func New(cfg web.Config, store *postgres.Store, m *metrics.Metrics, gatherer prometheus.Gatherer, log *slog.Logger) http.Handler {
	if gatherer == nil {
		gatherer = prometheus.DefaultGatherer
	}
	s := web.NewServer(cfg, store, m, log)
	e := s.Echo()
	routes(e, s, gatherer)
	return e
}
