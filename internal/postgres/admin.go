package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// insertAudit writes an admin change's audit entry in the change's own
// transaction: the change and its record commit or roll back together.
// The entry's time is the store's clock.
func (s *Store) insertAudit(ctx context.Context, tx pgx.Tx, e audit.Entry) error {
	before, err := auditJSON(e.Before)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	after, err := auditJSON(e.After)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	var theatre *int64
	if e.TheatreID != 0 {
		theatre = &e.TheatreID
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO audit_log (at, actor_id, theatre_id, action, object, before, after)
		VALUES (coalesce($1::timestamptz, clock_timestamp()), $2, $3, $4, $5, $6, $7)`,
		s.now(), e.ActorID, theatre, e.Action, e.Object, before, after); err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}

// auditJSON is v as JSON for the audit log, or nil (SQL NULL) for nil.
func auditJSON(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// TheatreOfScreen is the theatre a screen belongs to, or booking.ErrNotFound.
func (s *Store) TheatreOfScreen(ctx context.Context, screenID int64) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT theatre_id FROM screens WHERE id = $1`, screenID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("screen %d: %w", screenID, booking.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("theatre of screen %d: %w", screenID, err)
	}
	return id, nil
}

// TheatreOfShow is the theatre a show (scheduled or cancelled) plays in, or
// booking.ErrNotFound.
func (s *Store) TheatreOfShow(ctx context.Context, showID int64) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `
		SELECT sc.theatre_id FROM shows sh JOIN screens sc ON sc.id = sh.screen_id WHERE sh.id = $1`, showID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("theatre of show %d: %w", showID, err)
	}
	return id, nil
}
