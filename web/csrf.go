package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"regexp"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/web/problem"
)

const (
	// csrfCookie holds the browser's CSRF token; every page form and htmx
	// request sends it back in a form field or header (double submit).
	csrfCookie   = "marquee_csrf"
	csrfKey      = "marquee.csrf" // echo.Context key of the token
	csrfLifetime = 7 * 24 * time.Hour
)

var (
	csrfTokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

	errCSRF = problem.New(http.StatusForbidden, "csrf_failed",
		"This form has expired or came from another site, so nothing was changed. Reload the page and try again.")
)

// csrf protects page forms and htmx requests: a request that changes
// anything must come from our own pages (Sec-Fetch-Site, when the browser
// sends it, says so) and carry the token of the browser's CSRF cookie in
// the _csrf form field or the X-CSRF-Token header. The JSON API keeps its
// own protection (a cross-site form cannot send JSON); this is for pages.
func (s *Server) csrf() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			token := ""
			if ck, err := c.Cookie(csrfCookie); err == nil && csrfTokenPattern.MatchString(ck.Value) {
				token = ck.Value
			}
			switch c.Request().Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
			default:
				switch c.Request().Header.Get("Sec-Fetch-Site") {
				case "cross-site", "same-site":
					return errCSRF
				}
				sent := c.Request().Header.Get(components.CSRFHeader)
				if sent == "" {
					sent = c.FormValue(components.CSRFField)
				}
				if token == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(token)) != 1 {
					return errCSRF
				}
			}
			if token == "" {
				token = s.IssueCSRF(c)
			}
			c.Set(csrfKey, token)
			return next(c)
		}
	}
}

// IssueCSRF gives the browser a new CSRF token and returns it.
func (s *Server) IssueCSRF(c echo.Context) string {
	b := make([]byte, 32)
	rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	c.SetCookie(&http.Cookie{
		Name: csrfCookie, Value: token, Path: "/",
		MaxAge: int(csrfLifetime.Seconds()), HttpOnly: true, Secure: s.Secure(), SameSite: http.SameSiteLaxMode,
	})
	c.Set(csrfKey, token)
	return token
}

// CSRFToken is the caller's CSRF token, for the page's forms. Outside the
// csrf middleware (an error page for an unknown address) it is the cookie's.
func CSRFToken(c echo.Context) string {
	if t, _ := c.Get(csrfKey).(string); t != "" {
		return t
	}
	if ck, err := c.Cookie(csrfCookie); err == nil && csrfTokenPattern.MatchString(ck.Value) {
		return ck.Value
	}
	return ""
}
