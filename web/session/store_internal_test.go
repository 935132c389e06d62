package session

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
)

// memRows is a sessions table in memory, on the test's clock, that counts
// the reads and writes reaching it.
type memRows struct {
	now     func() time.Time
	rows    map[string]memRow
	finds   int
	commits int
	touches int
	seen    []context.Context
	// duringFind, when set, runs while a read is under way.
	duringFind func()
	// deleteErr, when set, fails every delete.
	deleteErr error
}

type memRow struct {
	data   []byte
	expiry time.Time
}

func newMemRows(now func() time.Time) *memRows {
	return &memRows{now: now, rows: map[string]memRow{}}
}

func (m *memRows) FindWithExpiry(ctx context.Context, token string) ([]byte, time.Time, bool, error) {
	m.seen = append(m.seen, ctx)
	m.finds++
	r, ok := m.rows[token]
	if m.duringFind != nil {
		m.duringFind()
	}
	if !ok || !m.now().Before(r.expiry) {
		return nil, time.Time{}, false, nil
	}
	return r.data, r.expiry, true, nil
}

func (m *memRows) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	m.seen = append(m.seen, ctx)
	m.commits++
	m.rows[token] = memRow{data: b, expiry: expiry}
	return nil
}

func (m *memRows) Touch(ctx context.Context, token string, expiry time.Time) (time.Time, bool, error) {
	m.seen = append(m.seen, ctx)
	m.touches++
	r, ok := m.rows[token]
	if !ok || !m.now().Before(r.expiry) {
		return time.Time{}, false, nil
	}
	if expiry.After(r.expiry) {
		r.expiry = expiry
		m.rows[token] = r
	}
	return r.expiry, true, nil
}

func (m *memRows) DeleteCtx(ctx context.Context, token string) error {
	m.seen = append(m.seen, ctx)
	if m.deleteErr != nil {
		return m.deleteErr
	}
	delete(m.rows, token)
	return nil
}

// writes is every write that reached the table.
func (m *memRows) writes() int { return m.commits + m.touches }

const (
	testTTL   = 5 * time.Second
	testIdle  = 2 * time.Hour
	testGrain = 2 * time.Minute
)

// newTestStore is a cachedStore on a table in memory and a clock the test
// moves.
func newTestStore() (*cachedStore, *memRows, *time.Time) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	rows := newMemRows(clock)
	return newCachedStore(rows, testTTL, testIdle, testGrain, clock), rows, &now
}

var week = 7 * 24 * time.Hour

func TestCachedStoreReads(t *testing.T) {
	c, rows, now := newTestStore()
	rows.rows["t"] = memRow{data: []byte("alice"), expiry: now.Add(time.Hour)}

	t.Run("a session read within the TTL is not read again", func(t *testing.T) {
		for range 3 {
			if b, ok, _ := c.Find("t"); !ok || string(b) != "alice" {
				t.Fatalf("Find = %q, %v", b, ok)
			}
			*now = now.Add(testTTL / 4)
		}
		if rows.finds != 1 {
			t.Fatalf("table reads = %d, want 1", rows.finds)
		}
	})
	t.Run("after the TTL it is read again", func(t *testing.T) {
		*now = now.Add(testTTL)
		if b, ok, err := c.Find("t"); err != nil || !ok || string(b) != "alice" {
			t.Fatalf("Find = %q, %v, %v", b, ok, err)
		}
		if rows.finds != 2 {
			t.Fatalf("table reads = %d, want 2", rows.finds)
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
	t.Run("a read under way when the session is deleted here does not bring it back", func(t *testing.T) {
		rows.rows["r"] = memRow{data: []byte("dave"), expiry: now.Add(time.Hour)}
		rows.duringFind = func() {
			rows.duringFind = nil
			if err := c.Delete("r"); err != nil {
				t.Error(err)
			}
		}
		if _, ok, _ := c.Find("r"); ok {
			t.Fatal("a read that began before the logout served the session")
		}
		if _, ok, _ := c.Find("r"); ok {
			t.Fatal("a read that began before the logout cached the session")
		}
	})
	t.Run("a delete that fails leaves the session as the table has it", func(t *testing.T) {
		rows.rows["f"] = memRow{data: []byte("gina"), expiry: now.Add(time.Hour)}
		rows.deleteErr = errors.New("database out of reach")
		if err := c.Delete("f"); err == nil {
			t.Fatal("a failed delete reported success")
		}
		rows.deleteErr = nil
		if _, ok, _ := c.Find("f"); !ok {
			t.Fatal("a session the table still has is not found: a second logout would not delete it")
		}
	})
	t.Run("a delete elsewhere is seen within the TTL", func(t *testing.T) {
		if err := c.Commit("u", []byte("bob"), now.Add(week)); err != nil {
			t.Fatal(err)
		}
		delete(rows.rows, "u") // a logout through another instance
		*now = now.Add(testTTL - time.Millisecond)
		if _, ok, _ := c.Find("u"); !ok {
			t.Fatal("cached session should still be served within the TTL")
		}
		*now = now.Add(time.Millisecond)
		if _, ok, _ := c.Find("u"); ok {
			t.Fatal("session deleted elsewhere still works after the TTL")
		}
	})
	t.Run("a session past its stored expiry is not served from the cache", func(t *testing.T) {
		if err := c.Commit("idle", []byte("carol"), now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		*now = now.Add(time.Second) // within the TTL, at the expiry
		if _, ok, _ := c.Find("idle"); ok {
			t.Fatal("an expired session was served from the cache")
		}
	})
	t.Run("past the expiry known here, one moved on elsewhere is read again", func(t *testing.T) {
		if err := c.Commit("moved", []byte("erin"), now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		rows.rows["moved"] = memRow{data: []byte("erin"), expiry: now.Add(time.Hour)} // another instance
		*now = now.Add(time.Second)
		if _, ok, _ := c.Find("moved"); !ok {
			t.Fatal("a session another instance kept alive is not found")
		}
	})
}

// A session's idle expiry is written at most once per grain, and a session
// read from the table (its stored expiry with it) is not written again on
// its first use.
func TestCachedStoreIdleExpiry(t *testing.T) {
	c, rows, now := newTestStore()
	deadline := now.Add(week)
	use := func(data string) {
		t.Helper()
		if _, _, err := c.Find("t"); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit("t", []byte(data), deadline); err != nil {
			t.Fatal(err)
		}
	}
	stored := func() time.Time { return rows.rows["t"].expiry }

	use("alice") // the sign-in
	if rows.commits != 1 || !stored().Equal(now.Add(testIdle)) {
		t.Fatalf("sign-in: %d writes, expiry %v; want 1, %v", rows.commits, stored(), now.Add(testIdle))
	}
	for range 11 { // a request every 10 s for 110 s: less than a grain
		*now = now.Add(10 * time.Second)
		use("alice")
	}
	if rows.writes() != 1 {
		t.Fatalf("table writes = %d, want 1: the expiry moved less than %v", rows.writes(), testGrain)
	}
	*now = now.Add(10 * time.Second) // two minutes after the sign-in
	use("alice")
	if rows.touches != 1 || string(rows.rows["t"].data) != "alice" || !stored().Equal(now.Add(testIdle)) {
		t.Fatalf("%d touches, expiry %v; want 1, %v", rows.touches, stored(), now.Add(testIdle))
	}
	use("alice, changed")
	if rows.commits != 2 || string(rows.rows["t"].data) != "alice, changed" {
		t.Fatalf("%d commits, data %q: a change is always written", rows.commits, rows.rows["t"].data)
	}

	t.Run("read from the table by a fresh instance, it is not written on its first use", func(t *testing.T) {
		fresh := newCachedStore(rows, testTTL, testIdle, testGrain, c.now)
		*now = now.Add(time.Minute)
		before := rows.writes()
		if _, ok, _ := fresh.Find("t"); !ok {
			t.Fatal("session not found")
		}
		if err := fresh.Commit("t", []byte("alice, changed"), deadline); err != nil {
			t.Fatal(err)
		}
		if rows.writes() != before {
			t.Fatalf("table writes = %d, want %d", rows.writes(), before)
		}
	})
	t.Run("the session ends between idle-grain and idle after its last use", func(t *testing.T) {
		last := *now
		use("alice, changed")
		*now = last.Add(testIdle - testGrain - time.Millisecond)
		if _, ok, _ := c.Find("t"); !ok {
			t.Fatalf("the session ended %v after its last use", testIdle-testGrain)
		}
		*now = last.Add(testIdle)
		if _, ok, _ := c.Find("t"); ok {
			t.Fatalf("the session is still live %v after its last use", testIdle)
		}
	})
	t.Run("a commit as the session ends does not bring it back", func(t *testing.T) {
		if err := c.Commit("e", []byte("grace"), deadline); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := c.Find("e"); !ok { // a request begins
			t.Fatal("session not found")
		}
		*now = now.Add(testIdle) // and ends as the session's expiry passes
		if err := c.Commit("e", []byte("grace"), deadline); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := c.Find("e"); ok {
			t.Fatal("an idle session was brought back")
		}
	})
	t.Run("no expiry is stored past the deadline", func(t *testing.T) {
		*now = deadline.Add(-time.Hour)
		if err := c.Commit("d", []byte("frank"), deadline); err != nil {
			t.Fatal(err)
		}
		*now = now.Add(30 * time.Minute)
		if _, _, err := c.Find("d"); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit("d", []byte("frank"), deadline); err != nil {
			t.Fatal(err)
		}
		if got := rows.rows["d"].expiry; !got.Equal(deadline) {
			t.Fatalf("expiry %v, want the deadline %v", got, deadline)
		}
	})
}

// The cache holds at most maxCachedSessions however many sessions come.
func TestCachedStoreBound(t *testing.T) {
	c, rows, now := newTestStore()
	for i := range 3 * maxCachedSessions {
		token := fmt.Sprint(i)
		rows.rows[token] = memRow{data: []byte("x"), expiry: now.Add(time.Hour)}
		if _, ok, _ := c.Find(token); !ok {
			t.Fatalf("session %d not found", i)
		}
		if n := c.entries.Len(); n > maxCachedSessions {
			t.Fatalf("%d sessions cached, want at most %d", n, maxCachedSessions)
		}
	}
	// A crowd of 10,000 people, each making a request again and again
	// within the TTL among 10,000 newcomers a round: each of them is read
	// once.
	finds := rows.finds
	for round := range 3 {
		for i := range 10_000 {
			if _, ok, _ := c.Find(fmt.Sprint(i)); !ok {
				t.Fatalf("session %d not found", i)
			}
			token := fmt.Sprintf("new-%d-%d", round, i)
			rows.rows[token] = memRow{data: []byte("x"), expiry: now.Add(time.Hour)}
			if _, ok, _ := c.Find(token); !ok {
				t.Fatalf("session %s not found", token)
			}
		}
	}
	if got, want := rows.finds-finds, 10_000+3*10_000; got != want {
		t.Fatalf("table reads = %d, want %d: each of the crowd read once, each newcomer once", got, want)
	}
}

// The cache hands the request's context to the table, so a database out
// of reach cannot keep a request past its deadline.
func TestCachedStorePassesTheContext(t *testing.T) {
	c, rows, now := newTestStore()
	var store scs.CtxStore = c
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "the request")
	if err := store.CommitCtx(ctx, "t", []byte("alice"), now.Add(week)); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(testTTL + testGrain)
	if _, _, err := store.FindCtx(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := store.CommitCtx(ctx, "t", []byte("alice"), now.Add(week)); err != nil { // a touch
		t.Fatal(err)
	}
	if err := store.DeleteCtx(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if len(rows.seen) != 4 || rows.touches != 1 {
		t.Fatalf("the table saw %d calls (%d touches), want 4 (1)", len(rows.seen), rows.touches)
	}
	for i, got := range rows.seen {
		if got.Value(key{}) != "the request" {
			t.Errorf("call %d reached the table without the request's context", i)
		}
	}
}

func TestSessionCodec(t *testing.T) {
	deadline := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	values := map[string]any{"user_id": "8c0d6d5e-0000-4000-8000-000000000001"}
	codec := newSessionCodec()
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
