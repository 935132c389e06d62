// Package session keeps who is signed in. A session is held by its browser
// in an HttpOnly cookie and kept in the sessions table (a hash of its
// token, so a copy of the table opens none) behind a cache of the sessions
// in use (store.go). It ends a lifetime after sign-in, or when left idle.
package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
)

const (
	// Cookie is the name of the session cookie over http.
	Cookie = "marquee_session"
	// SecureCookie is its name over https. Browsers keep a __Host- cookie
	// only if it is Secure, for Path=/ and without a Domain: no subdomain
	// (nor a page over plain http) can set or shadow it.
	SecureCookie = "__Host-" + Cookie

	// DefaultLifetime is how long a session lasts however busy it is: a
	// week, then the moviegoer logs in again.
	DefaultLifetime = 7 * 24 * time.Hour
	// DefaultIdleTimeout ends a session nobody has used for two hours. A
	// ticket site is often used on shared and borrowed devices (a family's
	// tablet, a friend's phone, a kiosk); two hours outlasts any visit (a
	// hold lasts minutes, and paying on the provider's page makes no
	// request here for at most that long) and an evening's pause to ask
	// the others which show, yet signs out a forgotten browser the same
	// evening rather than a week later.
	DefaultIdleTimeout = 2 * time.Hour

	userKey   = "user_id"
	userIDKey = "marquee.user_id"       // echo.Context key of the signed-in user
	savedKey  = "marquee.session_saved" // echo.Context key: Save has run
)

// ErrSignedOut refuses a guest what only a signed-in user may do.
var ErrSignedOut = errors.New("not signed in")

// CookieName is the session cookie's name for the app at publicURL.
func CookieName(publicURL string) string {
	if strings.HasPrefix(strings.ToLower(publicURL), "https://") {
		return SecureCookie
	}
	return Cookie
}

// Options are a Manager's settings.
type Options struct {
	// PublicURL is the app's address: over https the cookie is
	// SecureCookie, and Secure.
	PublicURL string
	// Lifetime and IdleTimeout end a session (see DefaultLifetime and
	// DefaultIdleTimeout).
	Lifetime, IdleTimeout time.Duration
	// Now is the clock sessions expire by (tests move it).
	Now func() time.Time
	// DeleteExpired deletes the sessions past their expiry, now and then
	// at sign-in; nil: never.
	DeleteExpired func(context.Context) error
	// Log is where a failure nobody is answered about goes.
	Log *slog.Logger
}

// Manager loads, saves, starts and ends the sessions of requests.
type Manager struct {
	scs           *scs.SessionManager
	store         *cachedStore
	deleteExpired func(context.Context) error
	log           *slog.Logger
	gc            gc
}

// New keeps sessions in rows. A session ends o.Lifetime after sign-in, or
// o.IdleTimeout after its last request (to within a sixtieth of it),
// whichever comes first, by o.Now.
func New(rows Rows, o Options) *Manager {
	sm := scs.New()
	// scs would keep the idle timeout itself by committing every session
	// on every request, on this machine's clock. The store keeps it
	// instead (see cachedStore): an active session's expiry is moved on at
	// most every 1/60 of the idle timeout (two minutes of two hours), and
	// a page view writes nothing. Expired rows are deleted now and then at
	// sign-in (gc), and never read: the store skips them.
	store := newCachedStore(rows, sessionCacheTTL, o.IdleTimeout, o.IdleTimeout/60, o.Now)
	sm.Store = store
	sm.IdleTimeout = 0
	sm.HashTokenInStore = true
	sm.Codec = newSessionCodec()
	sm.Lifetime = o.Lifetime
	sm.Cookie.Name = CookieName(o.PublicURL)
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Path = "/"
	sm.Cookie.Domain = ""
	sm.Cookie.Secure = strings.HasPrefix(strings.ToLower(o.PublicURL), "https://")
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{scs: sm, store: store, deleteExpired: o.DeleteExpired, log: log}
}

// cookieExpiry is when the cookie of a session just committed with
// deadline expires: with the session. The browser counts the time left on
// its own clock (tests move the store's).
func (m *Manager) cookieExpiry(deadline time.Time) time.Time {
	now := m.store.now()
	return time.Now().Add(m.store.expiry(deadline, now).Sub(now))
}

// Load attaches the caller's session (possibly a new, empty one) to the
// request. Handlers that change the session call Save before they answer.
// A signed-in caller's session is committed again just before the answer's
// headers go out (unless the handler saved it), which moves its idle
// expiry and its cookie's on.
func (m *Manager) Load(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var token string
		if ck, err := c.Cookie(m.scs.Cookie.Name); err == nil {
			token = ck.Value
		}
		ctx, err := m.scs.Load(c.Request().Context(), token)
		if err != nil {
			return fmt.Errorf("load session: %w", err)
		}
		c.SetRequest(c.Request().WithContext(ctx))
		c.Response().Header().Add("Vary", "Cookie")
		if id := m.scs.GetString(ctx, userKey); id != "" {
			c.Set(userIDKey, id)
			c.Response().Before(func() { m.touch(c) })
		}
		return next(c)
	}
}

// touch commits the session once more, so its idle timeout counts from
// this request (the store writes only when that moves its expiry on by a
// grain) and its cookie's expiry moves on. The answer is on its way: a
// failure is logged, and the session still lasts until the expiry stored
// before.
func (m *Manager) touch(c echo.Context) {
	if saved, _ := c.Get(savedKey).(bool); saved {
		return
	}
	// scs commits only a session it sees modified; setting the deadline
	// it has marks it so without changing it.
	ctx := c.Request().Context()
	m.scs.SetDeadline(ctx, m.scs.Deadline(ctx))
	if err := m.Save(c); err != nil {
		m.log.WarnContext(ctx, "move the session's idle expiry on", "err", err)
	}
}

// Save stores a changed session and sets (or clears) its cookie. It runs
// before the answer is written, so a failure is still a proper error.
func (m *Manager) Save(c echo.Context) error {
	ctx := c.Request().Context()
	c.Set(savedKey, true)
	switch m.scs.Status(ctx) {
	case scs.Modified:
		token, deadline, err := m.scs.Commit(ctx)
		if err != nil {
			return fmt.Errorf("save session: %w", err)
		}
		m.scs.WriteSessionCookie(ctx, c.Response(), token, m.cookieExpiry(deadline))
	case scs.Destroyed:
		m.scs.WriteSessionCookie(ctx, c.Response(), "", time.Time{})
	}
	return nil
}

// SignIn starts a fresh session for userID. A new token on every sign-in
// means a token planted before it (session fixation) opens nothing.
func (m *Manager) SignIn(c echo.Context, userID string) error {
	ctx := c.Request().Context()
	if err := m.scs.RenewToken(ctx); err != nil {
		return fmt.Errorf("renew session: %w", err)
	}
	// The lifetime counts on the store's clock, as the idle timeout does.
	m.scs.SetDeadline(ctx, m.store.now().Add(m.scs.Lifetime).UTC())
	m.scs.Put(ctx, userKey, userID)
	if err := m.Save(c); err != nil {
		return err
	}
	m.gc.maybeRun(ctx, m)
	return nil
}

// End ends the caller's session, if any, and clears its cookie.
func (m *Manager) End(c echo.Context) error {
	if err := m.scs.Destroy(c.Request().Context()); err != nil {
		return err
	}
	return m.Save(c)
}

// UserOf is the user of the session of token (a cookie's value), for an
// answer that did not go through Load; "" for none.
func (m *Manager) UserOf(ctx context.Context, token string) (string, error) {
	// Load keeps a session the request already carries.
	ctx, err := m.scs.Load(ctx, token)
	if err != nil {
		return "", err
	}
	return m.scs.GetString(ctx, userKey), nil
}

// UserID is the signed-in caller, or "" for a guest.
func UserID(c echo.Context) string {
	id, _ := c.Get(userIDKey).(string)
	return id
}

// RequireUser refuses a caller who is not signed in with ErrSignedOut.
func RequireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if UserID(c) == "" {
			return ErrSignedOut
		}
		return next(c)
	}
}

// gc deletes expired sessions at most once per interval.
type gc struct {
	mu   sync.Mutex
	last time.Time
}

const gcInterval = 10 * time.Minute

func (g *gc) maybeRun(ctx context.Context, m *Manager) {
	if m.deleteExpired == nil {
		return
	}
	g.mu.Lock()
	due := time.Since(g.last) >= gcInterval
	if due {
		g.last = time.Now()
	}
	g.mu.Unlock()
	if !due {
		return
	}
	if err := m.deleteExpired(ctx); err != nil && ctx.Err() == nil {
		m.log.WarnContext(ctx, "delete expired sessions", "err", err)
	}
}
