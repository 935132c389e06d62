package web_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"
)

// What a signed-in moviegoer is shown is never stored by the browser (a
// shared computer's disk, Back after logout); what anyone may see keeps
// its caching.
func TestCacheControl(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	b, booking := e.Booked(t, "A1")

	for _, path := range []string{
		"/bookings",
		"/bookings/" + booking,
		"/bookings/" + booking + "/qr.png",
		e.ShowPath(),
		"/",
	} {
		p := b.Get(t, path)
		cc := p.Header.Values("Cache-Control")
		if p.Status != http.StatusOK || !slices.Contains(cc, "no-store") || slices.ContainsFunc(cc, func(v string) bool {
			return strings.Contains(v, "max-age") || strings.Contains(v, "private")
		}) {
			t.Errorf("%s signed in: %d, Cache-Control %q, want no-store", path, p.Status, cc)
		}
	}

	guest := e.Browser()
	for path, want := range map[string]string{
		"/": "private, no-cache",
		fmt.Sprintf("/theatres/%d", e.Venue.TheatreID): "private, no-cache",
		"/static/css/app.css":                          "public, max-age=300",
	} {
		if p := guest.Get(t, path); p.Status != http.StatusOK || p.Header.Get("Cache-Control") != want {
			t.Errorf("%s as a guest: %d, Cache-Control %q, want %q", path, p.Status, p.Header.Values("Cache-Control"), want)
		}
	}
}
