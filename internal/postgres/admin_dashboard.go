package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/catalog"
)

// TheatreShowCounts counts the scheduled shows of each of theatreIDs; a
// theatre with no show has zero counts.
func (s *Store) TheatreShowCounts(ctx context.Context, theatreIDs []int64) (map[int64]catalog.ShowCounts, error) {
	out := make(map[int64]catalog.ShowCounts, len(theatreIDs))
	if len(theatreIDs) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `
		WITH clock AS (SELECT coalesce($2::timestamptz, now()) AS now),
		     days AS (
		       SELECT t.id, date_trunc('day', c.now AT TIME ZONE t.timezone) AT TIME ZONE t.timezone AS day_start
		         FROM theatres t, clock c WHERE t.id = ANY($1))
		SELECT d.id,
		       count(sh.id) FILTER (WHERE sh.starts_at >= d.day_start AND sh.starts_at < d.day_start + interval '1 day'),
		       count(sh.id) FILTER (WHERE sh.starts_at > c.now),
		       min(sh.starts_at) FILTER (WHERE sh.starts_at > c.now),
		       (array_agg(sh.id ORDER BY sh.starts_at, sh.id) FILTER (WHERE sh.starts_at > c.now))[1]
		  FROM days d CROSS JOIN clock c
		  LEFT JOIN screens sc ON sc.theatre_id = d.id
		  LEFT JOIN shows sh ON sh.screen_id = sc.id AND sh.status = 'SCHEDULED'
		       AND (sh.starts_at >= d.day_start OR sh.starts_at > c.now)
		 GROUP BY d.id`, theatreIDs, s.now())
	if err != nil {
		return nil, fmt.Errorf("count shows: %w", err)
	}
	counts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[catalog.ShowCounts])
	if err != nil {
		return nil, fmt.Errorf("count shows: %w", err)
	}
	for _, c := range counts {
		out[c.TheatreID] = c
	}
	return out, nil
}
