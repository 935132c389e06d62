package pgtest

import (
	"context"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// naiveNotifySQL installs the naive announcement cmd/bench -live compares
// with: a statement-level trigger that calls pg_notify inside the
// transaction that changed the seats, one NOTIFY per statement and show,
// naming the changed seats in the payload the listener reads
// ({"show":id,"seats":[...],"at":ms}). A hold and a release are one UPDATE
// of show_seats each, so each sends one NOTIFY. It starts disabled. %s is
// the channel, a quoted literal.
const naiveNotifySQL = `
CREATE FUNCTION bench_notify_seat_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(%s,
                      json_build_object('show', show_id, 'seats', json_agg(seat_id ORDER BY seat_id),
                                        'at', (extract(epoch FROM clock_timestamp()) * 1000)::bigint)::text)
       FROM changed GROUP BY show_id;
    RETURN NULL;
END $$;
CREATE TRIGGER bench_show_seats_notify AFTER UPDATE ON show_seats
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION bench_notify_seat_changes();
ALTER TABLE show_seats DISABLE TRIGGER bench_show_seats_notify;`

var channelName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// InstallNaiveNotify installs the naive pg_notify trigger on channel,
// disabled; SetAnnouncementTriggers turns it on.
func InstallNaiveNotify(ctx context.Context, pool *pgxpool.Pool, channel string) error {
	if !channelName.MatchString(channel) {
		return fmt.Errorf("install the naive notify trigger: %q is not a plain channel name", channel)
	}
	if _, err := pool.Exec(ctx, fmt.Sprintf(naiveNotifySQL, "'"+channel+"'")); err != nil {
		return fmt.Errorf("install the naive notify trigger: %w", err)
	}
	return nil
}

// SetAnnouncementTriggers enables or disables the seat_events trigger
// (show_seats_changed) and the naive pg_notify trigger of
// InstallNaiveNotify.
func SetAnnouncementTriggers(ctx context.Context, pool *pgxpool.Pool, events, naive bool) error {
	state := func(on bool) string {
		if on {
			return "ENABLE"
		}
		return "DISABLE"
	}
	if _, err := pool.Exec(ctx, fmt.Sprintf(
		`ALTER TABLE show_seats %s TRIGGER show_seats_changed, %s TRIGGER bench_show_seats_notify`,
		state(events), state(naive))); err != nil {
		return fmt.Errorf("set the announcement triggers: %w", err)
	}
	return nil
}

// CountSeatEvents is how many rows seat_events has, through q (a pool or a
// connection of its own).
func CountSeatEvents(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int64, error) {
	var n int64
	if err := q.QueryRow(ctx, `SELECT count(*) FROM seat_events`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count seat_events: %w", err)
	}
	return n, nil
}

// ClearSeatEvents empties seat_events.
func ClearSeatEvents(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, `TRUNCATE seat_events`); err != nil {
		return fmt.Errorf("clear seat_events: %w", err)
	}
	return nil
}

// Listen runs LISTEN channel on conn.
func Listen(ctx context.Context, conn *pgx.Conn, channel string) error {
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("listen on %s: %w", channel, err)
	}
	return nil
}
