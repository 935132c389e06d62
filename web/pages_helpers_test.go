package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// browser is a web browser for the HTML pages: its own cookie jar, no
// automatic redirects (tests look at them), Accept: text/html.
type browser struct {
	e    *env
	jar  http.CookieJar
	http *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{e: e, jar: jar, http: &http.Client{
		Transport: e.client.Transport, Jar: jar, Timeout: e.client.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// htmlDoc is an HTML answer, parsed.
type htmlDoc struct {
	Status int
	Header http.Header
	Body   string
	Doc    *goquery.Document
}

func (p *htmlDoc) String() string {
	body := p.Body
	if len(body) > 600 {
		body = body[:600] + "…"
	}
	return fmt.Sprintf("%d %s", p.Status, body)
}

// text is the trimmed text of the first element sel selects.
func (p *htmlDoc) text(sel string) string {
	return strings.Join(strings.Fields(p.Doc.Find(sel).First().Text()), " ")
}

// attr is attribute name of the first element sel selects.
func (p *htmlDoc) attr(sel, name string) string {
	v, _ := p.Doc.Find(sel).First().Attr(name)
	return v
}

// has reports whether sel selects anything.
func (p *htmlDoc) has(sel string) bool { return p.Doc.Find(sel).Length() > 0 }

// send sends a request: form (if not nil) url-encoded; hx marks it as
// htmx's, with the CSRF header htmx sends from <body hx-headers>.
func (b *browser) send(t testing.TB, method, path string, form url.Values, header map[string]string) *htmlDoc {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := b.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	p := &htmlDoc{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
	if p.Doc, err = goquery.NewDocumentFromReader(strings.NewReader(p.Body)); err != nil {
		t.Fatal(err)
	}
	return p
}

func (b *browser) get(t testing.TB, path string) *htmlDoc {
	t.Helper()
	return b.send(t, "GET", path, nil, nil)
}

// htmxGet is a GET from htmx (it wants a fragment).
func (b *browser) htmxGet(t testing.TB, path string) *htmlDoc {
	t.Helper()
	return b.send(t, "GET", path, nil, map[string]string{"HX-Request": "true"})
}

// token is the browser's CSRF token, from its cookie (a page visit first
// if it has none yet).
func (b *browser) token(t testing.TB) string {
	t.Helper()
	u := mustURL(b.e.srv.URL + "/")
	for _, ck := range b.jar.Cookies(u) {
		if ck.Name == "marquee_csrf" {
			return ck.Value
		}
	}
	want200(t, b.get(t, "/login"))
	for _, ck := range b.jar.Cookies(u) {
		if ck.Name == "marquee_csrf" {
			return ck.Value
		}
	}
	t.Fatal("no CSRF cookie after a page visit")
	return ""
}

// submit posts a page form with the CSRF token in its _csrf field, as the
// page's form does.
func (b *browser) submit(t testing.TB, path string, form url.Values) *htmlDoc {
	t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set("_csrf", b.token(t))
	return b.send(t, "POST", path, f, nil)
}

// htmxPost posts as htmx does: the token in the X-CSRF-Token header.
func (b *browser) htmxPost(t testing.TB, path string, form url.Values) *htmlDoc {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return b.send(t, "POST", path, form, map[string]string{"HX-Request": "true", "X-CSRF-Token": b.token(t)})
}

// Signup makes an account through the sign-up page and returns its email.
func (b *browser) signup(t testing.TB) string {
	t.Helper()
	email := fmt.Sprintf("page%d-%d@example.com", b.e.seq.Add(1), time.Now().UnixNano())
	p := b.submit(t, "/signup", url.Values{"name": {"Page User"}, "email": {email}, "password": {"correct horse"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("sign up: %s", p)
	}
	return email
}

// user is a signed-up, signed-in browser.
func (e *env) pageUser(t testing.TB) *browser {
	t.Helper()
	b := e.browser()
	b.signup(t)
	return b
}

// sessionCookie is the browser's session token ("" if none).
func (b *browser) sessionCookie() string {
	for _, ck := range b.jar.Cookies(mustURL(b.e.srv.URL + "/")) {
		if ck.Name == "marquee_session" {
			return ck.Value
		}
	}
	return ""
}

// api is a JSON API client sharing this browser's cookies (its session).
func (b *browser) api() *client {
	return &client{e: b.e, http: &http.Client{Transport: b.e.client.Transport, Jar: b.jar, Timeout: b.e.client.Timeout}}
}

func want200(t testing.TB, p *htmlDoc) {
	t.Helper()
	wantStatus(t, p, http.StatusOK)
}

func wantStatus(t testing.TB, p *htmlDoc, status int) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status = %s, want %d", p, status)
	}
	if ct := p.Header.Get("Content-Type"); status != http.StatusSeeOther && status != http.StatusNoContent && !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type = %q, want HTML", ct)
	}
}

// wantFriendly checks an HTML error: the status, a heading and a message,
// and nothing of our insides.
func wantFriendly(t testing.TB, p *htmlDoc, status int) {
	t.Helper()
	wantStatus(t, p, status)
	for _, leak := range []string{"SQLSTATE", "pgx", "goroutine", ".go:", "panic", "runtime error"} {
		if strings.Contains(p.Body, leak) {
			t.Fatalf("error page shows %q: %s", leak, p)
		}
	}
}

// wantRedirect checks a 303 to location.
func wantSeeOther(t testing.TB, p *htmlDoc, location string) {
	t.Helper()
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != location {
		t.Fatalf("answer = %d to %q, want 303 to %q", p.Status, p.Header.Get("Location"), location)
	}
}

// showPath is the env's show page.
func (e *env) showPath() string { return fmt.Sprintf("/shows/%d", e.show) }

// citySlug is the env's city.
func (e *env) citySlug(t testing.TB) string {
	t.Helper()
	var slug string
	if err := e.store.Pool().QueryRow(t.Context(), `SELECT slug FROM cities WHERE id = $1`, e.venue.CityID).Scan(&slug); err != nil {
		t.Fatal(err)
	}
	return slug
}
