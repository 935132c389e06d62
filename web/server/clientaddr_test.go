package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// signupLimit is web.SignupLimit's burst: sign-ups one address may make at
// once.
const signupLimit = 3

// behind trusts a proxy on 127.0.0.1, where every test request comes from.
func behind(e *webtest.Env) {
	e.Cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
}

// from sends a request with headers that name a client address.
func from(c *webtest.Client, method, path string, body any, header map[string]string) *webtest.Response {
	return c.Send(webtest.Req{Method: method, Path: path, Body: body, Header: header})
}

func signup(c *webtest.Client, n int, header map[string]string) *webtest.Response {
	return from(c, "POST", "/api/v1/signup", map[string]string{
		"email": fmt.Sprintf("farm%d-%d@example.com", n, time.Now().UnixNano()), "password": "long enough", "name": "Farm",
	}, header)
}

func wantLimited(t *testing.T, r *webtest.Response) {
	t.Helper()
	webtest.WantError(t, r, http.StatusTooManyRequests, "rate_limited")
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After = %q", r.Header.Get("Retry-After"))
	}
}

// With no trusted proxy, the TCP peer is the client: a header that names
// another address, on every request a new one, changes nothing. The store's
// clock stands still, so the allowances do not refill during the test.
func TestForgedForwardingHeadersDodgeNoLimit(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithRateLimits, webtest.WithClock)

	t.Run("sign-up", func(t *testing.T) {
		created := 0
		for i := range 50 {
			r := signup(e.Guest(), i, map[string]string{
				"X-Forwarded-For": fmt.Sprintf("192.0.2.%d", i+1),
				"X-Real-IP":       fmt.Sprintf("198.51.100.%d", i+1),
				"Forwarded":       fmt.Sprintf("for=203.0.113.%d", i+1),
			})
			switch r.Status {
			case http.StatusCreated:
				created++
			default:
				wantLimited(t, r)
			}
		}
		if created > signupLimit {
			t.Fatalf("%d of 50 sign-ups with forged addresses made accounts, the limit is %d", created, signupLimit)
		}
		if n := e.Count(t, `SELECT count(*) FROM users`); n != int64(created) {
			t.Fatalf("%d accounts for %d sign-ups answered 201", n, created)
		}
	})

	t.Run("a login brute force", func(t *testing.T) {
		guessed, limited := 0, 0
		for i := range 200 {
			r := from(e.Guest(), "POST", "/api/v1/login", map[string]string{"email": "victim@example.com", "password": "guess " + strconv.Itoa(i)},
				map[string]string{"X-Forwarded-For": fmt.Sprintf("192.0.2.%d, 198.51.100.%d", i%250+1, i%250+1)})
			switch r.Status {
			case http.StatusUnauthorized:
				guessed++
			default:
				wantLimited(t, r)
				limited++
			}
		}
		// 5 at once, and no more while the clock stands still.
		const allowed = 5
		if limited == 0 || guessed > allowed {
			t.Fatalf("200 guesses with forged addresses: %d checked, %d refused; at most %d may be checked", guessed, limited, allowed)
		}
	})
}

// Behind a trusted proxy, X-Forwarded-For names the client: each forwarded
// client has its own allowance, and what a client forges to the left of
// what the proxy appended is not believed.
func TestForwardedForFromATrustedProxy(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithRateLimits, webtest.WithClock, behind)
	xff := func(v string) map[string]string { return map[string]string{"X-Forwarded-For": v} }

	for i := range signupLimit {
		webtest.Want(t, signup(e.Guest(), i, xff("198.51.100.1")), http.StatusCreated)
	}
	wantLimited(t, signup(e.Guest(), 10, xff("198.51.100.1")))
	// Another client of the proxy has its own allowance.
	webtest.Want(t, signup(e.Guest(), 11, xff("198.51.100.2")), http.StatusCreated)
	// The first, with an address of its own making before the proxy's
	// entry, or through a second trusted hop, is still itself.
	wantLimited(t, signup(e.Guest(), 12, xff("203.0.113.9, 198.51.100.1")))
	wantLimited(t, signup(e.Guest(), 13, xff("198.51.100.1, 127.0.0.1")))
	// X-Real-IP is never believed: these are the proxy's own requests,
	// which share one allowance.
	created := 0
	for i := range signupLimit + 2 {
		r := signup(e.Guest(), 20+i, map[string]string{"X-Real-IP": fmt.Sprintf("198.51.100.%d", 50+i)})
		if r.Status == http.StatusCreated {
			created++
		} else {
			wantLimited(t, r)
		}
	}
	if created > signupLimit {
		t.Fatalf("%d sign-ups with X-Real-IP of their own made accounts, the limit is %d", created, signupLimit)
	}
}

// Sign-up has an allowance of its own: spending it leaves login alone, and
// the other way round.
func TestSignupAndLoginLimitsApart(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithRateLimits, webtest.WithClock)
	for i := range signupLimit {
		webtest.Want(t, signup(e.Guest(), i, nil), http.StatusCreated)
	}
	r := signup(e.Guest(), 9, nil)
	wantLimited(t, r)
	if wait, _ := strconv.Atoi(r.Header.Get("Retry-After")); wait < 60 {
		t.Errorf("a refused sign-up is told to come back in %d s; its allowance refills in minutes", wait)
	}
	id := pgtest.User(t, e.Store)
	u, err := e.Store.User(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	webtest.Want(t, e.Guest().Login(u.Email), http.StatusOK)
}

// The seats held from one address are capped per show (20 by default,
// two full holds) whoever's accounts hold them, through the API and the
// pages alike; another address is not held back, and releasing or lapsing
// frees the cap.
func TestHeldSeatsCappedPerAddress(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithRateLimits, webtest.WithClock, behind)
	const hoarder, neighbour = "198.51.100.77", "2001:db8:5:6::1"
	// Each account logs in from an address of its own (login has its own
	// limit), and holds from the hoarder's.
	n := 0
	account := func() (*webtest.Client, *webtest.Browser) {
		t.Helper()
		n++
		u, err := e.Store.User(context.Background(), pgtest.User(t, e.Store))
		if err != nil {
			t.Fatal(err)
		}
		b := e.Browser()
		c := b.API()
		webtest.Want(t, from(c, "POST", "/api/v1/login", map[string]string{"email": u.Email, "password": pgtest.FixturePassword},
			map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", n)}), http.StatusOK)
		return c, b
	}
	hold := func(c *webtest.Client, addr string, seats ...string) *webtest.Response {
		return from(c, "POST", fmt.Sprintf("/api/v1/shows/%d/holds", e.Show), map[string][]string{"seats": seats},
			map[string]string{"Idempotency-Key": fmt.Sprintf("k-%d", e.Seq.Add(1)), "X-Forwarded-For": addr})
	}
	row := func(r string) []string {
		var s []string
		for i := 1; i <= 10; i++ {
			s = append(s, r+strconv.Itoa(i))
		}
		return s
	}

	a, _ := account()
	first := hold(a, hoarder, row("A")...)
	webtest.Want(t, first, http.StatusCreated)
	b, _ := account()
	webtest.Want(t, hold(b, hoarder, row("B")...), http.StatusCreated)

	c, cPage := account()
	r := hold(c, hoarder, "C1")
	webtest.WantError(t, r, http.StatusTooManyRequests, "too_many_held_seats")
	if r.Num("max") != 20 || r.Str("scope") != "show" || !strings.Contains(r.Str("message"), "as many seats as we allow from one connection") {
		t.Fatalf("refusal = %s", r)
	}
	if wait, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || wait < 1 || wait > int(webtest.HoldTTL/time.Second)+1 {
		t.Fatalf("Retry-After = %q, want when the first hold lapses", r.Header.Get("Retry-After"))
	}
	if got := e.Count(t, `SELECT coalesce(sum(cardinality(seat_ids)), 0) FROM holds WHERE client_addr = $1 AND state = 'HELD'`, hoarder); got != 20 {
		t.Fatalf("the address holds %d seats, want 20", got)
	}

	// The show page says so in its notice, and keeps the selection.
	webtest.Want200(t, cPage.Get(t, e.ShowPath())) // its CSRF cookie
	p := cPage.Send(t, "POST", e.ShowPath()+"/hold", url.Values{"seat": {"C1", "C2"}, "key": {"page-1"}},
		map[string]string{"HX-Request": "true", "X-CSRF-Token": cPage.Token(t), "X-Forwarded-For": hoarder})
	webtest.WantStatus(t, p, http.StatusTooManyRequests)
	if msg := p.Text(`section#booking [data-notice="error"]`); !strings.Contains(msg, "You're holding as many seats as we allow from one connection") {
		t.Fatalf("the show page's notice = %q", msg)
	}
	if !p.Has(`[data-selected-inputs] input[name="seat"][value="C2"]`) {
		t.Error("the refused page forgot the selection")
	}

	// Another address, even one IPv6 /64 away, holds as it likes; two
	// addresses of one /64 share a cap.
	d, _ := account()
	webtest.Want(t, hold(d, neighbour, row("D")...), http.StatusCreated)
	f, _ := account()
	webtest.Want(t, hold(f, "2001:db8:5:6::2", row("F")...), http.StatusCreated)
	webtest.WantError(t, hold(c, "2001:db8:5:6:ffff::3", "C1"), http.StatusTooManyRequests, "too_many_held_seats")

	// Released: the seats count no more.
	webtest.Want(t, from(a, "DELETE", "/api/v1/holds/"+first.Str("hold_id"), nil, map[string]string{"X-Forwarded-For": hoarder}), http.StatusOK)
	webtest.Want(t, hold(c, hoarder, row("C")...), http.StatusCreated)
	g, _ := account()
	webtest.WantError(t, hold(g, hoarder, "E1"), http.StatusTooManyRequests, "too_many_held_seats")

	// Lapsed, even before the sweeper has ended them: nor do they.
	e.Clock.Advance(webtest.HoldTTL)
	webtest.Want(t, hold(g, hoarder, row("E")...), http.StatusCreated)
}

// RATE_LIMITS=off lifts the held-seat caps with the rate limits.
func TestNoHeldSeatCapsWithoutRateLimits(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	for _, r := range []string{"A", "B", "C"} {
		var seats []string
		for i := 1; i <= 10; i++ {
			seats = append(seats, r+strconv.Itoa(i))
		}
		webtest.Want(t, e.User(t).Hold(seats...), http.StatusCreated)
	}
}
