package web

import (
	"context"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
)

// countingStore is an scs.Store in memory that counts the reads and
// writes reaching it.
type countingStore struct {
	data    map[string][]byte
	finds   int
	commits int
}

func (s *countingStore) Find(token string) ([]byte, bool, error) {
	s.finds++
	b, ok := s.data[token]
	return b, ok, nil
}

func (s *countingStore) Commit(token string, b []byte, _ time.Time) error {
	s.commits++
	s.data[token] = b
	return nil
}

func (s *countingStore) Delete(token string) error {
	delete(s.data, token)
	return nil
}

func TestCachedStore(t *testing.T) {
	inner := &countingStore{data: map[string][]byte{"t": []byte("alice")}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newCachedStore(inner, 2*time.Second, time.Minute)
	c.now = func() time.Time { return now }

	t.Run("a session read recently is not read again", func(t *testing.T) {
		for range 3 {
			if b, ok, _ := c.Find("t"); !ok || string(b) != "alice" {
				t.Fatalf("Find = %q, %v", b, ok)
			}
		}
		if inner.finds != 1 {
			t.Fatalf("database reads = %d, want 1", inner.finds)
		}
	})
	t.Run("after the TTL it is read again", func(t *testing.T) {
		now = now.Add(2 * time.Second)
		if b, ok, err := c.Find("t"); err != nil || !ok || string(b) != "alice" {
			t.Fatalf("Find = %q, %v, %v", b, ok, err)
		}
		if inner.finds != 2 {
			t.Fatalf("database reads = %d, want 2", inner.finds)
		}
	})
	t.Run("a delete through this instance ends the session at once", func(t *testing.T) {
		if err := c.Delete("t"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := c.Find("t"); ok {
			t.Fatal("deleted session still found")
		}
	})
	t.Run("a delete elsewhere is seen within the TTL", func(t *testing.T) {
		if err := c.Commit("u", []byte("bob"), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		delete(inner.data, "u") // a logout through another instance
		if _, ok, _ := c.Find("u"); !ok {
			t.Fatal("cached session should still be served within the TTL")
		}
		now = now.Add(2 * time.Second)
		if _, ok, _ := c.Find("u"); ok {
			t.Fatal("session deleted elsewhere still works after the TTL")
		}
	})
	t.Run("a session past the expiry stored here is not served from the cache", func(t *testing.T) {
		if err := c.Commit("idle", []byte("carol"), now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		now = now.Add(1500 * time.Millisecond) // within the TTL, past the expiry
		if _, ok, _ := c.Find("idle"); ok {
			t.Fatal("an expired session was served from the cache")
		}
	})
}

// With an idle timeout every request commits its session again; the cache
// writes only when that moves the expiry on by touchEvery or more.
func TestCachedStoreTouch(t *testing.T) {
	inner := &countingStore{data: map[string][]byte{}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const idle, touchEvery = 2 * time.Hour, 2 * time.Minute
	c := newCachedStore(inner, 2*time.Second, touchEvery)
	c.now = func() time.Time { return now }
	touch := func(data string) {
		t.Helper()
		if err := c.Commit("t", []byte(data), now.Add(idle)); err != nil {
			t.Fatal(err)
		}
	}

	touch("alice")
	for range 10 { // ten requests within a minute and a half
		now = now.Add(9 * time.Second)
		touch("alice")
	}
	if inner.commits != 1 {
		t.Fatalf("database writes = %d, want 1: the expiry moved less than %v", inner.commits, touchEvery)
	}
	now = now.Add(30 * time.Second) // two minutes after the write
	touch("alice")
	if inner.commits != 2 {
		t.Fatalf("database writes = %d, want 2: the expiry is %v behind", inner.commits, touchEvery)
	}
	touch("alice, changed")
	if inner.commits != 3 || string(inner.data["t"]) != "alice, changed" {
		t.Fatalf("database writes = %d, data %q: a change is always written", inner.commits, inner.data["t"])
	}
	// Read back from the database after the TTL, the same data: the
	// expiry written here is still known and writes are still skipped.
	now = now.Add(3 * time.Second)
	if _, ok, _ := c.Find("t"); !ok {
		t.Fatal("session not found")
	}
	touch("alice, changed")
	if inner.commits != 3 {
		t.Fatalf("database writes = %d, want 3", inner.commits)
	}
	// Past the expiry stored (the session ended), nothing is skipped.
	now = now.Add(idle)
	touch("alice, changed")
	if inner.commits != 4 {
		t.Fatalf("database writes = %d, want 4: the stored session had expired", inner.commits)
	}
}

// ctxStore is a countingStore that takes a context: it sees the request's.
type ctxStore struct {
	countingStore
	seen []context.Context
}

func (s *ctxStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	s.seen = append(s.seen, ctx)
	return s.Find(token)
}

func (s *ctxStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	s.seen = append(s.seen, ctx)
	return s.Commit(token, b, expiry)
}

func (s *ctxStore) DeleteCtx(ctx context.Context, token string) error {
	s.seen = append(s.seen, ctx)
	return s.Delete(token)
}

// The cache hands the request's context to the database, so a database out
// of reach cannot keep a request past its deadline.
func TestCachedStorePassesTheContext(t *testing.T) {
	inner := &ctxStore{countingStore: countingStore{data: map[string][]byte{}}}
	c := newCachedStore(inner, 0, 0)
	var store scs.CtxStore = c
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "the request")
	if err := store.CommitCtx(ctx, "t", []byte("alice"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.FindCtx(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteCtx(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if len(inner.seen) != 3 {
		t.Fatalf("the database saw %d calls with a context, want 3", len(inner.seen))
	}
	for i, got := range inner.seen {
		if got.Value(key{}) != "the request" {
			t.Errorf("call %d reached the database without the request's context", i)
		}
	}
}

func TestSessionCodec(t *testing.T) {
	deadline := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	values := map[string]any{"user_id": "8c0d6d5e-0000-4000-8000-000000000001"}
	codec := &sessionCodec{}
	b, err := codec.Encode(deadline, values)
	if err != nil {
		t.Fatal(err)
	}
	d, v, err := codec.Decode(b)
	if err != nil || !d.Equal(deadline) || v["user_id"] != values["user_id"] {
		t.Fatalf("round trip = %v %v %v", d, v, err)
	}
	t.Run("a remembered session comes back as a map of its own", func(t *testing.T) {
		v["user_id"] = "changed by the request that got it"
		v["csrf"] = "added"
		d, again, err := codec.Decode(b)
		if err != nil || !d.Equal(deadline) || again["user_id"] != values["user_id"] || len(again) != 1 {
			t.Fatalf("second decode = %v %v %v", d, again, err)
		}
	})
	t.Run("sessions written by the gob codec are still read", func(t *testing.T) {
		old, err := scs.GobCodec{}.Encode(deadline, values)
		if err != nil {
			t.Fatal(err)
		}
		d, v, err := codec.Decode(old)
		if err != nil || !d.Equal(deadline) || v["user_id"] != values["user_id"] {
			t.Fatalf("gob session = %v %v %v", d, v, err)
		}
	})
}
