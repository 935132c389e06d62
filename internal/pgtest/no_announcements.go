package pgtest

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed no_announcements.sql
var noAnnouncementsSQL string

// NoAnnouncements turns a database at the latest schema into the hold path
// without announcements: hold_seats and end_hold as they are today minus
// their own seat_events inserts (and the SET clause that keeps the trigger
// off while they run), and the show_seats_changed trigger of
// no_announcements.sql without its WHEN clause (cmd/bench -live disables it
// for its baseline). The functions are derived from the database's own
// definitions, so the fixture decides exactly as today's hold path does
// whatever that becomes. It returns restore, which puts back what it
// replaced.
func NoAnnouncements(ctx context.Context, pool *pgxpool.Pool) (restore func(context.Context) error, err error) {
	saved, err := holdPathDefinitions(ctx, pool)
	if err != nil {
		return nil, err
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for _, def := range saved.functions {
			quiet, err := withoutSeatEvents(def)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, quiet); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, noAnnouncementsSQL)
		return err
	})
	if err != nil {
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

var (
	// seatEventsInsert is a function's own announcement of the seats it changed.
	seatEventsInsert = regexp.MustCompile(`INSERT INTO seat_events \(show_id, seat_ids\) VALUES \([^;]*\);`)
	// seatEventsSetting is the SET clause under which the trigger stands aside.
	seatEventsSetting = regexp.MustCompile(`(?m)^ *SET "?marquee\.seat_events"? (TO|=) 'recorded'\n`)
)

// withoutSeatEvents is a function definition (pg_get_functiondef's CREATE OR
// REPLACE) with its seat_events inserts replaced by NULL statements, which
// keeps any IF around them valid, and without the SET clause.
func withoutSeatEvents(def string) (string, error) {
	if !seatEventsInsert.MatchString(def) || !seatEventsSetting.MatchString(def) {
		head, _, _ := strings.Cut(def, "\n")
		return "", fmt.Errorf("no seat_events insert or SET clause to take out of %s", head)
	}
	def = seatEventsInsert.ReplaceAllString(def, "NULL; -- no announcement of its own")
	return seatEventsSetting.ReplaceAllString(def, ""), nil
}
