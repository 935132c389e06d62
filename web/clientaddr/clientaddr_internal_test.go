package clientaddr

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/labstack/echo/v4"
)

// Whom a request's client address is taken from, peer by peer and header
// by header.
func TestExtractor(t *testing.T) {
	t.Parallel()
	lb := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		peer    string
		header  map[string]string
		want    string
	}{
		{"no proxy: the peer, whatever it forwards", nil, "203.0.113.5:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1", "X-Real-IP": "192.0.2.2"}, "203.0.113.5"},
		{"no proxy: a loopback peer is no proxy either", nil, "127.0.0.1:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1"}, "127.0.0.1"},
		{"no proxy: a private peer is no proxy either", nil, "192.168.1.20:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1"}, "192.168.1.20"},
		{"a trusted proxy: the address it appended", lb, "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1"}, "192.0.2.1"},
		{"a trusted proxy: what the client wrote before it is not believed", lb, "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "198.51.100.9, 192.0.2.1"}, "192.0.2.1"},
		{"two trusted proxies: the first address that is not one", lb, "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "198.51.100.9, 192.0.2.1, 10.9.9.9"}, "192.0.2.1"},
		{"an untrusted peer's X-Forwarded-For is not believed", lb, "203.0.113.5:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1"}, "203.0.113.5"},
		{"nor a loopback peer's, unless listed", lb, "127.0.0.1:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1"}, "127.0.0.1"},
		{"nor a private peer's outside the list", lb, "192.168.1.20:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1"}, "192.168.1.20"},
		{"a private hop inside the chain is the client", lb, "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1, 192.168.1.20"}, "192.168.1.20"},
		{"X-Real-IP from a trusted proxy is not believed", lb, "10.1.2.3:4000",
			map[string]string{"X-Real-IP": "192.0.2.1"}, "10.1.2.3"},
		{"an entry that is no address stops the walk at the proxy", lb, "10.1.2.3:4000",
			map[string]string{"X-Forwarded-For": "192.0.2.1, not-an-ip"}, "10.1.2.3"},
		{"IPv6 peer and client", lb, "[2001:db8:ffff::10]:4000",
			map[string]string{"X-Forwarded-For": "2001:db8:1:2::3"}, "2001:db8:1:2::3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = tc.peer
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if got := Extractor(tc.trusted)(req); got != tc.want {
				t.Fatalf("client = %q, want %q", got, tc.want)
			}
		})
	}
}

// The network a client is counted by: an IPv4 address, an IPv6 /64.
func TestNet(t *testing.T) {
	t.Parallel()
	e := echo.New()
	e.IPExtractor = echo.ExtractIPDirect()
	for peer, want := range map[string]string{
		"192.0.2.1:1":                 "192.0.2.1/32",
		"[::ffff:192.0.2.1]:1":        "192.0.2.1/32",
		"[2001:db8:1:2::3]:1":         "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::9]:1":    "2001:db8:1:2::/64",
		"[fe80::1%eth0]:1":            "fe80::/64",
		"not an address":              "0.0.0.0/32",
		"[2001:db8:1:3::3]:1":         "2001:db8:1:3::/64",
		"[::1]:1":                     "::/64",
		"127.0.0.1:1":                 "127.0.0.1/32",
		"[2001:db8:aaaa:bbbb::1]:443": "2001:db8:aaaa:bbbb::/64",
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = peer
		if got := Net(e.NewContext(req, httptest.NewRecorder())).String(); got != want {
			t.Errorf("peer %s: counted as %s, want %s", peer, got, want)
		}
	}
}

// Whose X-Request-Id is kept: a peer's in a trusted network, by its TCP
// address alone.
func TestFromProxy(t *testing.T) {
	t.Parallel()
	lb := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	for _, tc := range []struct {
		trusted []netip.Prefix
		peer    string
		want    bool
	}{
		{nil, "10.1.2.3:4000", false},
		{lb, "10.1.2.3:4000", true},
		{lb, "[::ffff:10.1.2.3]:4000", true},
		{lb, "[2001:db8:ffff::7]:443", true},
		{lb, "[fe80::1%eth0]:443", false},
		{lb, "203.0.113.5:4000", false},
		{lb, "127.0.0.1:4000", false},
		{lb, "not an address", false},
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = tc.peer
		req.Header.Set("X-Forwarded-For", "10.9.9.9")
		if got := FromProxy(tc.trusted)(req); got != tc.want {
			t.Errorf("trusting %v, peer %s: from a proxy = %v, want %v", tc.trusted, tc.peer, got, tc.want)
		}
	}
}
