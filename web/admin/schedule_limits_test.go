package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// A show more than two years ahead, up to the last day of year 9999 (which
// answered 500), comes back at its date field, and nothing is scheduled.
func TestScheduleFarAheadRefused(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	london, screen := londonTheatre(t, e)
	b := signedIn(t, e, auth.RoleTheatreAdmin, london)
	path := fmt.Sprintf("/admin/theatres/%d/schedule", london)
	series := func(from, to string) url.Values {
		f := oneShow(screen, e.Venue.MovieID, "", "")
		f.Del("date")
		f.Del("time")
		f.Set("from", from)
		f.Set("to", to)
		f.Set("times", "10:00")
		return f
	}
	for _, tc := range []struct {
		name, path, field string
		form              url.Values
	}{
		{"one show three years ahead", path, "one-date", oneShow(screen, e.Venue.MovieID, time.Now().AddDate(3, 0, 0).Format(time.DateOnly), "18:00")},
		{"one show on 9999-12-31", path, "one-date", oneShow(screen, e.Venue.MovieID, "9999-12-31", "23:00")},
		{"a series in 9999", path + "/bulk", "many-from", series("9999-12-30", "9999-12-31")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := b.Submit(t, tc.path, tc.form)
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			wantField(t, p, tc.field, "at most 730 days (two years) from now")
			if n := len(theatreShows(t, e, london)); n != 0 {
				t.Fatalf("%d shows after a refused form, want 0", n)
			}
		})
	}
}
