package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/catalog"
)

// maxCatalogue bounds the admin's movie list.
const maxCatalogue = 1000

// Movies lists the whole movie catalogue, with poster facts, by title: what
// an admin picks a movie to schedule from.
func (s *Store) Movies(ctx context.Context) ([]catalog.Movie, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+movieColumns+` FROM movies m LEFT JOIN posters po ON po.movie_id = m.id
		 ORDER BY lower(m.title), m.id LIMIT $1`, maxCatalogue)
	if err != nil {
		return nil, fmt.Errorf("list movies: %w", err)
	}
	movies, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.Movie, error) {
		var m catalog.Movie
		var po posterColumns
		if err := r.Scan(movieScanTargets(&m, &po)...); err != nil {
			return m, err
		}
		m.Poster = po.info()
		return m, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list movies: %w", err)
	}
	return movies, nil
}
