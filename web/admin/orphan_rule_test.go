package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// The theatre form's orphan rule: a box, ticked for a new theatre, that
// an admin ticks or clears; the change is audited.
func TestTheatreFormOrphanRule(t *testing.T) {
	e := webtest.NewEnv(t)
	th := e.Venue.TheatreID
	path := theatreURL(th)
	rule := func(name string) bool {
		t.Helper()
		return e.Count(t, `SELECT count(*) FROM theatres WHERE name = $1 AND (settings ->> 'orphan_rule')::boolean`, name) == 1
	}
	platform, _ := placesBrowser(t, e, auth.RolePlatformAdmin)
	manager, mu := placesBrowser(t, e, auth.RoleTheatreAdmin, th)

	t.Run("a new theatre's box is ticked, labelled and explained", func(t *testing.T) {
		p := platform.Get(t, "/admin/theatres")
		webtest.Want200(t, p)
		box := `#new-theatre input#theatre-orphan_rule[type=checkbox][name=orphan_rule]`
		if !p.Has(box+`[checked]`) || !p.Has(`#new-theatre label[for="theatre-orphan_rule"]`) {
			t.Fatalf("no ticked box: %s", p.Text("#new-theatre"))
		}
		if hint := p.Text("#" + p.Attr(box, "aria-describedby")); !strings.Contains(hint, "empty seat on its own") {
			t.Fatalf("the box's hint says %q", hint)
		}
	})
	t.Run("a new theatre keeps the rule ticked, or goes without it cleared", func(t *testing.T) {
		city := e.CitySlug(t)
		for _, c := range []struct {
			name string
			form url.Values
			on   bool
		}{
			{"Ticked Cinema", url.Values{"orphan_rule": {"on"}}, true},
			{"Cleared Cinema", url.Values{}, false},
		} {
			c.form.Set("city", city)
			c.form.Set("name", c.name)
			c.form.Set("timezone", "UTC")
			if p := platform.Submit(t, "/admin/theatres", c.form); p.Status != http.StatusSeeOther {
				t.Fatalf("create %s: %s", c.name, p)
			}
			if rule(c.name) != c.on {
				t.Fatalf("%s: rule %v, want %v", c.name, !c.on, c.on)
			}
		}
	})

	form := func(rule bool) url.Values {
		f := url.Values{"name": {"Test Cinema"}, "address": {""}, "timezone": {"Asia/Kolkata"}, "cleaning_buffer_minutes": {"15"},
			"tier_hours": {"24", "2"}, "tier_percent": {"100", "50"}}
		if rule {
			f.Set("orphan_rule", "on")
		}
		return f
	}
	audits := func() int64 { return e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'theatre.update'`) }

	t.Run("its theatre admin ticks and clears the box; each change is audited, saving it unchanged is not", func(t *testing.T) {
		if p := manager.Get(t, path); p.Has("#edit-theatre #theatre-orphan_rule[checked]") || !p.Has("#edit-theatre #theatre-orphan_rule") {
			t.Fatal("the edit form's box does not say the rule is off")
		}
		webtest.WantSeeOther(t, manager.Submit(t, path, form(true)), path+"?done=saved")
		if !rule("Test Cinema") || !manager.Get(t, path).Has("#edit-theatre #theatre-orphan_rule[checked]") {
			t.Fatal("ticking the box did not turn the rule on")
		}
		entry := e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'theatre.update' AND actor_id = $1
			AND (before->>'orphan_rule')::boolean = false AND (after->>'orphan_rule')::boolean = true`, mu.ID)
		if entry != 1 {
			t.Fatal("no audit entry of the rule turned on")
		}
		n := audits()
		webtest.WantSeeOther(t, manager.Submit(t, path, form(true)), path+"?done=saved")
		if audits() != n {
			t.Fatal("saving the form unchanged wrote an audit entry")
		}
		webtest.WantSeeOther(t, manager.Submit(t, path, form(false)), path+"?done=saved")
		if rule("Test Cinema") || audits() != n+1 {
			t.Fatal("clearing the box did not turn the rule off, audited")
		}
	})
	t.Run("another theatre's admin cannot change it", func(t *testing.T) {
		other, _ := placesBrowser(t, e, auth.RoleTheatreAdmin, otherTheatre(t, e))
		webtest.WantFriendly(t, other.Submit(t, path, form(true)), http.StatusNotFound)
		if rule("Test Cinema") {
			t.Fatal("another theatre's admin turned the rule on")
		}
	})
}
