package jobs

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Backlog is how many jobs of one queue are in one state, and how long the
// oldest of them that is due to run has waited: a queue that no instance
// works (mail without SMTP_URL), or works too slowly, shows as a growing
// wait.
type Backlog struct {
	Queue, State string
	Count        int
	OldestDue    time.Duration // 0 when none of them is due
}

// Collector serves the background jobs' backlog as metrics, read from the
// database at each scrape (so every instance reports the same, whichever
// queues it works).
type Collector struct {
	Read    func(context.Context) ([]Backlog, error)
	Timeout time.Duration // of one read; 0: 2 s
	// OnError hears of a failed read (the scrape then has no job metrics,
	// rather than stale ones); may be nil.
	OnError func(error)
}

var (
	jobsDesc = prometheus.NewDesc("marquee_jobs",
		"Background jobs not completed, by queue and state (available, scheduled, running, retryable, discarded, cancelled).",
		[]string{"queue", "state"}, nil)
	oldestDesc = prometheus.NewDesc("marquee_jobs_oldest_available_seconds",
		"How long the oldest job of a queue that is due to run has waited for a worker, in seconds; 0 when none waits.",
		[]string{"queue"}, nil)
)

func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- jobsDesc
	ch <- oldestDesc
}

func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	backlog, err := c.Read(ctx)
	if err != nil {
		if c.OnError != nil {
			c.OnError(err)
		}
		return
	}
	oldest := map[string]time.Duration{}
	for _, b := range backlog {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(b.Count), b.Queue, b.State)
		oldest[b.Queue] = max(oldest[b.Queue], b.OldestDue)
	}
	// Every queue of ours has its age, 0 when nothing waits, so an alert
	// on it has a series to watch before the first job ever waits.
	for _, q := range []string{QueuePayments, QueueMail} {
		if _, ok := oldest[q]; !ok {
			oldest[q] = 0
		}
	}
	for q, d := range oldest {
		ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, d.Seconds(), q)
	}
}

var _ prometheus.Collector = (*Collector)(nil)
