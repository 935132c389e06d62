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
	// SessionCookie is the name of the session cookie over http.
	SessionCookie = "marquee_session"
	// SecureSessionCookie is its name over https. Browsers keep a __Host-
	// cookie only if it is Secure, for Path=/ and without a Domain: no
	// subdomain (nor a page over plain http) can set or shadow it.
	SecureSessionCookie = "__Host-" + SessionCookie

	// DefaultSessionLifetime is how long a session lasts however busy it
	// is: a week, then the moviegoer logs in again.
	DefaultSessionLifetime = 7 * 24 * time.Hour
	// DefaultSessionIdleTimeout ends a session nobody has used for two
	// hours. A ticket site is often used on shared and borrowed devices (a
	// family's tablet, a friend's phone, a kiosk); two hours outlasts any
	// visit (a hold lasts minutes, and paying on the provider's page makes
	// no request here for at most that long) and an evening's pause to ask
	// the others which show, yet signs out a forgotten browser the same
	// evening rather than a week later.
	DefaultSessionIdleTimeout = 2 * time.Hour

	sessionUserKey  = "user_id"
	userIDKey       = "marquee.user_id"       // echo.Context key of the signed-in user
	sessionSavedKey = "marquee.session_saved" // echo.Context key: SaveSession has run
)

// SessionCookieName is the session cookie's name for the app at publicURL.
func SessionCookieName(publicURL string) string {
	if strings.HasPrefix(strings.ToLower(publicURL), "https://") {
		return SecureSessionCookie
	}
	return SessionCookie
}

// sessionManager is scs's manager with the store that keeps the sessions'
// idle expiry.
type sessionManager struct {
	*scs.SessionManager
	store *cachedStore
}

// newSessionManager keeps sessions in the sessions table. Only a hash of
// each token is stored, so a copy of the table opens no session. A session
// ends lifetime after sign-in, or idle after its last request (to within
// idle/60), whichever comes first, by now (the store's clock).
func newSessionManager(rows sessionRows, publicURL string, lifetime, idle time.Duration, now func() time.Time) *sessionManager {
	sm := scs.New()
	// scs would keep the idle timeout itself by committing every session
	// on every request, on this machine's clock. The store keeps it
	// instead (see cachedStore): an active session's expiry is moved on at
	// most every 1/60 of the idle timeout (two minutes of two hours), and
	// a page view writes nothing. Expired rows are deleted now and then at
	// sign-in (sessionGC), and never read: the store skips them.
	store := newCachedStore(rows, sessionCacheTTL, idle, idle/60, now)
	sm.Store = store
	sm.IdleTimeout = 0
	sm.HashTokenInStore = true
	sm.Codec = newSessionCodec()
	sm.Lifetime = lifetime
	sm.Cookie.Name = SessionCookieName(publicURL)
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Path = "/"
	sm.Cookie.Domain = ""
	sm.Cookie.Secure = strings.HasPrefix(strings.ToLower(publicURL), "https://")
	return &sessionManager{SessionManager: sm, store: store}
}

// appClock is the store's clock for the decisions made here rather than in
// SQL (when a session expires, how old a cached header is): Store.Clock
// (tests move it), else this machine's.
func appClock(store *postgres.Store) func() time.Time {
	return func() time.Time {
		if store.Clock != nil {
			return store.Clock()
		}
		return time.Now()
	}
}

// cookieExpiry is when the cookie of a session just committed with
// deadline expires: with the session. The browser counts the time left on
// its own clock (tests move the store's).
func (m *sessionManager) cookieExpiry(deadline time.Time) time.Time {
	now := m.store.now()
	return time.Now().Add(m.store.expiry(deadline, now).Sub(now))
}

// LoadSession attaches the caller's session (possibly a new, empty one) to
// the request. Handlers that change the session call saveSession before they
// answer. A signed-in caller's session is committed again just before the
// answer's headers go out (unless the handler saved it), which moves its
// idle expiry and its cookie's on.
func (s *Server) LoadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var token string
		if ck, err := c.Cookie(s.sessions.Cookie.Name); err == nil {
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
			c.Response().Before(func() { s.touchSession(c) })
		}
		return next(c)
	}
}

// touchSession commits the session once more, so its idle timeout counts
// from this request (the store writes only when that moves its expiry on
// by a grain) and its cookie's expiry moves on. The answer is on its way:
// a failure is logged, and the session still lasts until the expiry stored
// before.
func (s *Server) touchSession(c echo.Context) {
	if saved, _ := c.Get(sessionSavedKey).(bool); saved {
		return
	}
	// scs commits only a session it sees modified; setting the deadline
	// it has marks it so without changing it.
	ctx := c.Request().Context()
	s.sessions.SetDeadline(ctx, s.sessions.Deadline(ctx))
	if err := s.SaveSession(c); err != nil {
		s.Log.WarnContext(ctx, "move the session's idle expiry on", "err", err)
	}
}

// SaveSession stores a changed session and sets (or clears) its cookie. It
// runs before the answer is written, so a failure is still a proper error.
func (s *Server) SaveSession(c echo.Context) error {
	ctx := c.Request().Context()
	c.Set(sessionSavedKey, true)
	switch s.sessions.Status(ctx) {
	case scs.Modified:
		token, deadline, err := s.sessions.Commit(ctx)
		if err != nil {
			return fmt.Errorf("save session: %w", err)
		}
		s.sessions.WriteSessionCookie(ctx, c.Response(), token, s.sessions.cookieExpiry(deadline))
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
	// The lifetime counts on the store's clock, as the idle timeout does.
	s.sessions.SetDeadline(ctx, s.sessions.store.now().Add(s.sessions.Lifetime).UTC())
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
		s.Log.WarnContext(ctx, "delete expired sessions", "err", err)
	}
}
