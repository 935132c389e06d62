package peerbench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/appserver"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// errConflict is a hold lost to another: a seat was not available.
var errConflict = errors.New("seats unavailable")

// client is one simulated customer, signed in as a user of its own on
// each system, over a keep-alive connection of its own to each.
type client struct {
	n         int
	userID    string          // its Marquee user
	marquee   *apiclient.Conn // signed in to Marquee
	keys      int             // Marquee holds asked for: makes every Idempotency-Key fresh
	peer      *apiclient.Conn // signed in to overbookr
	peerBase  string
	peerToken string    // what peer sends as Authorization: Bearer
	peerUsed  time.Time // when peer last carried a request
}

// held is a hold a system confirmed: what releasing it takes.
type held struct {
	ref   string // Marquee's hold id, overbookr's hold token
	seats int
}

// system is one of the two servers compared, as the clients drive it.
type system interface {
	Name() string
	// Hold asks for seats of the show (a Marquee show id; overbookr's
	// event for it) as c, or returns errConflict.
	Hold(c *client, showID int64, seats []string) (held, error)
	// Release gives h back and returns how many seats it made available.
	Release(ctx context.Context, c *client, h held) (int, error)
	// PID is the server process's id.
	PID() int
	// Pool is the benchmark's pool on the system's database.
	Pool() *pgxpool.Pool
	// Settle puts the database in the same state before every cell and
	// returns how many seats it found still held.
	Settle(ctx context.Context) (int64, error)
	// Ready readies c's connection for a cell.
	Ready(ctx context.Context, c *client) error
}

// marquee is Marquee's server in a child process (appserver.StartChild: the
// live seat map wired as serve wires it, rate limits off).
type marquee struct {
	child *appserver.Child
	store *postgres.Store
	pool  *pgxpool.Pool
	// releaseAPI: holds are given back through DELETE /api/v1/holds/{id};
	// otherwise in the database (Store.CancelHold, what that route calls),
	// as overbookr's are.
	releaseAPI bool
}

func (*marquee) Name() string { return MarqueeName }

func (m *marquee) Hold(c *client, showID int64, seats []string) (held, error) {
	c.keys++
	id, err := c.marquee.Hold(showID, seats, fmt.Sprintf("peer-%d-%d", c.n, c.keys))
	if errors.Is(err, apiclient.ErrSeatsUnavailable) {
		return held{}, errConflict
	}
	return held{id, len(seats)}, err
}

func (m *marquee) Release(ctx context.Context, c *client, h held) (int, error) {
	if m.releaseAPI {
		if err := c.marquee.Release(h.ref); err != nil {
			return 0, err
		}
		return h.seats, nil
	}
	hold, err := m.store.CancelHold(ctx, c.userID, h.ref)
	if err != nil {
		return 0, fmt.Errorf("release: %w", err)
	}
	if hold.State != booking.HoldCancelled {
		return 0, fmt.Errorf("release: the hold is %s, not cancelled", hold.State)
	}
	return len(hold.Seats), nil
}

func (m *marquee) PID() int            { return m.child.PID() }
func (m *marquee) Pool() *pgxpool.Pool { return m.pool }

func (m *marquee) Settle(ctx context.Context) (int64, error) { return pgtest.Settle(ctx, m.pool) }

// Ready has nothing to do: Marquee's server keeps an idle connection open.
func (*marquee) Ready(context.Context, *client) error { return nil }

// overbookr is the peer's server in a child process. Its API has no way to
// give a hold back, so a hold is given back as its expiry worker ends one,
// in its database (pgtest.ExpirePeerHold).
type overbookr struct {
	server *peerServer
	pool   *pgxpool.Pool
	events map[int64]string // by the Marquee show it stands for
}

func (*overbookr) Name() string { return PeerName }

func (o *overbookr) Hold(c *client, showID int64, seats []string) (held, error) {
	token, err := peerHold(c.peer, o.events[showID], seats)
	c.peerUsed = time.Now()
	return held{token, len(seats)}, err
}

func (o *overbookr) Release(ctx context.Context, _ *client, h held) (int, error) {
	n, err := pgtest.ExpirePeerHold(ctx, o.pool, h.ref)
	if err == nil && int(n) != h.seats {
		err = fmt.Errorf("release: %d of the hold's %d seats made available", n, h.seats)
	}
	return int(n), err
}

func (o *overbookr) PID() int            { return o.server.PID() }
func (o *overbookr) Pool() *pgxpool.Pool { return o.pool }

func (o *overbookr) Settle(ctx context.Context) (int64, error) { return pgtest.SettlePeer(ctx, o.pool) }

// peerIdle is how long a connection to overbookr may have been idle and
// still be used: its server closes one idle for 60 s (IdleTimeout), which
// a client whose connection sat out the cells of fewer clients and the
// other system's would find only when its next hold failed.
const peerIdle = 45 * time.Second

// Ready gives c a new connection to overbookr, with the same token, when
// its own has been idle for peerIdle.
func (o *overbookr) Ready(ctx context.Context, c *client) error {
	if time.Since(c.peerUsed) < peerIdle {
		return nil
	}
	conn, err := apiclient.Dial(ctx, c.peerBase)
	if err != nil {
		return fmt.Errorf("overbookr: connect again: %w", err)
	}
	conn.SetBearer(c.peerToken)
	c.peer.Close()
	c.peer, c.peerUsed = conn, time.Now()
	return nil
}
