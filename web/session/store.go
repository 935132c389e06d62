package session

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/marquee-tickets/marquee/internal/cachemap"
)

const (
	// sessionCacheTTL is how long a session read from the database is
	// trusted without reading it again. It bounds how long a session ended
	// through another instance (a logout there) still works here; one ended
	// through this instance ends at once.
	sessionCacheTTL = 5 * time.Second

	// maxCachedSessions bounds the cache (a session is some 300 bytes in
	// it: 15 MB at most). A crowd of 10,000 signed-in people fits in half
	// of it, a generation of cachemap.Map, so none of them is read again before
	// the TTL.
	maxCachedSessions = 50_000
)

// Rows is the sessions table as the store uses it (postgres.SessionStore).
type Rows interface {
	// FindWithExpiry returns a live session with its stored expiry.
	FindWithExpiry(ctx context.Context, token string) ([]byte, time.Time, bool, error)
	// CommitCtx stores a session's data and expiry.
	CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error
	// Touch moves a live session's expiry on, never back, and returns the
	// expiry stored; found is false for a session that has ended.
	Touch(ctx context.Context, token string, expiry time.Time) (stored time.Time, found bool, err error)
	// DeleteCtx deletes a session.
	DeleteCtx(ctx context.Context, token string) error
}

// cachedStore is the sessions' store for scs: the sessions table behind a
// cache of the sessions used in the last TTL, and the keeper of each
// session's idle expiry.
//
// Reading: a session used again within the TTL costs no round trip. Every
// write and delete through this instance updates the cache at once; a
// change through another instance is seen here within the TTL. A cached
// session is never served past its stored expiry.
//
// Idleness: scs keeps each session's absolute deadline (sign-in plus the
// lifetime) and commits the session with it; the store stores the sooner of
// that deadline and now plus idle as the row's expiry, on its own clock. A
// commit of unchanged data that would move the stored expiry on by less
// than grain writes nothing; one that moves it by grain or more writes the
// expiry alone (Touch), so a session in use costs at most one write per
// grain, and a page view within it none. The stored expiry is thus always
// at least idle-grain after the session's last use: a session ends between
// idle-grain and idle after its last request. The table gives the stored
// expiry with the data, so a session read from it (after the TTL, or
// written by another instance) is not written again on its first use.
type cachedStore struct {
	rows    Rows
	ttl     time.Duration
	idle    time.Duration
	grain   time.Duration
	now     func() time.Time
	entries *cachemap.Map[string, cachedSession]
}

type cachedSession struct {
	data    []byte
	expiry  time.Time // as stored
	fetched time.Time // when the data was last read from or written to the table
	// ended: deleted through this instance. It is not found, nor read again
	// within the TTL, even by a read that was under way.
	ended bool
}

func newCachedStore(rows Rows, ttl, idle, grain time.Duration, now func() time.Time) *cachedStore {
	return &cachedStore{rows: rows, ttl: ttl, idle: idle, grain: grain, now: now,
		entries: cachemap.New[string, cachedSession](maxCachedSessions)}
}

// expiry is the expiry of a session with deadline committed at now.
func (c *cachedStore) expiry(deadline, now time.Time) time.Time {
	if idle := now.Add(c.idle); idle.Before(deadline) {
		return idle
	}
	return deadline
}

// Find returns the session stored under token (a hash of the cookie's token).
func (c *cachedStore) Find(token string) ([]byte, bool, error) {
	return c.FindCtx(context.Background(), token)
}

// FindCtx is Find within the request's context: a database out of reach
// cannot hold the request past its deadline.
func (c *cachedStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	now := c.now()
	if e, ok := c.entries.Get(token); ok && now.Sub(e.fetched) < c.ttl {
		if e.ended {
			return nil, false, nil
		}
		if now.Before(e.expiry) {
			return e.data, true, nil
		}
		// Past the expiry known here: another instance may have moved it
		// on, the table says.
	}
	b, expiry, found, err := c.rows.FindWithExpiry(ctx, token)
	if err != nil {
		return nil, false, err
	}
	c.entries.Update(token, func(e cachedSession, ok bool) (cachedSession, bool) {
		if ok && e.ended {
			found = false // ended here while the table was read
			return e, true
		}
		return cachedSession{data: b, expiry: expiry, fetched: now}, found
	})
	if !found {
		return nil, false, nil
	}
	return b, true, nil
}

// Commit stores the session with the expiry due for deadline now. Storing
// the same data again moves only the expiry, and only by grain or more.
func (c *cachedStore) Commit(token string, b []byte, deadline time.Time) error {
	return c.CommitCtx(context.Background(), token, b, deadline)
}

// CommitCtx is Commit within the request's context.
func (c *cachedStore) CommitCtx(ctx context.Context, token string, b []byte, deadline time.Time) error {
	now := c.now()
	expiry := c.expiry(deadline, now)
	if e, ok := c.entries.Get(token); ok && !e.ended && bytes.Equal(e.data, b) {
		if now.Before(e.expiry) && expiry.Sub(e.expiry) < c.grain {
			return nil
		}
		// A touch rather than the whole session: it cannot bring back a
		// session that ended meanwhile (a logout elsewhere, or its expiry
		// just passed), nor undo a change another instance made.
		stored, found, err := c.rows.Touch(ctx, token, expiry)
		if err != nil {
			return err
		}
		c.entries.Update(token, func(e cachedSession, ok bool) (cachedSession, bool) {
			if !ok || e.ended {
				return e, ok
			}
			e.expiry = stored
			return e, found
		})
		return nil
	}
	if err := c.rows.CommitCtx(ctx, token, b, expiry); err != nil {
		return err
	}
	c.entries.Put(token, cachedSession{data: b, expiry: expiry, fetched: now})
	return nil
}

// Delete removes the session from the table and ends it in the cache.
func (c *cachedStore) Delete(token string) error {
	return c.DeleteCtx(context.Background(), token)
}

// DeleteCtx is Delete within the request's context. The session ends here
// first, so no read under way brings it back; if the table keeps it (the
// delete failed, and the logout says so), so does the cache.
func (c *cachedStore) DeleteCtx(ctx context.Context, token string) error {
	c.entries.Put(token, cachedSession{ended: true, fetched: c.now()})
	if err := c.rows.DeleteCtx(ctx, token); err != nil {
		c.entries.Remove(token)
		return err
	}
	return nil
}

// sessionCodec stores sessions as JSON. Marquee's sessions hold strings
// only, and scs's default gob codec compiles a decoder for every session it
// reads: a seventh of a hold request's CPU in the hold benchmark. Sessions
// written by the gob codec are still read.
//
// scs decodes the session on every request, and most requests bring one of
// the same few sessions: what a session's bytes decode to is remembered
// (JSON decoding was 5% of the server's CPU in the hold benchmark).
type sessionCodec struct {
	decoded *cachemap.Map[string, decodedSession] // by the encoded bytes
}

func newSessionCodec() *sessionCodec {
	return &sessionCodec{decoded: cachemap.New[string, decodedSession](maxCachedSessions)}
}

type decodedSession struct {
	deadline time.Time
	values   map[string]any // never handed out: scs changes the maps it gets
}

type sessionJSON struct {
	Deadline time.Time      `json:"deadline"`
	Values   map[string]any `json:"values"`
}

func (*sessionCodec) Encode(deadline time.Time, values map[string]any) ([]byte, error) {
	return json.Marshal(sessionJSON{Deadline: deadline, Values: values})
}

func (c *sessionCodec) Decode(b []byte) (time.Time, map[string]any, error) {
	if len(b) == 0 || b[0] != '{' {
		return scs.GobCodec{}.Decode(b)
	}
	if d, ok := c.decoded.Get(string(b)); ok {
		return d.deadline, maps.Clone(d.values), nil
	}
	var s sessionJSON
	if err := json.Unmarshal(b, &s); err != nil {
		return time.Time{}, nil, err
	}
	if s.Values == nil {
		s.Values = map[string]any{}
	}
	c.decoded.Put(string(b), decodedSession{deadline: s.Deadline, values: maps.Clone(s.Values)})
	return s.Deadline, s.Values, nil
}
