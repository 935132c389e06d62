package components

import "testing"

// A URL built from text names the address it was built for, whatever the
// text holds: a slash, a dot-dot or a question mark stays part of the name.
func TestCityHrefEscapesTheSlug(t *testing.T) {
	for slug, want := range map[string]string{
		"bengaluru":               "/cities/bengaluru",
		"../admin/shows/1/cancel": "/cities/..%2Fadmin%2Fshows%2F1%2Fcancel",
		"a?b#c":                   "/cities/a%3Fb%23c",
	} {
		if got := string(cityHref(slug)); got != want {
			t.Errorf("cityHref(%q) = %q, want %q", slug, got, want)
		}
	}
}
