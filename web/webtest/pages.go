package webtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Browser is a web Browser for the HTML pages: its own cookie jar, no
// automatic redirects (tests look at them), Accept: text/html.
type Browser struct {
	E    *Env
	Jar  http.CookieJar
	HTTP *http.Client
}

func (e *Env) Browser() *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{E: e, Jar: jar, HTTP: &http.Client{
		Transport: e.HTTPClient.Transport, Jar: jar, Timeout: e.HTTPClient.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// HTMLDoc is an HTML answer, parsed.
type HTMLDoc struct {
	Status int
	Header http.Header
	Body   string
	Doc    *goquery.Document
}

func (p *HTMLDoc) String() string {
	body := p.Body
	if len(body) > 600 {
		body = body[:600] + "…"
	}
	return fmt.Sprintf("%d %s", p.Status, body)
}

// Text is the trimmed text of the first element sel selects.
func (p *HTMLDoc) Text(sel string) string {
	return strings.Join(strings.Fields(p.Doc.Find(sel).First().Text()), " ")
}

// Attr is attribute name of the first element sel selects.
func (p *HTMLDoc) Attr(sel, name string) string {
	v, _ := p.Doc.Find(sel).First().Attr(name)
	return v
}

// Has reports whether sel selects anything.
func (p *HTMLDoc) Has(sel string) bool { return p.Doc.Find(sel).Length() > 0 }

// Send sends a request: form (if not nil) url-encoded; hx marks it as
// htmx's, with the CSRF header htmx sends from <body hx-headers>.
func (b *Browser) Send(t testing.TB, method, path string, form url.Values, header map[string]string) *HTMLDoc {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.E.Srv.URL+path, body)
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
	resp, err := b.HTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	p := &HTMLDoc{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
	if p.Doc, err = goquery.NewDocumentFromReader(strings.NewReader(p.Body)); err != nil {
		t.Fatal(err)
	}
	return p
}

func (b *Browser) Get(t testing.TB, path string) *HTMLDoc {
	t.Helper()
	return b.Send(t, "GET", path, nil, nil)
}

// HtmxGet is a GET from htmx (it wants a fragment).
func (b *Browser) HtmxGet(t testing.TB, path string) *HTMLDoc {
	t.Helper()
	return b.Send(t, "GET", path, nil, map[string]string{"HX-Request": "true"})
}

// Token is the browser's CSRF token, from its cookie (a page visit first
// if it has none yet).
func (b *Browser) Token(t testing.TB) string {
	t.Helper()
	u := MustURL(b.E.Srv.URL + "/")
	for _, ck := range b.Jar.Cookies(u) {
		if ck.Name == "marquee_csrf" {
			return ck.Value
		}
	}
	Want200(t, b.Get(t, "/login"))
	for _, ck := range b.Jar.Cookies(u) {
		if ck.Name == "marquee_csrf" {
			return ck.Value
		}
	}
	t.Fatal("no CSRF cookie after a page visit")
	return ""
}

// Submit posts a page form with the CSRF token in its _csrf field, as the
// page's form does.
func (b *Browser) Submit(t testing.TB, path string, form url.Values) *HTMLDoc {
	t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set("_csrf", b.Token(t))
	return b.Send(t, "POST", path, f, nil)
}

// HtmxPost posts as htmx does: the token in the X-CSRF-Token header.
func (b *Browser) HtmxPost(t testing.TB, path string, form url.Values) *HTMLDoc {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return b.Send(t, "POST", path, form, map[string]string{"HX-Request": "true", "X-CSRF-Token": b.Token(t)})
}

// Signup makes an account through the sign-up page and returns its email.
func (b *Browser) Signup(t testing.TB) string {
	t.Helper()
	email := fmt.Sprintf("page%d-%d@example.com", b.E.Seq.Add(1), time.Now().UnixNano())
	p := b.Submit(t, "/signup", url.Values{"name": {"Page User"}, "email": {email}, "password": {"correct horse"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("sign up: %s", p)
	}
	return email
}

// PageUser is a signed-up, signed-in browser.
func (e *Env) PageUser(t testing.TB) *Browser {
	t.Helper()
	b := e.Browser()
	b.Signup(t)
	return b
}

// SessionCookie is the browser's session token ("" if none).
func (b *Browser) SessionCookie() string {
	for _, ck := range b.Jar.Cookies(MustURL(b.E.Srv.URL + "/")) {
		if ck.Name == "marquee_session" {
			return ck.Value
		}
	}
	return ""
}

// API is a JSON API client sharing this browser's cookies (its session).
func (b *Browser) API() *Client {
	return &Client{E: b.E, HTTP: &http.Client{Transport: b.E.HTTPClient.Transport, Jar: b.Jar, Timeout: b.E.HTTPClient.Timeout}}
}

func Want200(t testing.TB, p *HTMLDoc) {
	t.Helper()
	WantStatus(t, p, http.StatusOK)
}

func WantStatus(t testing.TB, p *HTMLDoc, status int) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status = %s, want %d", p, status)
	}
	if ct := p.Header.Get("Content-Type"); status != http.StatusSeeOther && status != http.StatusNoContent && !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type = %q, want HTML", ct)
	}
}

// randomToken is a CSRF token, which WantFriendly does not read.
var randomToken = regexp.MustCompile(`[A-Za-z0-9_-]{43}`)

// WantFriendly checks an HTML error: the status, a heading and a message,
// and nothing of our insides.
func WantFriendly(t testing.TB, p *HTMLDoc, status int) {
	t.Helper()
	WantStatus(t, p, status)
	// The page's random tokens (CSRF) may spell anything.
	body := randomToken.ReplaceAllString(p.Body, "")
	for _, leak := range []string{"SQLSTATE", "pgx", "goroutine", ".go:", "panic", "runtime error"} {
		if strings.Contains(body, leak) {
			t.Fatalf("error page shows %q: %s", leak, p)
		}
	}
}

// wantRedirect checks a 303 to location.
func WantSeeOther(t testing.TB, p *HTMLDoc, location string) {
	t.Helper()
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != location {
		t.Fatalf("answer = %d to %q, want 303 to %q", p.Status, p.Header.Get("Location"), location)
	}
}

// ShowPath is the env's show page.
func (e *Env) ShowPath() string { return fmt.Sprintf("/shows/%d", e.Show) }

// CitySlug is the env's city.
func (e *Env) CitySlug(t testing.TB) string {
	t.Helper()
	cities, err := e.Store.Cities(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cities {
		if c.ID == e.Venue.CityID {
			return c.Slug
		}
	}
	t.Fatalf("no city %d", e.Venue.CityID)
	return ""
}

// Booked is a signed-in browser with one confirmed booking, and its id.
func (e *Env) Booked(t *testing.T, seats ...string) (*Browser, string) {
	t.Helper()
	b := e.PageUser(t)
	h := b.API().MustHold(t, seats...)
	return b, e.Pay(t, h).Str("booking_id")
}
