package web

import (
	"encoding/json"
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
type cachedStore struct {
	inner scs.Store
	ttl   time.Duration
	now   func() time.Time

	mu      sync.Mutex
	entries map[string]cachedSession
}

type cachedSession struct {
	data    []byte
	fetched time.Time
}

func newCachedStore(inner scs.Store, ttl time.Duration) *cachedStore {
	return &cachedStore{inner: inner, ttl: ttl, now: time.Now, entries: map[string]cachedSession{}}
}

// Find returns the session stored under token (a hash of the cookie's token).
func (c *cachedStore) Find(token string) ([]byte, bool, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[token]
	c.mu.Unlock()
	if ok && now.Sub(e.fetched) < c.ttl {
		return e.data, true, nil
	}
	b, found, err := c.inner.Find(token)
	if err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if found {
		c.put(token, b, now)
	} else {
		delete(c.entries, token)
	}
	return b, found, nil
}

// Commit stores the session, then caches it.
func (c *cachedStore) Commit(token string, b []byte, expiry time.Time) error {
	if err := c.inner.Commit(token, b, expiry); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(token, b, c.now())
	return nil
}

// Delete removes the session from the database and the cache.
func (c *cachedStore) Delete(token string) error {
	c.mu.Lock()
	delete(c.entries, token)
	c.mu.Unlock()
	return c.inner.Delete(token)
}

// put caches a session; c.mu is held. Stale entries are dropped once the
// cache grows, so it holds about the sessions active in the last TTL.
func (c *cachedStore) put(token string, b []byte, now time.Time) {
	if len(c.entries) >= 10000 {
		for k, e := range c.entries {
			if now.Sub(e.fetched) >= c.ttl {
				delete(c.entries, k)
			}
		}
	}
	c.entries[token] = cachedSession{data: b, fetched: now}
}

// sessionCodec stores sessions as JSON. Marquee's sessions hold strings
// only, and scs's default gob codec compiles a decoder for every session it
// reads: a seventh of a hold request's CPU in the hold benchmark. Sessions
// written by the gob codec are still read.
type sessionCodec struct{}

type sessionJSON struct {
	Deadline time.Time      `json:"deadline"`
	Values   map[string]any `json:"values"`
}

func (sessionCodec) Encode(deadline time.Time, values map[string]any) ([]byte, error) {
	return json.Marshal(sessionJSON{Deadline: deadline, Values: values})
}

func (sessionCodec) Decode(b []byte) (time.Time, map[string]any, error) {
	if len(b) == 0 || b[0] != '{' {
		return scs.GobCodec{}.Decode(b)
	}
	var s sessionJSON
	if err := json.Unmarshal(b, &s); err != nil {
		return time.Time{}, nil, err
	}
	if s.Values == nil {
		s.Values = map[string]any{}
	}
	return s.Deadline, s.Values, nil
}
