package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestAccountPages(t *testing.T) {
	e := newEnv(t)

	t.Run("sign up signs in and goes on to next", func(t *testing.T) {
		b := e.browser()
		p := b.get(t, "/signup?next=/bookings")
		want200(t, p)
		if p.attr(`form[action="/signup"] input[name="_csrf"]`, "value") != b.token(t) {
			t.Fatal("the form does not carry the CSRF token")
		}
		if p.attr(`input[name="next"]`, "value") != "/bookings" {
			t.Fatal("next is not kept in the form")
		}
		p = b.submit(t, "/signup", url.Values{"name": {"Asha"}, "email": {"asha@example.com"}, "password": {"correct horse"}, "next": {"/bookings"}})
		wantSeeOther(t, p, "/bookings")
		var session string
		for _, ck := range p.Header.Values("Set-Cookie") {
			if strings.HasPrefix(ck, "marquee_session=") {
				session = ck
			}
		}
		if !strings.Contains(session, "HttpOnly") || !strings.Contains(session, "SameSite=Lax") || strings.Contains(session, "Secure") {
			t.Fatalf("session cookie %q: want HttpOnly, SameSite=Lax, not Secure over http", session)
		}
		p = b.get(t, "/bookings")
		want200(t, p)
		if !strings.Contains(p.text("header"), "Log out") {
			t.Fatalf("not signed in: %s", p.text("header"))
		}
	})

	t.Run("sign up explains what to fix and keeps what was typed", func(t *testing.T) {
		b := e.browser()
		p := b.submit(t, "/signup", url.Values{"name": {"Ravi"}, "email": {"ravi@example.com"}, "password": {"short"}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		if p.attr("#password", "aria-invalid") != "true" || !strings.Contains(p.text("#password-error"), "8 characters") {
			t.Fatalf("no password hint: %s", p)
		}
		if p.attr("#email", "value") != "ravi@example.com" || p.attr("#name", "value") != "Ravi" {
			t.Fatal("the form forgot what was typed")
		}
		p = b.submit(t, "/signup", url.Values{"name": {"Asha again"}, "email": {"ASHA@example.com"}, "password": {"correct horse"}})
		wantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.text("#form-error"), "already exists") {
			t.Fatalf("taken email: %s", p.text("#form-error"))
		}
	})

	t.Run("login rotates the session id", func(t *testing.T) {
		id := pgtest.User(t, e.store)
		u, err := e.store.User(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		// A token planted before login (session fixation) must not survive it.
		b.jar.SetCookies(mustURL(e.srv.URL+"/"), []*http.Cookie{{Name: "marquee_session", Value: "planted-by-an-attacker", Path: "/"}})
		p := b.submit(t, "/login", url.Values{"email": {u.Email}, "password": {pgtest.FixturePassword}, "next": {e.showPath()}})
		wantSeeOther(t, p, e.showPath())
		first := b.sessionCookie()
		if first == "" || first == "planted-by-an-attacker" {
			t.Fatalf("session after login = %q", first)
		}
		csrfBefore := b.token(t)
		p = b.submit(t, "/login", url.Values{"email": {u.Email}, "password": {pgtest.FixturePassword}})
		wantSeeOther(t, p, "/")
		second := b.sessionCookie()
		if second == "" || second == first {
			t.Fatalf("session id not rotated at login: %q then %q", first, second)
		}
		if b.token(t) == csrfBefore {
			t.Fatal("CSRF token not rotated at login")
		}
		// The old token opens nothing.
		old := e.browser()
		old.jar.SetCookies(mustURL(e.srv.URL+"/"), []*http.Cookie{{Name: "marquee_session", Value: first, Path: "/"}})
		if p := old.get(t, "/bookings"); p.Status != http.StatusSeeOther {
			t.Fatalf("the session before the last login still works: %s", p)
		}
	})

	t.Run("wrong password", func(t *testing.T) {
		b := e.browser()
		p := b.submit(t, "/login", url.Values{"email": {"asha@example.com"}, "password": {"wrong password"}})
		wantStatus(t, p, http.StatusUnauthorized)
		if !strings.Contains(p.text("[role=alert]"), "Wrong email or password") || p.attr("#email", "value") != "asha@example.com" {
			t.Fatalf("wrong password: %s", p)
		}
		if b.sessionCookie() != "" {
			t.Fatal("a failed login set a session")
		}
	})

	t.Run("next never leads off the site", func(t *testing.T) {
		for _, next := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"} {
			b := e.browser()
			b.signup(t) // signed in: the login page sends on to next at once
			p := b.get(t, "/login?next="+url.QueryEscape(next))
			loc := p.Header.Get("Location")
			if p.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") ||
				strings.Contains(loc, "evil") || strings.Contains(loc, "\\") || strings.Contains(loc, ":") {
				t.Errorf("next %q: %d to %q", next, p.Status, loc)
			}
		}
	})

	t.Run("a form without the CSRF token is refused", func(t *testing.T) {
		b := e.browser()
		b.token(t)
		p := b.send(t, "POST", "/signup", url.Values{"name": {"Mallory"}, "email": {"m@example.com"}, "password": {"correct horse"}}, nil)
		wantFriendly(t, p, http.StatusForbidden)
		if !strings.Contains(p.text("main"), "Reload the page") {
			t.Fatalf("not friendly: %s", p.text("main"))
		}
		p = b.send(t, "POST", "/signup", url.Values{"_csrf": {"forged"}, "name": {"Mallory"}, "email": {"m@example.com"}, "password": {"correct horse"}}, nil)
		wantFriendly(t, p, http.StatusForbidden)
		p = b.send(t, "POST", "/signup", url.Values{"_csrf": {b.token(t)}, "name": {"Mallory"}, "email": {"m@example.com"}, "password": {"correct horse"}},
			map[string]string{"Sec-Fetch-Site": "cross-site"})
		wantFriendly(t, p, http.StatusForbidden)
		if n := e.count(t, `SELECT count(*) FROM users WHERE email = 'm@example.com'`); n != 0 {
			t.Fatal("a refused form created an account")
		}
	})

	t.Run("log out by POST ends the session", func(t *testing.T) {
		b := e.pageUser(t)
		p := b.get(t, "/bookings")
		want200(t, p)
		if p.attr(`form[action="/logout"]`, "method") != "post" {
			t.Fatal("no log-out form")
		}
		if p := b.get(t, "/logout"); p.Status != http.StatusMethodNotAllowed && p.Status != http.StatusNotFound {
			t.Fatalf("GET /logout: %d", p.Status)
		}
		wantFriendly(t, b.send(t, "POST", "/logout", url.Values{}, nil), http.StatusForbidden)
		wantSeeOther(t, b.submit(t, "/logout", nil), "/")
		wantSeeOther(t, b.get(t, "/bookings"), "/login?next=%2Fbookings")
	})
}
