package session_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/session"
	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/server"
)

// sessionCookie returns the Set-Cookie of the session in r, or nil.
func sessionCookie(r *webtest.Response) *http.Cookie {
	return namedCookie(r, session.Cookie)
}

// namedCookie returns the Set-Cookie of cookie name in r, or nil.
func namedCookie(r *webtest.Response, name string) *http.Cookie {
	for _, line := range r.Header.Values("Set-Cookie") {
		ck, err := http.ParseSetCookie(line)
		if err == nil && ck.Name == name {
			return ck
		}
	}
	return nil
}

// jarToken is the session token in c's cookie jar ("" if none).
func jarToken(e *webtest.Env, c *webtest.Client) string {
	for _, ck := range c.HTTP.Jar.Cookies(webtest.MustURL(e.Srv.URL)) {
		if ck.Name == session.Cookie {
			return ck.Value
		}
	}
	return ""
}

// meWith asks who is signed in with token sent by hand: the cookie jar
// would drop a cookie past its Max-Age, and this is the server's call.
func meWith(e *webtest.Env, token string) *webtest.Response {
	return e.Guest().Send(webtest.Req{Method: "GET", Path: "/api/v1/me", Header: map[string]string{"Cookie": session.Cookie + "=" + token}})
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

	t.Run("over https the cookie is __Host-marquee_session: Secure, Path=/, no Domain", func(t *testing.T) {
		cfg := e.Cfg
		cfg.PublicURL = "https://marquee.example"
		reg := prometheus.NewRegistry()
		srv := httptest.NewServer(server.New(cfg, e.Store, metrics.New(reg), nil))
		defer srv.Close()
		resp, err := http.Post(srv.URL+"/api/v1/signup", "application/json",
			strings.NewReader(`{"email":"secure@example.com","password":"long enough","name":"S"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		r := &webtest.Response{Header: resp.Header}
		ck := namedCookie(r, "__Host-marquee_session")
		if resp.StatusCode != http.StatusCreated || ck == nil || !ck.Secure || !ck.HttpOnly || ck.Path != "/" || ck.Domain != "" {
			t.Fatalf("status %d, Set-Cookie %q: want __Host-marquee_session, Secure, HttpOnly, Path=/, no Domain",
				resp.StatusCode, resp.Header.Values("Set-Cookie"))
		}
		if plain := sessionCookie(r); plain != nil {
			t.Fatalf("the plain cookie name is set over https too: %v", plain)
		}
		me := func(cookie string) int {
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/me", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Cookie", cookie)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if got := me("__Host-marquee_session=" + ck.Value); got != http.StatusOK {
			t.Fatalf("GET /api/v1/me with the __Host- cookie = %d, want 200", got)
		}
		if got := me("marquee_session=" + ck.Value); got != http.StatusUnauthorized {
			t.Fatalf("GET /api/v1/me with the token under the plain name = %d, want 401: over https only __Host- is read", got)
		}
	})

	t.Run("over http the cookie keeps its plain name (browsers refuse __Host- without Secure)", func(t *testing.T) {
		r := e.Guest().Post("/api/v1/signup", map[string]string{"email": "plain@example.com", "password": "long enough", "name": "P"})
		webtest.Want(t, r, http.StatusCreated)
		if sessionCookie(r) == nil || namedCookie(r, "__Host-marquee_session") != nil {
			t.Fatalf("Set-Cookie %q: want marquee_session only", r.Header.Values("Set-Cookie"))
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
		old := e.Guest().Send(webtest.Req{Method: "GET", Path: "/api/v1/me", Header: map[string]string{"Cookie": session.Cookie + "=" + a.Value}})
		webtest.WantError(t, old, http.StatusUnauthorized, "unauthenticated")
		webtest.Want(t, c.Get("/api/v1/me"), http.StatusOK)
	})

	t.Run("a token planted before login opens nothing", func(t *testing.T) {
		_, email := e.Guest().Signup(t)
		r := e.Guest().Send(webtest.Req{Method: "POST", Path: "/api/v1/login", Body: map[string]string{"email": email, "password": "correct horse"},
			Header: map[string]string{"Cookie": session.Cookie + "=planted-by-attacker"}})
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
			if ck.Name == session.Cookie {
				token = ck.Value
			}
		}
		r := c.Post("/api/v1/logout", nil)
		webtest.Want(t, r, http.StatusNoContent)
		if ck := sessionCookie(r); ck == nil || ck.MaxAge >= 0 {
			t.Fatalf("logout cookie %v: want it deleted", ck)
		}
		webtest.WantError(t, c.Get("/api/v1/me"), http.StatusUnauthorized, "unauthenticated")
		replay := e.Guest().Send(webtest.Req{Method: "GET", Path: "/api/v1/me", Header: map[string]string{"Cookie": session.Cookie + "=" + token}})
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

// withSessions gives the env's sessions an idle timeout and a lifetime.
func withSessions(idle, lifetime time.Duration) webtest.EnvOption {
	return func(e *webtest.Env) {
		e.Cfg.SessionIdleTimeout, e.Cfg.SessionLifetime = idle, lifetime
	}
}

// sessionRow is the one session in e's table: its row version (xmin
// changes with every write) and its expiry.
func sessionRow(t *testing.T, e *webtest.Env) (version string, expiry time.Time) {
	t.Helper()
	if n := e.Count(t, `SELECT count(*) FROM sessions`); n != 1 {
		t.Fatalf("%d sessions in the table, want 1", n)
	}
	err := e.Store.Pool().QueryRow(t.Context(), `SELECT xmin::text, expiry FROM sessions`).Scan(&version, &expiry)
	if err != nil {
		t.Fatal(err)
	}
	return version, expiry
}

// A session unused for the idle timeout ends, to within a grain of
// idle/60; one in use lives on past it. (The store's clock, moved by the
// test: the expiry is decided on it.)
func TestSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	const idle, grain = time.Hour, time.Minute
	e := webtest.NewEnv(t, webtest.WithClock, withSessions(idle, 24*time.Hour))
	c := e.Guest()
	_, email := c.Signup(t)
	pgtest.Exec(t, e.Store.Pool(), `DELETE FROM sessions`) // the sign-up's
	r := c.Post("/api/v1/login", map[string]string{"email": email, "password": "correct horse"})
	webtest.Want(t, r, http.StatusOK)
	// The cookie, too, lasts the idle timeout, not the day.
	if ck := sessionCookie(r); ck == nil || ck.MaxAge < int(idle/time.Second)-1 || ck.MaxAge > int(idle/time.Second)+1 {
		t.Fatalf("login cookie %v: want Max-Age of about %v", ck, idle)
	}
	token := jarToken(e, c)

	// In use every ten minutes for twice the idle timeout: still signed in.
	for range 12 {
		e.Clock.Advance(10 * time.Minute)
		me := meWith(e, token)
		webtest.Want(t, me, http.StatusOK)
		if ck := sessionCookie(me); ck == nil || ck.Value != token || ck.MaxAge < int(idle/time.Second)-1 {
			t.Fatalf("a request of a signed-in caller sets %v: want the same token, its expiry moved on", ck)
		}
	}
	// Then left alone: the stored expiry is within a grain before the
	// idle timeout after the last request, and from then it has ended.
	last := e.Clock.Now()
	webtest.Want(t, meWith(e, token), http.StatusOK) // within the grain: moves nothing
	if _, expiry := sessionRow(t, e); expiry.Before(last.Add(idle-grain)) || expiry.After(last.Add(idle)) {
		t.Fatalf("the session expires %v after its last request, want between %v and %v", expiry.Sub(last), idle-grain, idle)
	}
	e.Clock.Set(last.Add(idle))
	webtest.WantError(t, meWith(e, token), http.StatusUnauthorized, "unauthenticated")
	if n := e.Count(t, `SELECT count(*) FROM sessions WHERE expiry > $1`, e.Clock.Now()); n != 0 {
		t.Fatalf("%d sessions still live in the table after the idle timeout", n)
	}
}

// The absolute lifetime holds however busy the session is.
func TestSessionLifetime(t *testing.T) {
	t.Parallel()
	const idle, lifetime = time.Hour, 3*time.Hour + 10*time.Minute
	e := webtest.NewEnv(t, webtest.WithClock, withSessions(idle, lifetime))
	c := e.Guest()
	_, email := c.Signup(t)
	webtest.Want(t, c.Post("/api/v1/login", map[string]string{"email": email, "password": "correct horse"}), http.StatusOK)
	signedIn := e.Clock.Now()
	token := jarToken(e, c)

	// Used every half hour, past the idle timeout, to a moment before
	// the lifetime is up: still signed in.
	for e.Clock.Now().Before(signedIn.Add(lifetime - 30*time.Minute)) {
		e.Clock.Advance(30 * time.Minute)
		webtest.Want(t, meWith(e, token), http.StatusOK)
	}
	e.Clock.Set(signedIn.Add(lifetime - time.Millisecond))
	webtest.Want(t, meWith(e, token), http.StatusOK)
	// Used all along, it still ends at its lifetime.
	e.Clock.Set(signedIn.Add(lifetime))
	webtest.WantError(t, meWith(e, token), http.StatusUnauthorized, "unauthenticated")
}

// A signed-in person's page views and API reads write nothing to the
// sessions table within a grain, and read the session (and the header's
// name and city) once per cache TTL: the other page views of theirs cost
// the database what a guest's costs (the guest has no city: the page
// itself is a round trip, the list of cities).
func TestSignedInPageViewsCostWhatAGuestsDo(t *testing.T) {
	t.Parallel()
	const idle = 2 * time.Hour
	grain, ttl := idle/60, 5*time.Second
	e := webtest.NewEnv(t, webtest.WithClock, withSessions(idle, 0))
	b := e.PageUser(t)
	guest := e.Browser()
	city := "/cities/" + e.CitySlug(t)
	webtest.Want200(t, b.Get(t, city)) // the header names the city
	version, expiry := sessionRow(t, e)

	const page = "/?choose=1" // the layout's user and city, and the list of cities
	// cost is the pool's round trips for a view of page.
	cost := func(br *webtest.Browser) int64 {
		t.Helper()
		before := e.Store.Pool().Stat().AcquireCount()
		p := br.Get(t, page)
		webtest.Want200(t, p)
		if br == b && !strings.Contains(p.Text(`header form[action="/logout"]`), "Page User") {
			t.Fatalf("the header does not name the signed-in person: %s", p.Text("header"))
		}
		return e.Store.Pool().Stat().AcquireCount() - before
	}
	cost(b) // the header's city is read
	cost(guest)
	// Each TTL (less than a grain in all) the first view reads the
	// session, the user and the city again; the others read none of them.
	for step := range int(grain/ttl) - 1 {
		if step > 0 {
			e.Clock.Advance(ttl)
		}
		guestCost := cost(guest)
		want := guestCost
		if step > 0 {
			want += 3 // the session, the user and the city, once a TTL
		}
		if got := cost(b); got != want {
			t.Fatalf("step %d: the first signed-in view in the TTL cost %d round trips, want %d (a guest's %d)", step, got, want, guestCost)
		}
		for range 5 {
			if got, want := cost(b), cost(guest); got != want {
				t.Fatalf("step %d: a signed-in view cost %d round trips, a guest's %d", step, got, want)
			}
			webtest.Want(t, b.API().Get("/api/v1/me"), http.StatusOK)
		}
	}
	if v, x := sessionRow(t, e); v != version || !x.Equal(expiry) {
		t.Fatalf("the session was written within a grain of its sign-in: version %s -> %s, expiry %v -> %v", version, v, expiry, x)
	}

	// A grain after the sign-in, one view moves the expiry on (one write);
	// the views after it write nothing.
	e.Clock.Set(expiry.Add(-idle + grain))
	cost(b)
	v1, x1 := sessionRow(t, e)
	if v1 == version || !x1.Equal(e.Clock.Now().Add(idle)) {
		t.Fatalf("a grain after the sign-in the expiry is %v (version %s, was %s), want %v", x1, v1, version, e.Clock.Now().Add(idle))
	}
	e.Clock.Advance(ttl)
	for range 5 {
		cost(b)
		webtest.Want(t, b.API().Get("/api/v1/me"), http.StatusOK)
	}
	if v, x := sessionRow(t, e); v != v1 || !x.Equal(x1) {
		t.Fatalf("the session was written again within the grain: version %s -> %s, expiry %v -> %v", v1, v, x1, x)
	}
}
