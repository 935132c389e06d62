package web

import (
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web/clientaddr"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"
)

// Limit is a token bucket: one request per every, up to burst at once.
type Limit struct {
	every time.Duration
	burst int
}

var (
	// LoginLimit guards login per client address against password
	// guessing: 10 a minute, 5 at once.
	LoginLimit = Limit{every: 6 * time.Second, burst: 5}
	// SignupLimit guards sign-up per client address, apart from login:
	// every account may hold seats, so accounts made in bulk would hold a
	// show. 3 at once, then 3 an hour.
	SignupLimit = Limit{every: 20 * time.Minute, burst: 3}
	// HoldLimit guards hold creation per user: 5 a second, 10 at once.
	HoldLimit = Limit{every: 200 * time.Millisecond, burst: 10}
)

// RateLimit refuses, with 429 and Retry-After, requests of one key beyond
// l. It passes everything when the configuration turns rate limits off.
func (s *Server) RateLimit(l Limit, key func(echo.Context) string) echo.MiddlewareFunc {
	if !s.Config.RateLimits {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	tokens := newBuckets(l, s.Now)
	// A refused request's token comes back within one interval.
	retryAfter := max(1, int(math.Ceil(l.every.Seconds())))
	// The refusal is returned, not answered here (as Echo's RateLimiter
	// middleware does), so a page can still answer it its own way.
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !tokens.allow(key(c)) {
				return problem.RateLimited(retryAfter)
			}
			return next(c)
		}
	}
}

// UserOrIP keys a signed-in caller by account, anyone else by address.
func UserOrIP(c echo.Context) string {
	if id := session.UserID(c); id != "" {
		return "user:" + id
	}
	return clientaddr.Key(c)
}

var errCrossOrigin = problem.New(http.StatusForbidden, "cross_origin",
	"This request came from another site and was refused.")

// CrossOrigin refuses state-changing requests a browser sends from another
// site (CSRF): the session cookie alone never authorizes a change.
func (s *Server) CrossOrigin() echo.MiddlewareFunc {
	cop := http.NewCrossOriginProtection()
	if u, err := url.Parse(s.Config.PublicURL); err == nil && u.Scheme != "" && u.Host != "" {
		// Behind a proxy the Host header may differ from the public address.
		if err := cop.AddTrustedOrigin(u.Scheme + "://" + u.Host); err != nil {
			s.Log.Warn("public url is not a usable origin", "url", s.Config.PublicURL, "err", err)
		}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := cop.Check(c.Request()); err != nil {
				return errCrossOrigin
			}
			return next(c)
		}
	}
}

// NoStore keeps answers that depend on the caller's session (bookings, the
// seats marked mine) out of every cache.
func NoStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		return next(c)
	}
}

// answerErrors answers an error where it arises, inside the compression
// middleware, rather than after every middleware has returned: error pages
// and JSON errors are compressed like any other answer.
func answerErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := next(c); err != nil {
			c.Error(err)
		}
		return nil
	}
}
