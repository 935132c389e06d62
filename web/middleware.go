package web

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
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
				return errRateLimited(retryAfter)
			}
			return next(c)
		}
	}
}

// ClientIP keys a caller by the network its requests come from.
func ClientIP(c echo.Context) string { return "ip:" + ClientNet(c).String() }

// ClientNet is the network a caller's requests come from, the unit the
// rate limits and the held-seat caps count by: its IPv4 address, or the /64
// of its IPv6 address (one subscriber's: a host may use any address in
// it). An address that cannot be read counts as 0.0.0.0, so all such
// callers share one allowance rather than each having its own.
func ClientNet(c echo.Context) netip.Prefix {
	addr, err := netip.ParseAddr(c.RealIP())
	if err != nil {
		return netip.PrefixFrom(netip.IPv4Unspecified(), 32)
	}
	addr = addr.Unmap().WithZone("")
	bits := 32
	if addr.Is6() {
		bits = 64
	}
	p, _ := addr.Prefix(bits) // bits fit the address
	return p
}

// clientIPExtractor finds a request's client address. With no trusted
// proxies it is the TCP peer's, whatever the headers say. Otherwise
// X-Forwarded-For is believed only when the peer is in a trusted network,
// and read from the right, each proxy appending the address it heard from:
// the client is the first address that is not a trusted proxy. Nothing is
// trusted for being loopback or private: a sidecar, a neighbouring
// container or a client on our own network can forge the header as well.
// X-Real-IP, which carries one address with no chain to check, is never
// read.
func clientIPExtractor(trusted []netip.Prefix) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range trusted {
		p = p.Masked()
		opts = append(opts, echo.TrustIPRange(&net.IPNet{
			IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen()),
		}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// UserOrIP keys a signed-in caller by account, anyone else by address.
func UserOrIP(c echo.Context) string {
	if id := UserID(c); id != "" {
		return "user:" + id
	}
	return ClientIP(c)
}

var errCrossOrigin = NewError(http.StatusForbidden, "cross_origin",
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

// compressMinLength is the smallest answer worth compressing: below it,
// gzip's own header and checksum eat most of what it saves.
const compressMinLength = 1024

// compress gzips answers for clients that accept it: pages, fragments,
// JSON, CSS and JavaScript (the 360-seat show page shrinks from 121 KB to
// under 9 KB). It leaves alone what is compressed already (images), ranges
// of a file, and the live seat map's websocket, which negotiates its own
// compression. (The metrics, which compress themselves, are served apart.)
func compress() echo.MiddlewareFunc {
	return middleware.GzipWithConfig(middleware.GzipConfig{
		MinLength: compressMinLength,
		Skipper: func(c echo.Context) bool {
			req := c.Request()
			switch {
			case c.Path() == LiveRoute, c.Path() == QueueLiveRoute,
				selfCompressed[c.Path()], // see RenderShared
				req.Header.Get("Range") != "",
				req.Header.Get(echo.HeaderUpgrade) != "":
				return true
			}
			return precompressed[strings.ToLower(path.Ext(req.URL.Path))]
		},
	})
}

// precompressed are the file types whose content is compressed already:
// gzip would spend time to make them bigger.
var precompressed = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".avif": true,
	".woff": true, ".woff2": true, ".gz": true, ".br": true, ".zip": true,
}

// answerErrors answers an error where it arises, inside compress, rather
// than after every middleware has returned: error pages and JSON errors
// are compressed like any other answer.
func answerErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := next(c); err != nil {
			c.Error(err)
		}
		return nil
	}
}
