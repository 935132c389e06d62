package holdbench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/seed"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Holder is one way of taking a hold. Every holder is driven by the same
// clients on the same workloads.
type Holder interface {
	Name() string
	// Hold asks for seats of show as c's user under a fresh Idempotency-Key
	// and returns the hold's id, or ErrConflict when a seat is taken.
	Hold(ctx context.Context, c *Client, showID int64, seats []string) (string, error)
	// Release cancels c's hold holdID, freeing its seats. It is not timed.
	Release(ctx context.Context, c *Client, holdID string) error
}

// ErrConflict is the 409 seats_unavailable answer: an attempt that lost.
var ErrConflict = errors.New("seats unavailable")

// Client is one simulated customer: its own user, so that one active hold
// per user never couples two clients.
type Client struct {
	seed.User
	N    int // index, also the index of its user
	keys int // requests so far: makes every Idempotency-Key fresh
}

// NextKey is a fresh Idempotency-Key.
func (c *Client) NextKey() string {
	c.keys++
	return fmt.Sprintf("bench-%d-%d", c.N, c.keys)
}

// Clients are one client per user, in order.
func Clients(users []seed.User) []*Client {
	out := make([]*Client, len(users))
	for i, u := range users {
		out[i] = &Client{User: u, N: i}
	}
	return out
}

// SQL is the store's hold: the hold_seats function, one round trip.
type SQL struct {
	Store *postgres.Store
	TTL   time.Duration
}

func (*SQL) Name() string { return "SQL" }

func (s *SQL) Hold(ctx context.Context, c *Client, showID int64, seats []string) (string, error) {
	res, err := s.Store.HoldSeats(ctx, booking.HoldRequest{
		UserID: c.ID, ShowID: showID, Seats: seats, TTL: s.TTL, Key: c.NextKey(),
	}, seed.MaxSeatsPerHold)
	var unavailable *booking.SeatsUnavailableError
	if errors.As(err, &unavailable) {
		return "", ErrConflict
	}
	if err != nil {
		return "", err
	}
	return res.Hold.ID, nil
}

func (s *SQL) Release(ctx context.Context, c *Client, holdID string) error {
	_, err := s.Store.CancelHold(ctx, c.ID, holdID)
	return err
}

// Naive is the hold path written the obvious way (pgtest.NaiveHold): five
// statements in an explicit transaction, one round trip each, no lock
// timeout and no lock-free pre-check.
type Naive struct {
	Pool  *pgxpool.Pool
	Store *postgres.Store // only to release: the same CancelHold as the others
	TTL   time.Duration
}

func (*Naive) Name() string { return "naive" }

func (n *Naive) Hold(ctx context.Context, c *Client, showID int64, seats []string) (string, error) {
	id, err := pgtest.NaiveHold(ctx, n.Pool, booking.HoldRequest{UserID: c.ID, ShowID: showID, Seats: seats, TTL: n.TTL, Key: c.NextKey()})
	if errors.Is(err, pgtest.ErrSeatsTaken) {
		return "", ErrConflict
	}
	return id, err
}

// Release uses the store's CancelHold, exactly as the SQL holder does, so
// the holders differ only in the hold they time.
func (n *Naive) Release(ctx context.Context, c *Client, holdID string) error {
	_, err := n.Store.CancelHold(ctx, c.ID, holdID)
	return err
}

// HTTP is the real API (appserver.Start) through the load client: each
// client a signed-in user on a keep-alive connection of its own.
type HTTP struct {
	conns []*apiclient.Conn // by client index
}

// NewHTTP signs every user in on the server at base, whose session cookie
// is cookieName.
func NewHTTP(ctx context.Context, base, cookieName string, users []seed.User) (*HTTP, error) {
	h := &HTTP{conns: make([]*apiclient.Conn, len(users))}
	var wg sync.WaitGroup
	errs := make([]error, len(users))
	for i, u := range users {
		wg.Go(func() {
			h.conns[i], errs[i] = apiclient.Login(ctx, base, cookieName, u.Email, seed.Password)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// Close closes every client's connection.
func (h *HTTP) Close() {
	for _, c := range h.conns {
		if c != nil {
			c.Close()
		}
	}
}

func (*HTTP) Name() string { return "HTTP" }

func (h *HTTP) Hold(_ context.Context, c *Client, showID int64, seats []string) (string, error) {
	id, err := h.conns[c.N].Hold(showID, seats, c.NextKey())
	if errors.Is(err, apiclient.ErrSeatsUnavailable) {
		return "", ErrConflict
	}
	return id, err
}

func (h *HTTP) Release(_ context.Context, c *Client, holdID string) error {
	return h.conns[c.N].Release(holdID)
}
