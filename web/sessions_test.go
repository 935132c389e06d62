package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

// sessionCookie returns the Set-Cookie of the session in r, or nil.
func sessionCookie(r *webtest.Response) *http.Cookie {
	for _, line := range r.Header.Values("Set-Cookie") {
		ck, err := http.ParseSetCookie(line)
		if err == nil && ck.Name == web.SessionCookie {
			return ck
		}
	}
	return nil
}

func TestSessions(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)

	t.Run("the session cookie is HttpOnly and SameSite=Lax", func(t *testing.T) {
		c := e.Guest()
		r := c.Post("/api/v1/signup", map[string]string{"email": "cookie@example.com", "password": "long enough", "name": "C"})
		webtest.Want(t, r, http.StatusCreated)
		ck := sessionCookie(r)
		if ck == nil {
			t.Fatalf("no session cookie in %v", r.Header)
		}
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure {
			t.Fatalf("cookie %s: want HttpOnly, SameSite=Lax, Path=/, not Secure over http", ck)
		}
	})

	t.Run("the cookie is Secure when the public URL is https", func(t *testing.T) {
		cfg := e.Cfg
		cfg.PublicURL = "https://marquee.example"
		reg := prometheus.NewRegistry()
		srv := httptest.NewServer(server.New(cfg, e.Store, metrics.New(reg), reg, nil))
		defer srv.Close()
		resp, err := http.Post(srv.URL+"/api/v1/signup", "application/json",
			strings.NewReader(`{"email":"secure@example.com","password":"long enough","name":"S"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ck := sessionCookie(&webtest.Response{Header: resp.Header})
		if resp.StatusCode != http.StatusCreated || ck == nil || !ck.Secure || !ck.HttpOnly {
			t.Fatalf("status %d, cookie %v: want Secure", resp.StatusCode, ck)
		}
	})

	t.Run("login renews the session token", func(t *testing.T) {
		c := e.Guest()
		_, email := c.Signup(t)
		first := c.Post("/api/v1/login", map[string]string{"email": email, "password": "correct horse"})
		webtest.Want(t, first, http.StatusOK)
		second := c.Post("/api/v1/login", map[string]string{"email": strings.ToUpper(email), "password": "correct horse"})
		webtest.Want(t, second, http.StatusOK)
		a, b := sessionCookie(first), sessionCookie(second)
		if a == nil || b == nil || a.Value == b.Value {
			t.Fatalf("tokens %v and %v: want two different ones", a, b)
		}
		old := e.Guest().Send(webtest.Req{Method: "GET", Path: "/api/v1/me", Header: map[string]string{"Cookie": web.SessionCookie + "=" + a.Value}})
		webtest.WantError(t, old, http.StatusUnauthorized, "unauthenticated")
		webtest.Want(t, c.Get("/api/v1/me"), http.StatusOK)
	})

	t.Run("a token planted before login opens nothing", func(t *testing.T) {
		_, email := e.Guest().Signup(t)
		r := e.Guest().Send(webtest.Req{Method: "POST", Path: "/api/v1/login", Body: map[string]string{"email": email, "password": "correct horse"},
			Header: map[string]string{"Cookie": web.SessionCookie + "=planted-by-attacker"}})
		webtest.Want(t, r, http.StatusOK)
		if ck := sessionCookie(r); ck == nil || ck.Value == "planted-by-attacker" {
			t.Fatalf("login kept the planted token: %v", ck)
		}
	})

	t.Run("logout ends the session", func(t *testing.T) {
		c := e.Guest()
		c.Signup(t)
		token := ""
		for _, ck := range c.HTTP.Jar.Cookies(webtest.MustURL(e.Srv.URL)) {
			if ck.Name == web.SessionCookie {
				token = ck.Value
			}
		}
		r := c.Post("/api/v1/logout", nil)
		webtest.Want(t, r, http.StatusNoContent)
		if ck := sessionCookie(r); ck == nil || ck.MaxAge >= 0 {
			t.Fatalf("logout cookie %v: want it deleted", ck)
		}
		webtest.WantError(t, c.Get("/api/v1/me"), http.StatusUnauthorized, "unauthenticated")
		replay := e.Guest().Send(webtest.Req{Method: "GET", Path: "/api/v1/me", Header: map[string]string{"Cookie": web.SessionCookie + "=" + token}})
		webtest.WantError(t, replay, http.StatusUnauthorized, "unauthenticated")
		webtest.Want(t, c.Post("/api/v1/logout", "{}"), http.StatusNoContent)
	})

	t.Run("a wrong password and an unknown email get the same answer", func(t *testing.T) {
		c := e.Guest()
		_, email := c.Signup(t)
		wrong := e.Guest().Post("/api/v1/login", map[string]string{"email": email, "password": "wrong horse"})
		webtest.WantError(t, wrong, http.StatusUnauthorized, "bad_credentials")
		unknown := e.Guest().Post("/api/v1/login", map[string]string{"email": "nobody@example.com", "password": "wrong horse"})
		if wrong.Status != unknown.Status || string(wrong.Body) != string(unknown.Body) {
			t.Fatalf("wrong password: %s\nunknown email: %s", wrong, unknown)
		}
		if sessionCookie(wrong) != nil {
			t.Fatal("a failed login set a session cookie")
		}
	})

	t.Run("an email signs up once", func(t *testing.T) {
		c := e.Guest()
		_, email := c.Signup(t)
		again := e.Guest().Post("/api/v1/signup", map[string]string{"email": strings.ToUpper(email), "password": "another one", "name": "X"})
		webtest.WantError(t, again, http.StatusConflict, "email_taken")
	})

	t.Run("a fixture user logs in with the fixture password", func(t *testing.T) {
		webtest.Want(t, e.FixtureUser(t).Get("/api/v1/me"), http.StatusOK)
	})

	t.Run("a cross-site browser request is refused", func(t *testing.T) {
		c := e.User(t)
		r := c.Send(webtest.Req{Method: "POST", Path: "/api/v1/logout", Header: map[string]string{
			"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}})
		webtest.WantError(t, r, http.StatusForbidden, "cross_origin")
		webtest.Want(t, c.Get("/api/v1/me"), http.StatusOK)
		same := c.Send(webtest.Req{Method: "POST", Path: "/api/v1/logout", Header: map[string]string{
			"Origin": webtest.PublicURL, "Sec-Fetch-Site": "same-origin"}})
		webtest.Want(t, same, http.StatusNoContent)
	})
}
