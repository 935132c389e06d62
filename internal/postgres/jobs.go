package postgres

import (
	"context"
	"fmt"

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
