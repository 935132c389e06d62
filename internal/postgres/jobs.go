package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Jobs lists the newest background jobs in states (all when none), at
// most limit, for the platform's jobs page.
func (s *Store) Jobs(ctx context.Context, limit int, states ...rivertype.JobState) ([]*rivertype.JobRow, error) {
	params := river.NewJobListParams().First(limit).OrderBy(river.JobListOrderByID, river.SortOrderDesc)
	if len(states) > 0 {
		params = params.States(states...)
	}
	res, err := s.jobs.JobList(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return res.Jobs, nil
}

// JobCounts counts the background jobs in each state.
func (s *Store) JobCounts(ctx context.Context) (map[rivertype.JobState]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT state::text, count(*) FROM river_job GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	counts := map[rivertype.JobState]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("count jobs: %w", err)
		}
		counts[rivertype.JobState(state)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	return counts, nil
}

// JobBacklog counts the background jobs of each queue in each state but
// completed (kept a week, they would make the count a scan of the table:
// 80 ms at half a million, against 3 ms by River's index), with
// how long the oldest one due has waited (by the store's clock): available,
// or scheduled or retrying with its time come (River's scheduler makes
// those available within seconds, whichever queues its instance works).
func (s *Store) JobBacklog(ctx context.Context) ([]jobs.Backlog, error) {
	rows, err := s.pool.Query(ctx, `
		WITH now AS (SELECT coalesce($1::timestamptz, now()) AS t)
		SELECT queue, state::text, count(*),
		       coalesce(extract(epoch FROM t - min(scheduled_at) FILTER (
		           WHERE state IN ('available', 'scheduled', 'retryable') AND scheduled_at <= t)), 0)
		  FROM river_job, now
		 WHERE state IN ('available', 'pending', 'scheduled', 'running', 'retryable', 'discarded', 'cancelled')
		 GROUP BY queue, state, t ORDER BY queue, state`, s.now())
	if err != nil {
		return nil, fmt.Errorf("count jobs by queue: %w", err)
	}
	backlog, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (jobs.Backlog, error) {
		var b jobs.Backlog
		var oldest float64
		err := row.Scan(&b.Queue, &b.State, &b.Count, &oldest)
		b.OldestDue = max(0, time.Duration(oldest*float64(time.Second)))
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("count jobs by queue: %w", err)
	}
	return backlog, nil
}
