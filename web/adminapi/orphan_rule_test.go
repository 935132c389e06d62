package adminapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// A theatre's orphan rule: on unless an admin says otherwise, set on
// creation and changed by its admins, reported wherever the theatre is,
// audited, and obeyed by the next hold.
func TestTheatreOrphanRule(t *testing.T) {
	t.Parallel()
	a := newAdmins(t)
	e := a.e
	city := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT slug FROM cities`)
	rule := func(id int64) bool {
		return pgtest.Scalar[bool](t, e.Store.Pool(), `SELECT (settings ->> 'orphan_rule')::boolean FROM theatres WHERE id = $1`, id)
	}

	t.Run("a new theatre has it unless it says otherwise", func(t *testing.T) {
		on := a.platform.Post("/api/v1/admin/theatres", map[string]any{"city": city, "name": "Rule On", "timezone": "UTC"})
		webtest.Want(t, on, http.StatusCreated)
		off := a.platform.Post("/api/v1/admin/theatres", map[string]any{"city": city, "name": "Rule Off", "timezone": "UTC", "orphan_rule": false})
		webtest.Want(t, off, http.StatusCreated)
		if on.JSON["orphan_rule"] != true || !rule(int64(on.Num("theatre_id"))) {
			t.Fatalf("created without a word = %s", on)
		}
		if off.JSON["orphan_rule"] != false || rule(int64(off.Num("theatre_id"))) {
			t.Fatalf("created without the rule = %s", off)
		}
		if entry := lastAudit(t, e, "theatre.create"); entry.After["orphan_rule"] != false {
			t.Fatalf("audit entry = %+v", entry)
		}
	})

	path := fmt.Sprintf("/api/v1/admin/theatres/%d", e.Venue.TheatreID)
	hold := func(key string) *webtest.Response { return e.User(t).HoldKey(key, "A2", "A3") } // leaves A1 alone

	t.Run("its theatre admin turns it on and off; reads say so, the audit log keeps before and after, holds obey", func(t *testing.T) {
		r := patch(a.theatre, path, map[string]any{"orphan_rule": true})
		webtest.Want(t, r, http.StatusOK)
		if r.JSON["orphan_rule"] != true || !rule(e.Venue.TheatreID) {
			t.Fatalf("turned on = %s", r)
		}
		if entry := lastAudit(t, e, "theatre.update"); entry.Actor != a.theatreID ||
			entry.Before["orphan_rule"] != false || entry.After["orphan_rule"] != true {
			t.Fatalf("audit entry = %+v", entry)
		}
		if got := a.theatre.Get(path); got.JSON["orphan_rule"] != true {
			t.Fatalf("read back = %s", got)
		}
		webtest.WantError(t, hold("on"), http.StatusConflict, "orphan_seat")

		webtest.Want(t, patch(a.theatre, path, map[string]any{"orphan_rule": false}), http.StatusOK)
		list := a.theatre.Get("/api/v1/admin/theatres")
		webtest.Want(t, list, http.StatusOK)
		if th := list.JSON["theatres"].([]any)[0].(map[string]any); th["orphan_rule"] != false {
			t.Fatalf("listed = %v", th)
		}
		webtest.Want(t, hold("off"), http.StatusCreated)
	})
	t.Run("a change that leaves it as it is writes nothing", func(t *testing.T) {
		before := places(t, e)
		webtest.Want(t, patch(a.theatre, path, map[string]any{"orphan_rule": nil}), http.StatusOK)
		if after := places(t, e); after != before {
			t.Fatalf("changed %s to %s", before, after)
		}
	})
	t.Run("refuses anything but true or false, and changes nothing", func(t *testing.T) {
		for _, v := range []any{"no", 0, []bool{true}} {
			refused(t, e, http.StatusBadRequest, "invalid_field_type", func() *webtest.Response {
				return patch(a.theatre, path, map[string]any{"orphan_rule": v})
			})
		}
	})
	t.Run("another theatre's rule is not its admin's to change: 404", func(t *testing.T) {
		other := a.platform.Post("/api/v1/admin/theatres", map[string]any{"city": city, "name": "Not Yours", "timezone": "UTC"})
		webtest.Want(t, other, http.StatusCreated)
		id := int64(other.Num("theatre_id"))
		refused(t, e, http.StatusNotFound, "not_found", func() *webtest.Response {
			return patch(a.theatre, fmt.Sprintf("/api/v1/admin/theatres/%d", id), map[string]any{"orphan_rule": false})
		})
		if !rule(id) {
			t.Fatal("another's theatre lost its rule")
		}
	})
}
