package web

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
)

// sessionCacheTTL is how long a session read from the database is trusted
// without reading it again. It bounds how long a session ended through
// another instance (a logout there) still works here.
const sessionCacheTTL = 2 * time.Second

// cachedStore keeps sessions read in the last sessionCacheTTL in memory, so
// a request costs the database one round trip (its own work) instead of two.
// Every write and delete through this instance goes through to the database
// and updates the cache at once.
//
// With an idle timeout every request commits its session again to move its
// expiry on (scs marks each loaded session modified). A write that would
// only move the expiry by less than touchEvery, the data unchanged, is
// skipped: a session in use costs one write per touchEvery rather than one
// per request, and ends between idle-touchEvery and idle after its last
// request. A cached session is never served past the expiry this instance
// stored, so an idle session ends on time even inside the cache's TTL.
type cachedStore struct {
	inner      scs.Store
	ttl        time.Duration
	touchEvery time.Duration
	now        func() time.Time

	mu      sync.Mutex
	entries map[string]cachedSession
}

type cachedSession struct {
	data    []byte
	fetched time.Time
	// expiry is the one this instance last stored for the session (zero
	// when it was only read: the store's Find does not say).
	expiry time.Time
}

func newCachedStore(inner scs.Store, ttl, touchEvery time.Duration) *cachedStore {
	return &cachedStore{inner: inner, ttl: ttl, touchEvery: touchEvery, now: time.Now, entries: map[string]cachedSession{}}
}

// Find returns the session stored under token (a hash of the cookie's token).
func (c *cachedStore) Find(token string) ([]byte, bool, error) {
	return c.FindCtx(context.Background(), token)
}

// FindCtx is Find within the request's context: a database out of reach
// cannot hold the request past its deadline.
func (c *cachedStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[token]
	c.mu.Unlock()
	if ok && now.Sub(e.fetched) < c.ttl {
		if !e.expiry.IsZero() && !now.Before(e.expiry) {
			return nil, false, nil // expired here: the database skips it too
		}
		return e.data, true, nil
	}
	b, found, err := c.innerFind(ctx, token)
	if err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !found {
		delete(c.entries, token)
		return b, found, nil
	}
	// The stored expiry is still known if the data is the same: another
	// instance may only have moved it later.
	var expiry time.Time
	if e, ok := c.entries[token]; ok && bytes.Equal(e.data, b) {
		expiry = e.expiry
	}
	c.put(token, cachedSession{data: b, fetched: now, expiry: expiry})
	return b, found, nil
}

// Commit stores the session, then caches it. Storing the same data with
// an expiry less than touchEvery later than the one stored is skipped.
func (c *cachedStore) Commit(token string, b []byte, expiry time.Time) error {
	return c.CommitCtx(context.Background(), token, b, expiry)
}

// CommitCtx is Commit within the request's context.
func (c *cachedStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[token]
	c.mu.Unlock()
	if ok && !e.expiry.IsZero() && now.Before(e.expiry) && bytes.Equal(e.data, b) &&
		!expiry.Before(e.expiry) && expiry.Sub(e.expiry) < c.touchEvery {
		return nil
	}
	if err := c.innerCommit(ctx, token, b, expiry); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(token, cachedSession{data: b, fetched: now, expiry: expiry})
	return nil
}

// Delete removes the session from the database and the cache.
func (c *cachedStore) Delete(token string) error {
	return c.DeleteCtx(context.Background(), token)
}

// DeleteCtx is Delete within the request's context.
func (c *cachedStore) DeleteCtx(ctx context.Context, token string) error {
	c.mu.Lock()
	delete(c.entries, token)
	c.mu.Unlock()
	if cs, ok := c.inner.(scs.CtxStore); ok {
		return cs.DeleteCtx(ctx, token)
	}
	return c.inner.Delete(token)
}

// innerFind and innerCommit pass the context on when the inner store
// takes one.
func (c *cachedStore) innerFind(ctx context.Context, token string) ([]byte, bool, error) {
	if cs, ok := c.inner.(scs.CtxStore); ok {
		return cs.FindCtx(ctx, token)
	}
	return c.inner.Find(token)
}

func (c *cachedStore) innerCommit(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if cs, ok := c.inner.(scs.CtxStore); ok {
		return cs.CommitCtx(ctx, token, b, expiry)
	}
	return c.inner.Commit(token, b, expiry)
}

// put caches a session; c.mu is held. Once the cache grows, entries that
// are stale and whose stored expiry is past or unknown are dropped, so it
// holds about the sessions active in the last TTL and those it may skip a
// write of.
func (c *cachedStore) put(token string, e cachedSession) {
	if len(c.entries) >= maxCachedSessions {
		for k, old := range c.entries {
			if e.fetched.Sub(old.fetched) >= c.ttl && !e.fetched.Before(old.expiry) {
				delete(c.entries, k)
			}
		}
	}
	if len(c.entries) >= maxCachedSessions {
		clear(c.entries) // all in use: start again rather than grow without bound
	}
	c.entries[token] = e
}

// maxCachedSessions bounds the cache.
const maxCachedSessions = 10000

// sessionCodec stores sessions as JSON. Marquee's sessions hold strings
// only, and scs's default gob codec compiles a decoder for every session it
// reads: a seventh of a hold request's CPU in the hold benchmark. Sessions
// written by the gob codec are still read.
//
// scs decodes the session on every request, and most requests bring one of
// the same few sessions: what a session's bytes decode to is remembered
// (JSON decoding was 5% of the server's CPU in the hold benchmark).
type sessionCodec struct {
	mu      sync.Mutex
	decoded map[string]decodedSession // by the encoded bytes
}

type decodedSession struct {
	deadline time.Time
	values   map[string]any // never handed out: scs changes the maps it gets
}

// maxDecoded bounds the remembered sessions; past it they are forgotten at
// once and remembered again as they come.
const maxDecoded = 10000

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
	c.mu.Lock()
	d, ok := c.decoded[string(b)]
	c.mu.Unlock()
	if ok {
		return d.deadline, maps.Clone(d.values), nil
	}
	var s sessionJSON
	if err := json.Unmarshal(b, &s); err != nil {
		return time.Time{}, nil, err
	}
	if s.Values == nil {
		s.Values = map[string]any{}
	}
	c.mu.Lock()
	if c.decoded == nil || len(c.decoded) >= maxDecoded {
		c.decoded = make(map[string]decodedSession)
	}
	c.decoded[string(b)] = decodedSession{deadline: s.Deadline, values: maps.Clone(s.Values)}
	c.mu.Unlock()
	return s.Deadline, s.Values, nil
}
