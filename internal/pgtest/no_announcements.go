package pgtest

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed no_announcements.sql
var noAnnouncementsSQL string

// NoAnnouncements applies the no_announcements.sql fixture to a database at
// the latest schema: hold_seats and end_hold that write no seat_events rows
// themselves, and the show_seats_changed trigger without its WHEN clause
// (cmd/bench -live disables it for its baseline). It returns restore, which
// puts back the definitions the fixture replaced, read from the database
// before it ran: the fixture never needs to know today's versions.
func NoAnnouncements(ctx context.Context, pool *pgxpool.Pool) (restore func(context.Context) error, err error) {
	saved, err := holdPathDefinitions(ctx, pool)
	if err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, noAnnouncementsSQL); err != nil {
		return nil, fmt.Errorf("apply the no-announcements fixture: %w", err)
	}
	return func(ctx context.Context) error {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			for _, def := range saved.functions {
				if _, err := tx.Exec(ctx, def); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `DROP TRIGGER show_seats_changed ON show_seats`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, saved.trigger)
			return err
		})
		if err != nil {
			return fmt.Errorf("restore the hold path after the no-announcements fixture: %w", err)
		}
		return nil
	}, nil
}

// holdPath is what the fixture replaces, as CREATE statements.
type holdPath struct {
	functions []string // CREATE OR REPLACE FUNCTION hold_seats, end_hold
	trigger   string   // CREATE TRIGGER show_seats_changed
}

func holdPathDefinitions(ctx context.Context, pool *pgxpool.Pool) (holdPath, error) {
	var h holdPath
	rows, err := pool.Query(ctx, `
		SELECT pg_get_functiondef(p.oid) FROM pg_proc p
		 WHERE p.proname IN ('hold_seats', 'end_hold') AND p.pronamespace = 'public'::regnamespace
		 ORDER BY p.proname`)
	if err != nil {
		return h, fmt.Errorf("read the hold path's functions: %w", err)
	}
	if h.functions, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return h, fmt.Errorf("read the hold path's functions: %w", err)
	}
	if len(h.functions) != 2 {
		return h, fmt.Errorf("read the hold path's functions: %d of hold_seats and end_hold, want one each", len(h.functions))
	}
	if err := pool.QueryRow(ctx, `
		SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t
		 WHERE t.tgrelid = 'show_seats'::regclass AND t.tgname = 'show_seats_changed'`).Scan(&h.trigger); err != nil {
		return h, fmt.Errorf("read the show_seats_changed trigger: %w", err)
	}
	return h, nil
}
