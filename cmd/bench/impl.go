package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// impl is one way of taking a hold. Every implementation is driven by the
// same clients on the same workloads.
type impl interface {
	name() string
	// hold asks for seats of show as c's user under a fresh Idempotency-Key
	// and returns the hold's id, or errConflict when a seat is taken.
	hold(ctx context.Context, c *client, showID int64, seats []string) (string, error)
	// release cancels c's hold holdID, freeing its seats. It is not timed.
	release(ctx context.Context, c *client, holdID string) error
}

// errConflict is the 409 seats_unavailable answer: an attempt that lost.
var errConflict = errors.New("seats unavailable")

// client is one simulated customer: its own user, so that one active hold
// per user never couples two clients.
type client struct {
	user
	n    int // index, also the index of its user
	keys int // requests so far: makes every Idempotency-Key fresh
}

func (c *client) nextKey() string {
	c.keys++
	return fmt.Sprintf("bench-%d-%d", c.n, c.keys)
}

// sqlImpl is the store's hold: the hold_seats function, one round trip.
type sqlImpl struct {
	store *postgres.Store
	ttl   time.Duration
}

func (*sqlImpl) name() string { return "SQL" }

func (s *sqlImpl) hold(ctx context.Context, c *client, showID int64, seats []string) (string, error) {
	res, err := s.store.HoldSeats(ctx, booking.HoldRequest{
		UserID: c.id, ShowID: showID, Seats: seats, TTL: s.ttl, Key: c.nextKey(),
	}, maxSeatsPerHold)
	var unavailable *booking.SeatsUnavailableError
	if errors.As(err, &unavailable) {
		return "", errConflict
	}
	if err != nil {
		return "", err
	}
	return res.Hold.ID, nil
}

func (s *sqlImpl) release(ctx context.Context, c *client, holdID string) error {
	_, err := s.store.CancelHold(ctx, c.id, holdID)
	return err
}

// naiveImpl is DESIGN.md's hold path written the obvious way: five
// statements in an explicit transaction, one round trip each, no lock
// timeout and no lock-free pre-check. A request for a taken seat waits for
// the row lock of whoever holds it before it learns it lost.
type naiveImpl struct {
	pool  *pgxpool.Pool
	store *postgres.Store // only to release: the same CancelHold as the others
	ttl   time.Duration
}

func (*naiveImpl) name() string { return "naive" }

func (n *naiveImpl) hold(ctx context.Context, c *client, showID int64, seats []string) (string, error) {
	sorted := slices.Sorted(slices.Values(seats))
	req := booking.HoldRequest{UserID: c.id, ShowID: showID, Seats: sorted, TTL: n.ttl, Key: c.nextKey()}

	tx, err := n.pool.Begin(ctx)
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
		   FOR UPDATE OF ss`, showID, sorted)
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
		if status != "AVAILABLE" && !(status == "HELD" && lapsed) {
			free = false
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("naive hold: lock seats: %w", err)
	}
	if found < len(sorted) {
		return "", fmt.Errorf("naive hold: show %d lacks some of %v", showID, sorted)
	}
	if !free {
		return "", errConflict
	}

	// 3. The hold.
	var holdID string
	var expiresAt time.Time
	if err := tx.QueryRow(ctx, `
		INSERT INTO holds (user_id, show_id, seat_ids, state, expires_at, amount_minor, currency, created_at)
		SELECT $1, s.id, $3, 'HELD', now() + $4 * interval '1 microsecond', $5, s.currency, now()
		  FROM shows s WHERE s.id = $2
		RETURNING id::text, expires_at`,
		c.id, showID, sorted, n.ttl.Microseconds(), amount).Scan(&holdID, &expiresAt); err != nil {
		return "", fmt.Errorf("naive hold: insert hold: %w", err)
	}
	// 4. Claim the seats.
	if _, err := tx.Exec(ctx, `
		UPDATE show_seats SET status = 'HELD', hold_id = $3, hold_expires_at = $4
		 WHERE show_id = $1 AND seat_id = ANY ($2)`, showID, sorted, holdID, expiresAt); err != nil {
		return "", fmt.Errorf("naive hold: claim seats: %w", err)
	}
	// 5. Record the Idempotency-Key.
	if _, err := tx.Exec(ctx, `
		INSERT INTO hold_keys (user_id, key, fingerprint, hold_id, created_at)
		VALUES ($1, $2, $3, $4, now())`, c.id, req.Key, req.Fingerprint(sorted), holdID); err != nil {
		return "", fmt.Errorf("naive hold: record key: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return "", fmt.Errorf("naive hold: commit: %w", err)
	}
	return holdID, nil
}

// release uses the store's CancelHold, exactly as the SQL implementation
// does, so the three implementations differ only in the hold they time.
func (n *naiveImpl) release(ctx context.Context, c *client, holdID string) error {
	_, err := n.store.CancelHold(ctx, c.id, holdID)
	return err
}
