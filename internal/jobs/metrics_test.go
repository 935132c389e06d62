package jobs_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The backlog's metrics count each queue's jobs by state, and say how long
// the oldest job due has waited: the figure to alert on when a queue has
// no worker (mail without SMTP_URL) or too few.
func TestBacklogMetrics(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	c := &jobs.Collector{Read: s.JobBacklog, OnError: func(err error) { t.Errorf("read the backlog: %v", err) }}
	// compare checks the scrape: jobs by queue and state ("mail/available"),
	// and the oldest wait of each queue in seconds.
	compare := func(counts, oldest map[string]int) {
		t.Helper()
		want := new(strings.Builder)
		if len(counts) > 0 {
			want.WriteString("# HELP marquee_jobs Background jobs not completed, by queue and state (available, scheduled, running, retryable, discarded, cancelled).\n# TYPE marquee_jobs gauge\n")
			for _, k := range slices.Sorted(maps.Keys(counts)) {
				queue, state, _ := strings.Cut(k, "/")
				fmt.Fprintf(want, "marquee_jobs{queue=%q,state=%q} %d\n", queue, state, counts[k])
			}
		}
		want.WriteString("# HELP marquee_jobs_oldest_available_seconds How long the oldest job of a queue that is due to run has waited for a worker, in seconds; 0 when none waits.\n# TYPE marquee_jobs_oldest_available_seconds gauge\n")
		for _, q := range slices.Sorted(maps.Keys(oldest)) {
			fmt.Fprintf(want, "marquee_jobs_oldest_available_seconds{queue=%q} %d\n", q, oldest[q])
		}
		if err := testutil.CollectAndCompare(c, strings.NewReader(want.String()), "marquee_jobs", "marquee_jobs_oldest_available_seconds"); err != nil {
			t.Fatal(err)
		}
	}

	// Nothing queued: every queue's age is there, at 0.
	compare(nil, map[string]int{"mail": 0, "payments": 0})

	inserter, err := jobs.NewInserter(s.Pool())
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) *river.InsertOpts { return &river.InsertOpts{ScheduledAt: clock.Now().Add(d)} }
	if _, err := inserter.InsertMany(ctx, []river.InsertManyParams{
		{Args: jobs.Mail{MailID: 1}, InsertOpts: at(-90 * time.Second)},
		{Args: jobs.Mail{MailID: 2}, InsertOpts: at(-30 * time.Second)},
		{Args: jobs.Mail{MailID: 3}, InsertOpts: at(time.Hour)},
		{Args: jobs.Refund{RefundID: "r1"}, InsertOpts: at(-5 * time.Second)},
		{Args: jobs.Refund{RefundID: "r2"}, InsertOpts: at(-time.Hour)},
	}); err != nil {
		t.Fatal(err)
	}
	// River's scheduler makes the jobs whose time has come available; the
	// refund due an hour ago gave up, and no longer waits.
	pgtest.Exec(t, s.Pool(), `UPDATE river_job SET state = 'available' WHERE scheduled_at <= $1`, clock.Now())
	pgtest.Exec(t, s.Pool(), `UPDATE river_job SET state = 'discarded', finalized_at = now() WHERE args->>'refund_id' = 'r2'`)

	compare(map[string]int{"mail/available": 2, "mail/scheduled": 1, "payments/available": 1, "payments/discarded": 1},
		map[string]int{"mail": 90, "payments": 5})

	// Two hours pass with no worker: the waits grow, and the mail
	// scheduled in an hour is due too, an hour ago.
	clock.Set(clock.Now().Add(2 * time.Hour))
	compare(map[string]int{"mail/available": 2, "mail/scheduled": 1, "payments/available": 1, "payments/discarded": 1},
		map[string]int{"mail": 7290, "payments": 7205})

	// A worker takes the queues up: nothing waits, and completed jobs are
	// not counted.
	pgtest.Exec(t, s.Pool(), `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE state IN ('available', 'scheduled')`)
	compare(map[string]int{"payments/discarded": 1}, map[string]int{"mail": 0, "payments": 0})
}
