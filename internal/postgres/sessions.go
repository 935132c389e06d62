package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SessionStore keeps the web sessions in the sessions table (the layout of
// scs's pgxstore). It reads and writes within the request's context
// (scs.CtxStore), so a database out of reach cannot keep a request past
// its deadline. It starts no cleanup goroutine: DeleteExpiredSessions is
// called now and then instead, and expired rows are never read meanwhile.
func (s *Store) SessionStore() scs.CtxStore {
	return sessionStore{pool: s.pool}
}

type sessionStore struct{ pool *pgxpool.Pool }

func (s sessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var b []byte
	err := s.pool.QueryRow(ctx, `SELECT data FROM sessions WHERE token = $1 AND current_timestamp < expiry`, token).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read session: %w", err)
	}
	return b, true, nil
}

func (s sessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, $3)
		ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry`, token, b, expiry); err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

func (s sessionStore) DeleteCtx(ctx context.Context, token string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE token = $1`, token); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// Find, Commit and Delete are scs.Store's, for callers without a context.
func (s sessionStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

func (s sessionStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

func (s sessionStore) Delete(token string) error {
	return s.DeleteCtx(context.Background(), token)
}

// DeleteExpiredSessions deletes the sessions past their expiry.
func (s *Store) DeleteExpiredSessions(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expiry < now()`); err != nil {
		return fmt.Errorf("delete expired sessions: %w", err)
	}
	return nil
}
