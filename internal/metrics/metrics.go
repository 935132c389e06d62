// Package metrics defines the Prometheus metrics of the booking path.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the booking metrics, registered on one registry.
type Metrics struct {
	// HoldAttempts counts hold requests by outcome: held, replayed,
	// conflict, active_hold, address_cap (the seats held from one client
	// address are at their cap), not_enough (best available: too few free),
	// orphan_seat (the theatre's orphan rule refused the seats picked),
	// invalid, not_found, closed, error.
	HoldAttempts *prometheus.CounterVec
	// HoldLatency is the time a hold request spends in the store.
	HoldLatency prometheus.Histogram
	// SeatConflicts counts seats named in seats_unavailable answers.
	SeatConflicts prometheus.Counter
	// HoldsExpired counts holds the sweeper ended at their deadline.
	HoldsExpired prometheus.Counter
	// Payments counts verified payments by outcome.
	Payments *prometheus.CounterVec

	// The live seat map.
	LiveSubscribers prometheus.Gauge     // websockets watching a show now
	LiveMessages    prometheus.Counter   // seat updates written to websockets
	LiveDropped     prometheus.Counter   // subscribers dropped for falling behind
	LiveReconnects  prometheus.Counter   // LISTEN connections re-established
	LiveGaps        prometheus.Counter   // seat changes found missed by their numbers
	LiveLag         prometheus.Histogram // seconds from a seat change to its fan-out

	// Admission (web's admission control), by kind of request: read,
	// write, webhook.
	RequestsActive *prometheus.GaugeVec // requests being served now
	RequestsQueued *prometheus.GaugeVec // requests waiting for a turn now
	// RequestsShed counts requests turned away with 503 busy, by kind and
	// reason: queue_full (the queue was at its length), wait (the
	// expected wait was over the longest allowed), timeout (queued, but no
	// turn came within twice that).
	RequestsShed *prometheus.CounterVec

	// Mails counts attempts to send an e-mail by kind (ticket,
	// booking_cancelled, ...) and outcome: sent, failed (to be tried
	// again), gave_up (its last attempt failed: staff see it on the
	// booking).
	Mails *prometheus.CounterVec
}

// New creates the metrics and registers them on reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		HoldAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "marquee_hold_attempts_total",
			Help: "Hold requests by outcome.",
		}, []string{"outcome"}),
		HoldLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "marquee_hold_duration_seconds",
			Help:    "Time a hold request spends deciding, in seconds.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1},
		}),
		SeatConflicts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "marquee_seat_conflicts_total",
			Help: "Seats refused because another customer held or had booked them.",
		}),
		HoldsExpired: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "marquee_holds_expired_total",
			Help: "Holds the sweeper ended at their deadline.",
		}),
		Payments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "marquee_payments_total",
			Help: "Verified payments by outcome.",
		}, []string{"outcome"}),
		LiveSubscribers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "marquee_live_subscribers",
			Help: "Websockets watching a show's seat map now.",
		}),
		LiveMessages: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "marquee_live_messages_total",
			Help: "Seat map updates written to websockets.",
		}),
		LiveDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "marquee_live_dropped_total",
			Help: "Live seat map subscribers dropped for falling behind.",
		}),
		LiveReconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "marquee_live_listener_reconnects_total",
			Help: "Times the seat change listener re-established its LISTEN connection.",
		}),
		LiveGaps: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "marquee_live_feed_gaps_total",
			Help: "Times the seat change listener found by the feed's numbers that it had missed changes (every seat map then resyncs).",
		}),
		LiveLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "marquee_live_lag_seconds",
			Help:    "Seconds from a seat change (its row in seat_events) to its fan-out to subscribers.",
			Buckets: []float64{.005, .01, .025, .05, .075, .1, .15, .25, .5, 1, 2.5},
		}),
		RequestsActive: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "marquee_requests_active",
			Help: "Requests being served now, by kind (read, write, webhook).",
		}, []string{"kind"}),
		RequestsQueued: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "marquee_requests_queued",
			Help: "Requests waiting for their turn now, by kind (read, write, webhook).",
		}, []string{"kind"}),
		RequestsShed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "marquee_requests_shed_total",
			Help: "Requests answered 503 busy at once rather than served, by kind and reason (queue_full, wait, timeout).",
		}, []string{"kind", "reason"}),
		Mails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "marquee_mails_total",
			Help: "Attempts to send an e-mail, by kind and outcome (sent, failed, gave_up).",
		}, []string{"kind", "outcome"}),
	}
	reg.MustRegister(m.Mails, m.HoldAttempts, m.HoldLatency, m.SeatConflicts, m.HoldsExpired, m.Payments,
		m.LiveSubscribers, m.LiveMessages, m.LiveDropped, m.LiveReconnects, m.LiveGaps, m.LiveLag,
		m.RequestsActive, m.RequestsQueued, m.RequestsShed)
	return m
}
