package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// WorkJobs works, one at a time and in the test's goroutine, every job of
// worker's kind that is due by the store's clock (new, or failed and past
// its retry's wait), as River's runner would, and returns how many
// completed. A test of what a job does then needs no runner polling in the
// background, and no wait.
func WorkJobs[T river.JobArgs](tb testing.TB, s *postgres.Store, worker river.Worker[T]) int {
	tb.Helper()
	ctx := context.Background()
	var kind T
	now := time.Now()
	if s.Clock != nil {
		now = s.Clock()
	}
	ids := Scalar[[]int64](tb, s.Pool(), `
		SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM river_job
		 WHERE kind = $1 AND state IN ('available', 'retryable', 'scheduled') AND scheduled_at <= $2`,
		kind.Kind(), now)
	driver := riverpgxv5.New(s.Pool())
	client, err := river.NewClient(driver, &river.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	// River's retry waits, counted from the store's clock.
	cfg := &river.Config{RetryPolicy: &river.DefaultClientRetryPolicy{}}
	if s.Clock != nil {
		cfg.Test.Time = jobs.Clock(s.Clock)
	}
	w := rivertest.NewWorker(tb, driver, cfg, worker)
	done := 0
	for _, id := range ids {
		row, err := client.JobGet(ctx, id)
		if err != nil {
			tb.Fatalf("job %d: %v", id, err)
		}
		err = pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
			res, err := w.WorkJob(ctx, tb, tx, row)
			if res == nil {
				return err // River's own failure; a job's is in res
			}
			if res.EventKind == river.EventKindJobCompleted {
				done++
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("work job %d: %v", id, err)
		}
	}
	return done
}
