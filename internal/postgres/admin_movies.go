package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// AdminCreateMovie adds a movie, with the audit entry that entry makes of its
// id in the same transaction, and returns its id.
func (s *Store) AdminCreateMovie(ctx context.Context, m catalog.Movie, entry func(movieID int64) audit.Entry) (int64, error) {
	var id int64
	err := s.inTx(ctx, func(tx pgx.Tx) (err error) {
		if id, err = createMovie(ctx, tx, m); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(id))
	})
	if err != nil {
		return 0, fmt.Errorf("admin: %w", err)
	}
	return id, nil
}

// AdminSetPoster stores p as movieID's poster, with the audit entry that entry
// makes of it in the same transaction, or fails with booking.ErrNotFound
// for an unknown movie.
func (s *Store) AdminSetPoster(ctx context.Context, movieID int64, p catalog.Poster,
	entry func(catalog.PosterInfo) audit.Entry) (catalog.PosterInfo, error) {
	var info catalog.PosterInfo
	err := s.inTx(ctx, func(tx pgx.Tx) (err error) {
		if info, err = s.setPoster(ctx, tx, movieID, p); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(info))
	})
	if err != nil {
		return info, fmt.Errorf("admin: %w", err)
	}
	return info, nil
}
