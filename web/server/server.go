// Package server assembles Marquee's HTTP handler: the shared plumbing of
// web and every handler package, wired to the routes table (routes.go).
package server

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
)

// New returns the HTTP handler of the whole app: the JSON API, the pages,
// the live seat map and, when cfg.Sandbox is set, Sandbox Pay's pages. m
// may be nil (metrics are then kept on a private registry), log may be
// nil. It does not serve the metrics: Metrics does, on an address of its
// own.
func New(cfg web.Config, store *postgres.Store, m *metrics.Metrics, log *slog.Logger) http.Handler {
	s := web.NewServer(cfg, store, m, log)
	e := s.Echo()
	routes(e, s)
	return e
}

// Metrics serves what gatherer gathers at GET /metrics, in Prometheus's
// text format (promhttp compresses it itself). It is meant for a private
// address (METRICS_ADDR), never the public listener: the metrics tell
// anyone how busy the box office is, and a scrape is work nobody outside
// should be able to ask for.
func Metrics(gatherer prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	return mux
}
