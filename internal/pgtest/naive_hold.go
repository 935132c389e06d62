package pgtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// ErrSeatsTaken is NaiveHold's answer when a seat is held or booked.
var ErrSeatsTaken = errors.New("seats taken")

// NaiveHold is the hold path written the obvious way, the benchmark's
// baseline for Store.HoldSeats: five statements in an explicit
// transaction, one round trip each, no lock timeout and no lock-free
// pre-check. A request for a taken seat waits for the row lock of whoever
// holds it before it learns it lost. It returns the new hold's id, or
// ErrSeatsTaken.
func NaiveHold(ctx context.Context, pool *pgxpool.Pool, req booking.HoldRequest) (string, error) {
	sorted := slices.Sorted(slices.Values(req.Seats))
	tx, err := pool.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("naive hold: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // after Commit, a no-op

	// 1. Lock the seats in the global order and read them.
	rows, err := tx.Query(ctx, `
		SELECT ss.status, coalesce(ss.hold_expires_at <= now(), false), p.price_minor
		  FROM show_seats ss
		  JOIN show_prices p ON p.show_id = ss.show_id AND p.category = ss.category
		 WHERE ss.show_id = $1 AND ss.seat_id = ANY ($2)
		 ORDER BY ss.seat_id
		   FOR UPDATE OF ss`, req.ShowID, sorted)
	if err != nil {
		return "", fmt.Errorf("naive hold: lock seats: %w", err)
	}
	var found int
	var amount int64
	free := true
	for rows.Next() {
		var status string
		var lapsed bool
		var price int64
		if err := rows.Scan(&status, &lapsed, &price); err != nil {
			rows.Close()
			return "", fmt.Errorf("naive hold: read seats: %w", err)
		}
		found++
		amount += price
		// 2. Decide in Go: every seat AVAILABLE, or HELD by a lapsed hold.
		if takeable := status == "AVAILABLE" || status == "HELD" && lapsed; !takeable {
			free = false
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("naive hold: lock seats: %w", err)
	}
	if found < len(sorted) {
		return "", fmt.Errorf("naive hold: show %d lacks some of %v", req.ShowID, sorted)
	}
	if !free {
		return "", ErrSeatsTaken
	}

	// 3. The hold.
	var holdID string
	var expiresAt time.Time
	if err := tx.QueryRow(ctx, `
		INSERT INTO holds (user_id, show_id, seat_ids, state, expires_at, amount_minor, currency, created_at)
		SELECT $1, s.id, $3, 'HELD', now() + $4 * interval '1 microsecond', $5, s.currency, now()
		  FROM shows s WHERE s.id = $2
		RETURNING id::text, expires_at`,
		req.UserID, req.ShowID, sorted, req.TTL.Microseconds(), amount).Scan(&holdID, &expiresAt); err != nil {
		return "", fmt.Errorf("naive hold: insert hold: %w", err)
	}
	// 4. Claim the seats.
	if _, err := tx.Exec(ctx, `
		UPDATE show_seats SET status = 'HELD', hold_id = $3, hold_expires_at = $4
		 WHERE show_id = $1 AND seat_id = ANY ($2)`, req.ShowID, sorted, holdID, expiresAt); err != nil {
		return "", fmt.Errorf("naive hold: claim seats: %w", err)
	}
	// 5. Record the Idempotency-Key.
	if _, err := tx.Exec(ctx, `
		INSERT INTO hold_keys (user_id, key, fingerprint, hold_id, created_at)
		VALUES ($1, $2, $3, $4, now())`, req.UserID, req.Key, req.Fingerprint(sorted), holdID); err != nil {
		return "", fmt.Errorf("naive hold: record key: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return "", fmt.Errorf("naive hold: commit: %w", err)
	}
	return holdID, nil
}
