package admin_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// The form refuses the images that took gigabytes to decode at its poster
// field, saying what to upload instead, and sets no poster.
func TestPosterFormRefusesHugeImages(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	b := signedIn(t, e, auth.RolePlatformAdmin)
	path := fmt.Sprintf("/admin/movies/%d/poster", e.Venue.MovieID)
	for _, tc := range []struct {
		name string
		data []byte
		says string
	}{
		{"1 x 39,999,999 pixels", pgtest.PlainPNG(1, 39_999_999, pgtest.PNGGray, 8), "at most 8000 pixels on its longer side"},
		{"6000 x 6600 pixels at 16 bits", pgtest.PlainPNG(6000, 6600, pgtest.PNGRGBA, 16), "such as 2000 × 3000 pixels at 8 bits a channel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := upload(t, b, path, "poster.png", tc.data, "")
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			wantField(t, p, "poster", tc.says)
			if n := e.Count(t, `SELECT count(*) FROM posters`); n != 0 {
				t.Fatalf("%d posters stored", n)
			}
		})
	}
}
