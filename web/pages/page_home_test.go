package pages_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestHomePage(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	slug := e.CitySlug(t)

	t.Run("lists the cities", func(t *testing.T) {
		b := e.Browser()
		p := b.Get(t, "/")
		webtest.Want200(t, p)
		if got := p.Attr(`a[href="/cities/`+slug+`"]`, "href"); got == "" {
			t.Fatalf("no link to the city: %s", p)
		}
		if !strings.Contains(p.Text("main"), "Testville") {
			t.Fatalf("city name missing: %s", p.Text("main"))
		}
	})

	t.Run("security headers and a CSP htmx works under", func(t *testing.T) {
		p := e.Browser().Get(t, "/")
		csp := p.Header.Get("Content-Security-Policy")
		for _, part := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
			if !strings.Contains(csp, part) {
				t.Errorf("CSP %q lacks %q", csp, part)
			}
		}
		if strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("CSP allows unsafe code: %q", csp)
		}
		for h, v := range map[string]string{
			"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY",
		} {
			if got := p.Header.Get(h); got != v {
				t.Errorf("%s = %q, want %q", h, got, v)
			}
		}
		var cfg map[string]any
		if err := json.Unmarshal([]byte(p.Attr(`meta[name="htmx-config"]`, "content")), &cfg); err != nil {
			t.Fatalf("htmx-config: %v", err)
		}
		if cfg["allowEval"] != false || cfg["includeIndicatorStyles"] != false || cfg["allowScriptTags"] != false {
			t.Errorf("htmx-config = %v", cfg)
		}
		if p.Has("script:not([src])") || p.Has("[style]") || p.Has("[onclick]") {
			t.Error("the page has an inline script, style or handler")
		}
	})

	t.Run("the body sends the CSRF token with every htmx request", func(t *testing.T) {
		b := e.Browser()
		p := b.Get(t, "/")
		var headers map[string]string
		if err := json.Unmarshal([]byte(p.Attr("body", "hx-headers")), &headers); err != nil {
			t.Fatal(err)
		}
		if tok := headers["X-CSRF-Token"]; tok == "" || tok != b.Token(t) {
			t.Fatalf("hx-headers token %q, cookie %q", tok, b.Token(t))
		}
		for _, ck := range p.Header.Values("Set-Cookie") {
			if strings.HasPrefix(ck, "marquee_csrf=") && (!strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Lax")) {
				t.Errorf("CSRF cookie %q is not HttpOnly and SameSite=Lax", ck)
			}
		}
	})

	t.Run("a remembered city goes straight to its page", func(t *testing.T) {
		b := e.Browser()
		webtest.Want200(t, b.Get(t, "/cities/"+slug))
		webtest.WantSeeOther(t, b.Get(t, "/"), "/cities/"+slug)
		p := b.Get(t, "/?choose=1")
		webtest.Want200(t, p)
		if p.Attr(`a[aria-current="true"]`, "href") != "/cities/"+slug {
			t.Fatalf("the remembered city is not marked: %s", p)
		}
	})

	t.Run("static files carry a content hash and are cached for a year", func(t *testing.T) {
		p := e.Browser().Get(t, "/")
		for _, sel := range []string{`link[rel="stylesheet"]`, `script[src*="htmx.min.js"]`, `script[src*="ws.js"]`, `script[src*="app.js"]`} {
			src := p.Attr(sel, "href")
			if src == "" {
				src = p.Attr(sel, "src")
			}
			if !strings.HasPrefix(src, "/static/") || !strings.Contains(src, "?v=") {
				t.Fatalf("%s: %q has no content hash", sel, src)
			}
			resp, err := http.Get(e.Srv.URL + src)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || len(body) == 0 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
				t.Fatalf("%s: %d, Cache-Control %q", src, resp.StatusCode, resp.Header.Get("Cache-Control"))
			}
		}
		resp, err := http.Get(e.Srv.URL + "/static/js/app.js?v=stale")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if cc := resp.Header.Get("Cache-Control"); strings.Contains(cc, "immutable") {
			t.Errorf("a stale hash is cached forever: %q", cc)
		}
		for _, path := range []string{"/static/", "/static/nope.js", "/static/embed.go", "/static/../go.mod"} {
			resp, err := http.Get(e.Srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s: %d, want 404", path, resp.StatusCode)
			}
		}
	})

	t.Run("an unknown page is a friendly 404 page; the API keeps JSON", func(t *testing.T) {
		p := e.Browser().Get(t, "/no/such/page")
		webtest.WantFriendly(t, p, http.StatusNotFound)
		if !p.Has("h1#error-title") || !p.Has(`a[href="/"]`) {
			t.Fatalf("no friendly page: %s", p)
		}
		r := e.Guest().Get("/api/v1/nothing")
		webtest.WantError(t, r, http.StatusNotFound, "not_found")
	})
}
