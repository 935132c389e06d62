package postgres_test

import (
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// A session is live while now < expiry, by the store's clock; its expiry
// comes back with its data, and a touch moves the expiry alone, never back
// and never for a session that has ended.
func TestSessionStore(t *testing.T) {
	t.Parallel()
	s := pgtest.NewStore(t, 2)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	st := s.SessionStore()
	expiry := clock.Now().Add(time.Hour)
	if err := st.CommitCtx(ctx, "t", []byte("alice"), expiry); err != nil {
		t.Fatal(err)
	}

	b, got, found, err := st.FindWithExpiry(ctx, "t")
	if err != nil || !found || string(b) != "alice" || !got.Equal(expiry) {
		t.Fatalf("FindWithExpiry = %q, %v, %v, %v; want alice, %v", b, got, found, err, expiry)
	}
	if _, _, found, _ := st.FindWithExpiry(ctx, "unknown"); found {
		t.Fatal("an unknown token found a session")
	}

	t.Run("a touch moves the expiry on and leaves the data", func(t *testing.T) {
		later := expiry.Add(time.Minute)
		stored, found, err := st.Touch(ctx, "t", later)
		if err != nil || !found || !stored.Equal(later) {
			t.Fatalf("Touch = %v, %v, %v; want %v", stored, found, err, later)
		}
		if b, got, _, _ := st.FindWithExpiry(ctx, "t"); string(b) != "alice" || !got.Equal(later) {
			t.Fatalf("after the touch: %q until %v", b, got)
		}
		expiry = later
	})
	t.Run("a touch never moves the expiry back", func(t *testing.T) {
		stored, found, err := st.Touch(ctx, "t", expiry.Add(-30*time.Second))
		if err != nil || !found || !stored.Equal(expiry) {
			t.Fatalf("Touch = %v, %v, %v; want the stored %v", stored, found, err, expiry)
		}
	})
	t.Run("at its expiry the session has ended and a touch does not bring it back", func(t *testing.T) {
		clock.Set(expiry.Add(-time.Microsecond))
		if _, _, found, _ := st.FindWithExpiry(ctx, "t"); !found {
			t.Fatal("a session is not found a microsecond before its expiry")
		}
		clock.Set(expiry)
		if _, _, found, _ := st.FindWithExpiry(ctx, "t"); found {
			t.Fatal("a session is found at its expiry")
		}
		if _, found, err := st.Touch(ctx, "t", expiry.Add(time.Hour)); err != nil || found {
			t.Fatalf("Touch of an expired session = %v, %v; want not found", found, err)
		}
		if _, _, found, _ := st.FindWithExpiry(ctx, "t"); found {
			t.Fatal("a touch brought an expired session back")
		}
	})
	t.Run("a deleted session is gone and a touch does not bring it back", func(t *testing.T) {
		if err := st.CommitCtx(ctx, "u", []byte("bob"), clock.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteCtx(ctx, "u"); err != nil {
			t.Fatal(err)
		}
		if _, found, err := st.Touch(ctx, "u", clock.Now().Add(2*time.Hour)); err != nil || found {
			t.Fatalf("Touch of a deleted session = %v, %v; want not found", found, err)
		}
		if n := count(t, s, `SELECT count(*) FROM sessions WHERE token = 'u'`); n != 0 {
			t.Fatalf("%d rows of a deleted session", n)
		}
	})
	t.Run("expired sessions are deleted by the store's clock", func(t *testing.T) {
		if err := s.DeleteExpiredSessions(ctx); err != nil {
			t.Fatal(err)
		}
		if n := count(t, s, `SELECT count(*) FROM sessions`); n != 0 {
			t.Fatalf("%d sessions left, want the expired one deleted", n)
		}
	})
}
