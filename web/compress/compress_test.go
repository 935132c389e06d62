package compress_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/static"
)

// onceOnly is what differs between two renderings of the same page: the
// Show page's hold form carries a fresh idempotency key each time.
var onceOnly = regexp.MustCompile(`name="key" value="[^"]*"`)

// TestCompression: pages, JSON, error answers, CSS and JavaScript come
// gzipped to a client that asks, and read the same as without; static files
// keep their cache headers. (What is never compressed twice, images, is in
// TestCompressLeavesAlone.)
func TestCompression(t *testing.T) {
	e := webtest.NewEnv(t)
	b, booking := e.Booked(t, "A1")
	// A client that neither asks for gzip by itself nor undoes it: what
	// the server sends is what the test reads.
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}, Jar: b.Jar, Timeout: e.HTTPClient.Timeout}
	// fetch answers GET path with its body read.
	fetch := func(t *testing.T, path string, header map[string]string) *webtest.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, e.Srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return &webtest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	}
	gunzip := func(t *testing.T, body []byte) []byte {
		t.Helper()
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("not gzip: %v", err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("broken gzip: %v", err)
		}
		return plain
	}
	// compressed fetches path with and without gzip and requires the same
	// content both ways, the gzipped one smaller.
	compressed := func(t *testing.T, path, accept string, status int) (*webtest.Response, []byte) {
		t.Helper()
		plainResp := fetch(t, path, map[string]string{"Accept": accept})
		plain := plainResp.Body
		if plainResp.Status != status || plainResp.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s without Accept-Encoding: %d, Content-Encoding %q", path, plainResp.Status, plainResp.Header.Get("Content-Encoding"))
		}
		zResp := fetch(t, path, map[string]string{"Accept": accept, "Accept-Encoding": "gzip, deflate, br"})
		z := zResp.Body
		if zResp.Status != status || zResp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s with Accept-Encoding gzip: %d, Content-Encoding %q", path, zResp.Status, zResp.Header.Get("Content-Encoding"))
		}
		if !strings.Contains(zResp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Vary = %q, want Accept-Encoding in it (caches keep both)", path, zResp.Header.Get("Vary"))
		}
		if got := gunzip(t, z); !bytes.Equal(onceOnly.ReplaceAll(got, nil), onceOnly.ReplaceAll(plain, nil)) {
			t.Fatalf("%s: %d bytes gunzipped differ from the %d bytes sent plain", path, len(got), len(plain))
		}
		if len(z) >= len(plain) {
			t.Errorf("%s: gzipped %d bytes, plain %d", path, len(z), len(plain))
		}
		if zResp.Header.Get("Content-Type") != plainResp.Header.Get("Content-Type") {
			t.Errorf("%s: Content-Type %q gzipped, %q plain", path, zResp.Header.Get("Content-Type"), plainResp.Header.Get("Content-Type"))
		}
		t.Logf("%s: %d bytes, %d gzipped", path, len(plain), len(z))
		return zResp, plain
	}

	t.Run("pages", func(t *testing.T) {
		_, page := compressed(t, e.ShowPath(), "text/html", http.StatusOK)
		if !bytes.Contains(page, []byte(`id="seatmap"`)) {
			t.Fatal("the show page has no seat map")
		}
		compressed(t, "/bookings/"+booking, "text/html", http.StatusOK)
	})
	t.Run("JSON", func(t *testing.T) {
		resp, body := compressed(t, "/api/v1"+e.ShowPath()+"/seats", "application/json", http.StatusOK)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || !bytes.Contains(body, []byte(`"seats"`)) {
			t.Fatalf("seats: %s %s", ct, body)
		}
	})
	t.Run("small answers go as they are", func(t *testing.T) {
		// Under a kilobyte gzip's own framing eats what it saves.
		resp := fetch(t, "/api/v1/me", map[string]string{"Accept-Encoding": "gzip"})
		body := resp.Body
		if resp.Status != http.StatusOK || resp.Header.Get("Content-Encoding") != "" || !bytes.Contains(body, []byte(`"email"`)) {
			t.Fatalf("me: %d, Content-Encoding %q: %s", resp.Status, resp.Header.Get("Content-Encoding"), body)
		}
	})
	t.Run("error pages", func(t *testing.T) {
		_, page := compressed(t, "/no-such-page", "text/html", http.StatusNotFound)
		if !bytes.Contains(page, []byte("There is no page at this address")) {
			t.Fatalf("404 page: %s", page)
		}
	})
	t.Run("CSS and JavaScript, still cached for a year", func(t *testing.T) {
		for _, name := range []string{"css/app.css", "vendor/htmx.min.js", "js/app.js"} {
			resp, body := compressed(t, static.URL(name), "*/*", http.StatusOK)
			if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
				t.Errorf("%s: Cache-Control %q", name, cc)
			}
			want, err := fs.ReadFile(static.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("%s: the file served is not the file embedded", name)
			}
		}
	})
	t.Run("a range of a file is sent as asked", func(t *testing.T) {
		resp := fetch(t, static.URL("css/app.css"), map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
		body := resp.Body
		want, _ := fs.ReadFile(static.FS, "css/app.css")
		if resp.Status != http.StatusPartialContent || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, want[:100]) {
			t.Fatalf("range: %d, Content-Encoding %q, %d bytes", resp.Status, resp.Header.Get("Content-Encoding"), len(body))
		}
	})
}
