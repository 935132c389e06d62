package web

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// buckets are one Limit's token buckets, one per key, kept on the server's
// clock (Server.Now): a test that stops the store's clock stops the
// refill, so whether a burst is refused never depends on how fast the
// test's requests are sent.
type buckets struct {
	limit Limit
	now   func() time.Time
	// idle is how long a key goes unseen before it is forgotten: by then
	// its bucket would be full again anyway.
	idle time.Duration

	mu    sync.Mutex
	byKey map[string]*bucket
	swept time.Time
}

type bucket struct {
	tokens *rate.Limiter
	seen   time.Time
}

func newBuckets(l Limit, now func() time.Time) *buckets {
	return &buckets{
		limit: l, now: now, idle: max(5*time.Minute, l.every*time.Duration(l.burst)),
		byKey: map[string]*bucket{}, swept: now(),
	}
}

// allow takes a token from key's bucket, if it has one.
func (b *buckets) allow(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if now.Sub(b.swept) > b.idle {
		for k, v := range b.byKey {
			if now.Sub(v.seen) > b.idle {
				delete(b.byKey, k)
			}
		}
		b.swept = now
	}
	v, ok := b.byKey[key]
	if !ok {
		v = &bucket{tokens: rate.NewLimiter(rate.Every(b.limit.every), b.limit.burst)}
		b.byKey[key] = v
	}
	v.seen = now
	return v.tokens.AllowN(now, 1)
}
