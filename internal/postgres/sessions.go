package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SessionStore keeps the web sessions in the sessions table (the layout of
// scs's pgxstore). It is an scs.CtxStore, reading and writing within the
// request's context, so a database out of reach cannot keep a request past
// its deadline; FindWithExpiry and Touch let a cache in front of it know
// each session's stored expiry and move it alone. Expired rows are never
// read, by the store's clock (Store.Clock, else the database's). It starts
// no cleanup goroutine: DeleteExpiredSessions is called now and then
// instead.
type SessionStore struct{ s *Store }

// SessionStore returns the store of the web sessions.
func (s *Store) SessionStore() *SessionStore { return &SessionStore{s: s} }

// FindWithExpiry returns the live session stored under token with the
// expiry stored with it; found is false for none (or an expired one).
func (st *SessionStore) FindWithExpiry(ctx context.Context, token string) (b []byte, expiry time.Time, found bool, err error) {
	err = st.s.pool.QueryRow(ctx, `
		SELECT data, expiry FROM sessions
		 WHERE token = $1 AND coalesce($2::timestamptz, current_timestamp) < expiry`, token, st.s.now()).
		Scan(&b, &expiry)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, fmt.Errorf("read session: %w", err)
	}
	return b, expiry, true, nil
}

// Touch moves a live session's expiry on to expiry (never back: another
// app instance may have moved it further) without writing its data, and
// returns the expiry now stored. found is false when the session has ended
// (a logout, or it expired): a touch never brings one back.
func (st *SessionStore) Touch(ctx context.Context, token string, expiry time.Time) (stored time.Time, found bool, err error) {
	err = st.s.pool.QueryRow(ctx, `
		UPDATE sessions SET expiry = greatest(expiry, $2)
		 WHERE token = $1 AND coalesce($3::timestamptz, current_timestamp) < expiry
		RETURNING expiry`, token, expiry, st.s.now()).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("move the session's expiry on: %w", err)
	}
	return stored, true, nil
}

// FindCtx returns the live session stored under token (scs.CtxStore).
func (st *SessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	b, _, found, err := st.FindWithExpiry(ctx, token)
	return b, found, err
}

// CommitCtx stores a session's data and expiry (scs.CtxStore).
func (st *SessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if _, err := st.s.pool.Exec(ctx, `
		INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, $3)
		ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry`, token, b, expiry); err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

// DeleteCtx deletes a session (scs.CtxStore).
func (st *SessionStore) DeleteCtx(ctx context.Context, token string) error {
	if _, err := st.s.pool.Exec(ctx, `DELETE FROM sessions WHERE token = $1`, token); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// Find, Commit and Delete are scs.Store's, for callers without a context.
func (st *SessionStore) Find(token string) ([]byte, bool, error) {
	return st.FindCtx(context.Background(), token)
}

func (st *SessionStore) Commit(token string, b []byte, expiry time.Time) error {
	return st.CommitCtx(context.Background(), token, b, expiry)
}

func (st *SessionStore) Delete(token string) error {
	return st.DeleteCtx(context.Background(), token)
}

// DeleteExpiredSessions deletes the sessions past their expiry.
func (s *Store) DeleteExpiredSessions(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expiry <= coalesce($1::timestamptz, now())`, s.now()); err != nil {
		return fmt.Errorf("delete expired sessions: %w", err)
	}
	return nil
}
