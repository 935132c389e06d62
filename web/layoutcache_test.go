package web_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// The header shows a user's name and role, and the city, as read in the
// last few seconds; a change made through this instance shows at once,
// and no decision uses what the header shows.
func TestLayoutCache(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	b := e.PageUser(t)
	var id string
	if err := e.Store.Pool().QueryRow(t.Context(), `SELECT id::text FROM users WHERE name = 'Page User'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	header := func() (name string, admin bool) {
		t.Helper()
		p := b.Get(t, "/?choose=1")
		webtest.Want200(t, p)
		return p.Text(`header form[action="/logout"] span`), p.Has(`header a[href="/admin"]`)
	}
	if name, admin := header(); name != ", Page User" || admin {
		t.Fatalf("header names %q, admin link %v", name, admin)
	}

	pgtest.Exec(t, e.Store.Pool(), `UPDATE users SET name = 'Renamed' WHERE id = $1`, id) // not through the app
	if name, _ := header(); name != ", Page User" {
		t.Fatalf("within the TTL the header names %q, want the name as read", name)
	}
	e.Clock.Advance(5 * time.Second)
	if name, _ := header(); name != ", Renamed" {
		t.Fatalf("after the TTL the header names %q, want the new name", name)
	}

	t.Run("a grant through this instance shows at once", func(t *testing.T) {
		platform := e.Admin(t, auth.RolePlatformAdmin)
		var addr string
		if err := e.Store.Pool().QueryRow(t.Context(), `SELECT email FROM users WHERE id = $1`, id).Scan(&addr); err != nil {
			t.Fatal(err)
		}
		r := platform.Post(fmt.Sprintf("/api/v1/admin/theatres/%d/admins", e.Venue.TheatreID), map[string]string{"email": addr})
		webtest.Want(t, r, http.StatusCreated)
		if _, admin := header(); !admin {
			t.Fatal("the header does not link the admin pages of a user granted a theatre a moment ago")
		}
	})
	t.Run("what the header shows decides nothing", func(t *testing.T) {
		// Revoked behind the app's back: the header may still link the
		// admin pages for a few seconds, but they refuse.
		pgtest.Exec(t, e.Store.Pool(), `DELETE FROM theatre_staff WHERE user_id = $1`, id)
		pgtest.Exec(t, e.Store.Pool(), `UPDATE users SET role = 'moviegoer' WHERE id = $1`, id)
		if _, admin := header(); !admin {
			t.Fatal("want the header as read within the TTL")
		}
		webtest.WantStatus(t, b.Get(t, "/admin"), http.StatusForbidden)
		webtest.WantError(t, b.API().Get("/api/v1/admin/theatres"), http.StatusForbidden, "forbidden")
	})
}
