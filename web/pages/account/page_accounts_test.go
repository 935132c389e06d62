package account_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestAccountPages(t *testing.T) {
	e := webtest.NewEnv(t)

	t.Run("sign up signs in and goes on to next", func(t *testing.T) {
		b := e.Browser()
		p := b.Get(t, "/signup?next=/bookings")
		webtest.Want200(t, p)
		if p.Attr(`form[action="/signup"] input[name="_csrf"]`, "value") != b.Token(t) {
			t.Fatal("the form does not carry the CSRF token")
		}
		if p.Attr(`input[name="next"]`, "value") != "/bookings" {
			t.Fatal("next is not kept in the form")
		}
		p = b.Submit(t, "/signup", url.Values{"name": {"Asha"}, "email": {"asha@example.com"}, "password": {"correct horse"}, "next": {"/bookings"}})
		webtest.WantSeeOther(t, p, "/bookings")
		var session string
		for _, ck := range p.Header.Values("Set-Cookie") {
			if strings.HasPrefix(ck, "marquee_session=") {
				session = ck
			}
		}
		if !strings.Contains(session, "HttpOnly") || !strings.Contains(session, "SameSite=Lax") || strings.Contains(session, "Secure") {
			t.Fatalf("session cookie %q: want HttpOnly, SameSite=Lax, not Secure over http", session)
		}
		p = b.Get(t, "/bookings")
		webtest.Want200(t, p)
		if !strings.Contains(p.Text("header"), "Log out") {
			t.Fatalf("not signed in: %s", p.Text("header"))
		}
	})

	t.Run("sign up explains what to fix and keeps what was typed", func(t *testing.T) {
		b := e.Browser()
		p := b.Submit(t, "/signup", url.Values{"name": {"Ravi"}, "email": {"ravi@example.com"}, "password": {"short"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if p.Attr("#password", "aria-invalid") != "true" || !strings.Contains(p.Text("#password-error"), "8 characters") {
			t.Fatalf("no password hint: %s", p)
		}
		if p.Attr("#email", "value") != "ravi@example.com" || p.Attr("#name", "value") != "Ravi" {
			t.Fatal("the form forgot what was typed")
		}
		p = b.Submit(t, "/signup", url.Values{"name": {"Ravi\u202e"}, "email": {"ravi@example.com"}, "password": {"correct horse"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if p.Attr("#name", "aria-invalid") != "true" || p.Text("#name-error") != "Type your name again: it holds an invisible character, or one that reverses the text." {
			t.Fatalf("a name with a right-to-left override: %q", p.Text("#name-error"))
		}
		p = b.Submit(t, "/signup", url.Values{"name": {"Asha again"}, "email": {"ASHA@example.com"}, "password": {"correct horse"}})
		webtest.WantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.Text("#form-error"), "already exists") {
			t.Fatalf("taken email: %s", p.Text("#form-error"))
		}
	})

	t.Run("login rotates the session id", func(t *testing.T) {
		id := pgtest.User(t, e.Store)
		u, err := e.Store.User(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		b := e.Browser()
		// A token planted before login (session fixation) must not survive it.
		b.Jar.SetCookies(webtest.MustURL(e.Srv.URL+"/"), []*http.Cookie{{Name: "marquee_session", Value: "planted-by-an-attacker", Path: "/"}})
		p := b.Submit(t, "/login", url.Values{"email": {u.Email}, "password": {pgtest.FixturePassword}, "next": {e.ShowPath()}})
		webtest.WantSeeOther(t, p, e.ShowPath())
		first := b.SessionCookie()
		if first == "" || first == "planted-by-an-attacker" {
			t.Fatalf("session after login = %q", first)
		}
		csrfBefore := b.Token(t)
		p = b.Submit(t, "/login", url.Values{"email": {u.Email}, "password": {pgtest.FixturePassword}})
		webtest.WantSeeOther(t, p, "/")
		second := b.SessionCookie()
		if second == "" || second == first {
			t.Fatalf("session id not rotated at login: %q then %q", first, second)
		}
		if b.Token(t) == csrfBefore {
			t.Fatal("CSRF token not rotated at login")
		}
		// The old token opens nothing.
		old := e.Browser()
		old.Jar.SetCookies(webtest.MustURL(e.Srv.URL+"/"), []*http.Cookie{{Name: "marquee_session", Value: first, Path: "/"}})
		if p := old.Get(t, "/bookings"); p.Status != http.StatusSeeOther {
			t.Fatalf("the session before the last login still works: %s", p)
		}
	})

	t.Run("wrong password", func(t *testing.T) {
		b := e.Browser()
		p := b.Submit(t, "/login", url.Values{"email": {"asha@example.com"}, "password": {"wrong password"}})
		webtest.WantStatus(t, p, http.StatusUnauthorized)
		if !strings.Contains(p.Text("[role=alert]"), "Wrong email or password") || p.Attr("#email", "value") != "asha@example.com" {
			t.Fatalf("wrong password: %s", p)
		}
		if b.SessionCookie() != "" {
			t.Fatal("a failed login set a session")
		}
	})

	t.Run("next never leads off the site", func(t *testing.T) {
		for _, next := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"} {
			b := e.Browser()
			b.Signup(t) // signed in: the login page sends on to next at once
			p := b.Get(t, "/login?next="+url.QueryEscape(next))
			loc := p.Header.Get("Location")
			if p.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") ||
				strings.Contains(loc, "evil") || strings.Contains(loc, "\\") || strings.Contains(loc, ":") {
				t.Errorf("next %q: %d to %q", next, p.Status, loc)
			}
		}
	})

	t.Run("a form without the CSRF token is refused", func(t *testing.T) {
		b := e.Browser()
		b.Token(t)
		p := b.Send(t, "POST", "/signup", url.Values{"name": {"Mallory"}, "email": {"m@example.com"}, "password": {"correct horse"}}, nil)
		webtest.WantFriendly(t, p, http.StatusForbidden)
		if !strings.Contains(p.Text("main"), "Reload the page") {
			t.Fatalf("not friendly: %s", p.Text("main"))
		}
		p = b.Send(t, "POST", "/signup", url.Values{"_csrf": {"forged"}, "name": {"Mallory"}, "email": {"m@example.com"}, "password": {"correct horse"}}, nil)
		webtest.WantFriendly(t, p, http.StatusForbidden)
		p = b.Send(t, "POST", "/signup", url.Values{"_csrf": {b.Token(t)}, "name": {"Mallory"}, "email": {"m@example.com"}, "password": {"correct horse"}},
			map[string]string{"Sec-Fetch-Site": "cross-site"})
		webtest.WantFriendly(t, p, http.StatusForbidden)
		if n := e.Count(t, `SELECT count(*) FROM users WHERE email = 'm@example.com'`); n != 0 {
			t.Fatal("a refused form created an account")
		}
	})

	t.Run("log out by POST ends the session", func(t *testing.T) {
		b := e.PageUser(t)
		p := b.Get(t, "/bookings")
		webtest.Want200(t, p)
		if p.Attr(`form[action="/logout"]`, "method") != "post" {
			t.Fatal("no log-out form")
		}
		if p := b.Get(t, "/logout"); p.Status != http.StatusMethodNotAllowed && p.Status != http.StatusNotFound {
			t.Fatalf("GET /logout: %d", p.Status)
		}
		webtest.WantFriendly(t, b.Send(t, "POST", "/logout", url.Values{}, nil), http.StatusForbidden)
		webtest.WantSeeOther(t, b.Submit(t, "/logout", nil), "/")
		webtest.WantSeeOther(t, b.Get(t, "/bookings"), "/login?next=%2Fbookings")
	})
}
