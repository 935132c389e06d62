package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

// sessionCookie returns the Set-Cookie of the session in r, or nil.
func sessionCookie(r *response) *http.Cookie {
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
	e := newEnv(t)

	t.Run("the session cookie is HttpOnly and SameSite=Lax", func(t *testing.T) {
		c := e.guest()
		r := c.post("/api/v1/signup", map[string]string{"email": "cookie@example.com", "password": "long enough", "name": "C"})
		want(t, r, http.StatusCreated)
		ck := sessionCookie(r)
		if ck == nil {
			t.Fatalf("no session cookie in %v", r.Header)
		}
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure {
			t.Fatalf("cookie %s: want HttpOnly, SameSite=Lax, Path=/, not Secure over http", ck)
		}
	})

	t.Run("the cookie is Secure when the public URL is https", func(t *testing.T) {
		cfg := e.cfg
		cfg.PublicURL = "https://marquee.example"
		reg := prometheus.NewRegistry()
		srv := httptest.NewServer(server.New(cfg, e.store, metrics.New(reg), reg, nil))
		defer srv.Close()
		resp, err := http.Post(srv.URL+"/api/v1/signup", "application/json",
			strings.NewReader(`{"email":"secure@example.com","password":"long enough","name":"S"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ck := sessionCookie(&response{Header: resp.Header})
		if resp.StatusCode != http.StatusCreated || ck == nil || !ck.Secure || !ck.HttpOnly {
			t.Fatalf("status %d, cookie %v: want Secure", resp.StatusCode, ck)
		}
	})

	t.Run("login renews the session token", func(t *testing.T) {
		c := e.guest()
		_, email := c.signup(t)
		first := c.post("/api/v1/login", map[string]string{"email": email, "password": "correct horse"})
		want(t, first, http.StatusOK)
		second := c.post("/api/v1/login", map[string]string{"email": strings.ToUpper(email), "password": "correct horse"})
		want(t, second, http.StatusOK)
		a, b := sessionCookie(first), sessionCookie(second)
		if a == nil || b == nil || a.Value == b.Value {
			t.Fatalf("tokens %v and %v: want two different ones", a, b)
		}
		old := e.guest().send(req{method: "GET", path: "/api/v1/me", header: map[string]string{"Cookie": web.SessionCookie + "=" + a.Value}})
		wantError(t, old, http.StatusUnauthorized, "unauthenticated")
		want(t, c.get("/api/v1/me"), http.StatusOK)
	})

	t.Run("a token planted before login opens nothing", func(t *testing.T) {
		_, email := e.guest().signup(t)
		r := e.guest().send(req{method: "POST", path: "/api/v1/login", body: map[string]string{"email": email, "password": "correct horse"},
			header: map[string]string{"Cookie": web.SessionCookie + "=planted-by-attacker"}})
		want(t, r, http.StatusOK)
		if ck := sessionCookie(r); ck == nil || ck.Value == "planted-by-attacker" {
			t.Fatalf("login kept the planted token: %v", ck)
		}
	})

	t.Run("logout ends the session", func(t *testing.T) {
		c := e.guest()
		c.signup(t)
		token := ""
		for _, ck := range c.http.Jar.Cookies(mustURL(e.srv.URL)) {
			if ck.Name == web.SessionCookie {
				token = ck.Value
			}
		}
		r := c.post("/api/v1/logout", nil)
		want(t, r, http.StatusNoContent)
		if ck := sessionCookie(r); ck == nil || ck.MaxAge >= 0 {
			t.Fatalf("logout cookie %v: want it deleted", ck)
		}
		wantError(t, c.get("/api/v1/me"), http.StatusUnauthorized, "unauthenticated")
		replay := e.guest().send(req{method: "GET", path: "/api/v1/me", header: map[string]string{"Cookie": web.SessionCookie + "=" + token}})
		wantError(t, replay, http.StatusUnauthorized, "unauthenticated")
		want(t, c.post("/api/v1/logout", "{}"), http.StatusNoContent)
	})

	t.Run("a wrong password and an unknown email get the same answer", func(t *testing.T) {
		c := e.guest()
		_, email := c.signup(t)
		wrong := e.guest().post("/api/v1/login", map[string]string{"email": email, "password": "wrong horse"})
		wantError(t, wrong, http.StatusUnauthorized, "bad_credentials")
		unknown := e.guest().post("/api/v1/login", map[string]string{"email": "nobody@example.com", "password": "wrong horse"})
		if wrong.Status != unknown.Status || string(wrong.Body) != string(unknown.Body) {
			t.Fatalf("wrong password: %s\nunknown email: %s", wrong, unknown)
		}
		if sessionCookie(wrong) != nil {
			t.Fatal("a failed login set a session cookie")
		}
	})

	t.Run("an email signs up once", func(t *testing.T) {
		c := e.guest()
		_, email := c.signup(t)
		again := e.guest().post("/api/v1/signup", map[string]string{"email": strings.ToUpper(email), "password": "another one", "name": "X"})
		wantError(t, again, http.StatusConflict, "email_taken")
	})

	t.Run("a fixture user logs in with the fixture password", func(t *testing.T) {
		want(t, e.fixtureUser(t).get("/api/v1/me"), http.StatusOK)
	})

	t.Run("a cross-site browser request is refused", func(t *testing.T) {
		c := e.user(t)
		r := c.send(req{method: "POST", path: "/api/v1/logout", header: map[string]string{
			"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}})
		wantError(t, r, http.StatusForbidden, "cross_origin")
		want(t, c.get("/api/v1/me"), http.StatusOK)
		same := c.send(req{method: "POST", path: "/api/v1/logout", header: map[string]string{
			"Origin": publicURL, "Sec-Fetch-Site": "same-origin"}})
		want(t, same, http.StatusNoContent)
	})
}
