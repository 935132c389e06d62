package postgres

import (
	"context"
	"fmt"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/v2"
)

// SessionStore keeps the web sessions in the sessions table. It starts no
// cleanup goroutine (nothing could stop it): DeleteExpiredSessions is
// called now and then instead, and expired rows are never read meanwhile.
func (s *Store) SessionStore() scs.Store {
	return pgxstore.NewWithCleanupInterval(s.pool, 0)
}

// DeleteExpiredSessions deletes the sessions past their expiry.
func (s *Store) DeleteExpiredSessions(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expiry < now()`); err != nil {
		return fmt.Errorf("delete expired sessions: %w", err)
	}
	return nil
}
