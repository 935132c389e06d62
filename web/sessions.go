package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const (
	// SessionCookie is the name of the session cookie.
	SessionCookie = "marquee_session"

	sessionLifetime = 7 * 24 * time.Hour
	sessionUserKey  = "user_id"
	userIDKey       = "marquee.user_id" // echo.Context key of the signed-in user
)

// newSessionManager keeps sessions in the sessions table. Only a hash of
// each token is stored, so a copy of the table opens no session.
func newSessionManager(store *postgres.Store, publicURL string) *scs.SessionManager {
	sm := scs.New()
	// Expired rows are deleted now and then at sign-in (sessionGC), and
	// never read: the store's Find skips them.
	sm.Store = newCachedStore(store.SessionStore(), sessionCacheTTL)
	sm.HashTokenInStore = true
	sm.Codec = &sessionCodec{}
	sm.Lifetime = sessionLifetime
	sm.Cookie.Name = SessionCookie
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Path = "/"
	sm.Cookie.Secure = strings.HasPrefix(strings.ToLower(publicURL), "https://")
	return sm
}

// LoadSession attaches the caller's session (possibly a new, empty one) to
// the request. Handlers that change the session call saveSession before they
// answer.
func (s *Server) LoadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var token string
		if ck, err := c.Cookie(SessionCookie); err == nil {
			token = ck.Value
		}
		ctx, err := s.sessions.Load(c.Request().Context(), token)
		if err != nil {
			return fmt.Errorf("load session: %w", err)
		}
		c.SetRequest(c.Request().WithContext(ctx))
		c.Response().Header().Add("Vary", "Cookie")
		if id := s.sessions.GetString(ctx, sessionUserKey); id != "" {
			c.Set(userIDKey, id)
		}
		return next(c)
	}
}

// SaveSession stores a changed session and sets (or clears) its cookie. It
// runs before the answer is written, so a failure is still a proper error.
func (s *Server) SaveSession(c echo.Context) error {
	ctx := c.Request().Context()
	switch s.sessions.Status(ctx) {
	case scs.Modified:
		token, expiry, err := s.sessions.Commit(ctx)
		if err != nil {
			return fmt.Errorf("save session: %w", err)
		}
		s.sessions.WriteSessionCookie(ctx, c.Response(), token, expiry)
	case scs.Destroyed:
		s.sessions.WriteSessionCookie(ctx, c.Response(), "", time.Time{})
	}
	return nil
}

// SignIn starts a fresh session for userID. A new token on every sign-in
// means a token planted before it (session fixation) opens nothing.
func (s *Server) SignIn(c echo.Context, userID string) error {
	ctx := c.Request().Context()
	if err := s.sessions.RenewToken(ctx); err != nil {
		return fmt.Errorf("renew session: %w", err)
	}
	s.sessions.Put(ctx, sessionUserKey, userID)
	if err := s.SaveSession(c); err != nil {
		return err
	}
	s.gc.maybeRun(ctx, s)
	return nil
}

// EndSession ends the caller's session, if any, and clears its cookie.
func (s *Server) EndSession(c echo.Context) error {
	if err := s.sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	return s.SaveSession(c)
}

// UserID is the signed-in caller, or "" for a guest.
func UserID(c echo.Context) string {
	id, _ := c.Get(userIDKey).(string)
	return id
}

// RequireUser answers 401 to a caller who is not signed in.
func RequireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if UserID(c) == "" {
			return ErrUnauthenticated
		}
		return next(c)
	}
}

// sessionGC deletes expired sessions at most once per interval.
type sessionGC struct {
	mu   sync.Mutex
	last time.Time
}

const sessionGCInterval = 10 * time.Minute

func (g *sessionGC) maybeRun(ctx context.Context, s *Server) {
	g.mu.Lock()
	due := time.Since(g.last) >= sessionGCInterval
	if due {
		g.last = time.Now()
	}
	g.mu.Unlock()
	if !due {
		return
	}
	if err := s.Store.DeleteExpiredSessions(ctx); err != nil && ctx.Err() == nil {
		s.Log.Warn("delete expired sessions", "err", err)
	}
}
