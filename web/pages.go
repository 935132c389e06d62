package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/web/compress"
	"github.com/marquee-tickets/marquee/web/session"
)

// pageKey marks a request as one for an HTML page: its errors are answered
// as a page (or, for htmx, a fragment), never as JSON.
const pageKey = "marquee.page"

// CityCookie remembers the city a moviegoer browses.
const CityCookie = "marquee_city"

// CityPattern is a city slug or id; anything else names no city.
var CityPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,100}$`)

// Pages returns the middleware of every HTML page and page form: security
// headers, the session, caching by who asks and CSRF protection. Extra
// middleware m runs last, after the session is loaded.
func (s *Server) Pages(m ...echo.MiddlewareFunc) []echo.MiddlewareFunc {
	return append([]echo.MiddlewareFunc{markPage, securityHeaders(s.Secure()), s.Sessions.Load, pageCache, s.csrf()}, m...)
}

// Secure reports whether the app is served over https.
func (s *Server) Secure() bool {
	return strings.HasPrefix(strings.ToLower(s.Config.PublicURL), "https://")
}

func markPage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(pageKey, true)
		return next(c)
	}
}

// contentSecurityPolicy lets the page load scripts, styles and images from
// its own origin only: no inline script or style, no eval (htmx runs with
// allowEval false), no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// AllowCamera lets the page c answers use the camera and compile
// WebAssembly (the barcode scanner's): the door's page alone needs them.
func AllowCamera(c echo.Context) {
	h := c.Response().Header()
	h.Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", 1))
	h.Set("Permissions-Policy", "camera=(self), microphone=(), geolocation=(), payment=()")
}

// setSecurityHeaders sets the headers every HTML answer carries.
func setSecurityHeaders(h http.Header, https bool) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
	if https {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
}

func securityHeaders(https bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			setSecurityHeaders(c.Response().Header(), https)
			return next(c)
		}
	}
}

// pageCache keeps every page out of shared caches (each carries its
// browser's CSRF token). A page for a signed-in moviegoer names them and
// may show their bookings and tickets: no-store, so it is not written to
// the disk of a shared computer nor shown again by Back after logout. A
// guest's page is only revalidated.
func pageCache(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		cc := "private, no-cache"
		if session.UserID(c) != "" {
			cc = "no-store"
		}
		c.Response().Header().Set(echo.HeaderCacheControl, cc)
		return next(c)
	}
}

// IsHTMX reports whether htmx sent the request (it wants a fragment).
func IsHTMX(c echo.Context) bool {
	return c.Request().Header.Get("HX-Request") == "true"
}

// Render writes comp with status. It renders into a buffer first, so a
// failing component still becomes a proper error answer.
func Render(c echo.Context, status int, comp templ.Component) error {
	return renderIn(c.Request().Context(), c, status, comp)
}

func renderIn(ctx context.Context, c echo.Context, status int, comp templ.Component) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(ctx, buf); err != nil {
		return err
	}
	return compress.Blob(c, status, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}

// Meta is the layout data of a page for the caller.
func (s *Server) Meta(c echo.Context, title string) components.Meta {
	m := components.Meta{Title: title, CSRF: CSRFToken(c), Path: c.Request().URL.RequestURI(), Sandbox: s.Config.Sandbox != nil, DevMailbox: s.Config.DevMailbox}
	ctx := c.Request().Context()
	if id := session.UserID(c); id != "" {
		if u, err := s.layout.user(ctx, id); err == nil {
			m.User = &u
		}
	}
	m.City = s.layoutCity(ctx, c)
	return m
}

// layoutCity is the city of the caller's city cookie as the header shows
// it, or nil.
func (s *Server) layoutCity(ctx context.Context, c echo.Context) *components.City {
	ck, err := c.Cookie(CityCookie)
	if err != nil || !CityPattern.MatchString(ck.Value) {
		return nil
	}
	city, err := s.layout.city(ctx, ck.Value)
	if err != nil {
		return nil
	}
	return &city
}

// SeeOther redirects to path after a form post. htmx follows a 303 itself
// and would swap the whole page into its target, so it is told to navigate
// instead.
func SeeOther(c echo.Context, path string) error {
	if IsHTMX(c) {
		c.Response().Header().Set("HX-Redirect", path)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, path)
}

// RequirePageUser sends a guest to the login page, to come back to this
// page (or, for a form post, to back) afterwards.
func RequirePageUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if session.UserID(c) != "" {
			return next(c)
		}
		back := c.Request().URL.RequestURI()
		if c.Request().Method != http.MethodGet {
			back = SafeNext(c.Request().Referer())
		}
		return SeeOther(c, LoginPath(back))
	}
}

// LoginPath is the login page, coming back to next afterwards.
func LoginPath(next string) string {
	if next == "" || next == "/" {
		return "/login"
	}
	return "/login?next=" + url.QueryEscape(next)
}

// SafeNext returns next if it is a path of this site, else "/". A full URL
// (such as a Referer) is reduced to its path and query. Anything that could
// lead off-site (//host, /\host, a scheme) is refused: an open redirect
// would let a phishing link borrow our login page.
func SafeNext(next string) string {
	if next == "" || strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil {
		return "/"
	}
	if u.Scheme != "" || u.Host != "" {
		// A Referer is absolute: keep only its path on our own site.
		u = &url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	}
	p := u.RequestURI()
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n\t") {
		return "/"
	}
	return p
}
