package adminapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// admins is an env with a platform admin, a theatre admin of the env's
// theatre, a moviegoer and a guest, each a signed-in client.
type admins struct {
	e                              *webtest.Env
	platform, theatre, goer, guest *webtest.Client
	platformID, theatreID, goerID  string
	platformEmail, theatreEmail    string
	goerEmail                      string
}

func newAdmins(t *testing.T) *admins {
	t.Helper()
	e := webtest.NewEnv(t)
	a := &admins{e: e, guest: e.Guest()}
	var platform, theatre, goer auth.User
	a.platform, platform = e.Account(t, auth.RolePlatformAdmin)
	a.theatre, theatre = e.Account(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	a.goer, goer = e.Account(t, auth.RoleMoviegoer)
	a.platformID, a.platformEmail = platform.ID, platform.Email
	a.theatreID, a.theatreEmail = theatre.ID, theatre.Email
	a.goerID, a.goerEmail = goer.ID, goer.Email
	return a
}

// places is what a refused request must leave unchanged.
func places(t *testing.T, e *webtest.Env) string {
	t.Helper()
	return pgtest.Scalar[string](t, e.Store.Pool(), `
		SELECT format('cities=%s theatres=%s tiers=%s grants=%s audit=%s roles=%s',
			(SELECT md5(string_agg(c::text, ',' ORDER BY id)) FROM cities c),
			(SELECT md5(string_agg(t::text, ',' ORDER BY id)) FROM theatres t),
			(SELECT md5(coalesce(string_agg(r::text, ',' ORDER BY theatre_id, min_before), '')) FROM refund_tiers r),
			(SELECT md5(coalesce(string_agg(g::text, ',' ORDER BY theatre_id, user_id), '')) FROM theatre_staff g),
			(SELECT count(*) FROM audit_log),
			(SELECT md5(string_agg(id || role, ',' ORDER BY id)) FROM users))`)
}

func patch(c *webtest.Client, path string, body any) *webtest.Response {
	return c.Send(webtest.Req{Method: "PATCH", Path: path, Body: body})
}

// refused checks that every request of send is answered status code and
// leaves the places as they were.
func refused(t *testing.T, e *webtest.Env, status int, code string, send func() *webtest.Response) {
	t.Helper()
	before := places(t, e)
	webtest.WantError(t, send(), status, code)
	if after := places(t, e); after != before {
		t.Fatalf("a refused request changed the database:\n%s\n%s", before, after)
	}
}

// lastAudit is the newest audit entry of action.
type auditRow struct {
	Actor, Object string
	Theatre       *int64
	Before, After map[string]any
}

func lastAudit(t *testing.T, e *webtest.Env, action string) auditRow {
	t.Helper()
	var r auditRow
	var before, after []byte
	err := e.Store.Pool().QueryRow(t.Context(), `
		SELECT actor_id::text, object, theatre_id, before, after FROM audit_log
		 WHERE action = $1 ORDER BY id DESC LIMIT 1`, action).Scan(&r.Actor, &r.Object, &r.Theatre, &before, &after)
	if err != nil {
		t.Fatalf("audit entry %s: %v", action, err)
	}
	for _, v := range []struct {
		raw []byte
		to  *map[string]any
	}{{before, &r.Before}, {after, &r.After}} {
		if v.raw != nil {
			if err := json.Unmarshal(v.raw, v.to); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r
}

func TestPlacesAuthorization(t *testing.T) {
	t.Parallel()
	a := newAdmins(t)
	e := a.e
	other := a.platform.Post("/api/v1/admin/theatres", map[string]any{
		"city": pgtest.Scalar[string](t, e.Store.Pool(), `SELECT slug FROM cities`), "name": "Other Cinema", "timezone": "UTC"})
	webtest.Want(t, other, http.StatusCreated)
	mine := fmt.Sprintf("/api/v1/admin/theatres/%d", e.Venue.TheatreID)
	theirs := fmt.Sprintf("/api/v1/admin/theatres/%d", int64(other.Num("theatre_id")))

	routes := []webtest.Req{
		{Method: "POST", Path: "/api/v1/admin/cities", Body: map[string]string{"name": "Pune", "slug": "pune"}},
		{Method: "POST", Path: "/api/v1/admin/theatres", Body: map[string]string{"city": "pune", "name": "X", "timezone": "UTC"}},
		{Method: "GET", Path: "/api/v1/admin/theatres"},
		{Method: "GET", Path: mine},
		{Method: "PATCH", Path: mine, Body: map[string]string{"name": "Renamed"}},
		{Method: "POST", Path: mine + "/admins", Body: map[string]string{"email": a.goerEmail}},
		{Method: "DELETE", Path: mine + "/admins/" + a.theatreID},
		{Method: "GET", Path: "/api/v1/admin/audit"},
	}
	t.Run("a guest must sign in", func(t *testing.T) {
		for _, r := range routes {
			refused(t, e, http.StatusUnauthorized, "unauthenticated", func() *webtest.Response { return a.guest.Send(r) })
		}
	})
	t.Run("a moviegoer is forbidden everything", func(t *testing.T) {
		for _, r := range routes {
			refused(t, e, http.StatusForbidden, "forbidden", func() *webtest.Response { return a.goer.Send(r) })
		}
	})
	t.Run("a theatre admin may not do what only a platform admin may", func(t *testing.T) {
		for _, r := range []webtest.Req{routes[0], routes[1], routes[5], routes[6], routes[7]} {
			refused(t, e, http.StatusForbidden, "forbidden", func() *webtest.Response { return a.theatre.Send(r) })
		}
	})
	t.Run("a theatre admin's other theatre does not exist", func(t *testing.T) {
		for _, r := range []webtest.Req{
			{Method: "GET", Path: theirs},
			{Method: "PATCH", Path: theirs, Body: map[string]string{"name": "Mine now"}},
			{Method: "GET", Path: "/api/v1/admin/theatres/999999"},
			{Method: "GET", Path: "/api/v1/admin/theatres/abc"},
		} {
			r := r
			refused(t, e, http.StatusNotFound, "not_found", func() *webtest.Response { return a.theatre.Send(r) })
		}
		nobody := a.theatre.Get("/api/v1/admin/theatres/999999")
		if got := a.theatre.Get(theirs); string(got.Body) != string(nobody.Body) {
			t.Fatalf("another's theatre: %s\nno theatre: %s", got, nobody)
		}
	})
	t.Run("a theatre admin lists only their theatres, a platform admin all", func(t *testing.T) {
		if got := theatreIDs(t, a.theatre.Get("/api/v1/admin/theatres")); got != fmt.Sprint([]int64{e.Venue.TheatreID}) {
			t.Fatalf("theatre admin's theatres = %s", got)
		}
		if got := theatreIDs(t, a.platform.Get("/api/v1/admin/theatres")); !strings.Contains(got, fmt.Sprint(int64(other.Num("theatre_id")))) ||
			!strings.Contains(got, fmt.Sprint(e.Venue.TheatreID)) {
			t.Fatalf("platform admin's theatres = %s", got)
		}
	})
}

func theatreIDs(t *testing.T, r *webtest.Response) string {
	t.Helper()
	webtest.Want(t, r, http.StatusOK)
	var ids []int64
	for _, th := range r.JSON["theatres"].([]any) {
		ids = append(ids, int64(th.(map[string]any)["theatre_id"].(float64)))
	}
	return fmt.Sprint(ids)
}

func TestCreateCity(t *testing.T) {
	t.Parallel()
	a := newAdmins(t)
	e := a.e

	t.Run("created and audited", func(t *testing.T) {
		r := a.platform.Post("/api/v1/admin/cities", map[string]string{"name": "  New Delhi ", "slug": "new-delhi"})
		webtest.Want(t, r, http.StatusCreated)
		if r.Num("city_id") <= 0 || r.Str("name") != "New Delhi" || r.Str("slug") != "new-delhi" {
			t.Fatalf("city = %s", r)
		}
		entry := lastAudit(t, e, "city.create")
		if entry.Actor != a.platformID || entry.Object != fmt.Sprintf("city %d", int64(r.Num("city_id"))) ||
			entry.Before != nil || entry.After["slug"] != "new-delhi" || entry.Theatre != nil {
			t.Fatalf("audit entry = %+v", entry)
		}
	})
	t.Run("a taken slug is a conflict", func(t *testing.T) {
		refused(t, e, http.StatusConflict, "city_exists", func() *webtest.Response {
			return a.platform.Post("/api/v1/admin/cities", map[string]string{"name": "Delhi again", "slug": "new-delhi"})
		})
	})
	for _, tc := range []struct{ name, body, code string }{
		{"no name", `{"slug":"pune"}`, "invalid_name"},
		{"blank name", `{"name":"   ","slug":"pune"}`, "invalid_name"},
		{"long name", `{"name":"` + strings.Repeat("x", 101) + `","slug":"pune"}`, "invalid_name"},
		{"control in name", `{"name":"Pu\nne","slug":"pune"}`, "invalid_name"},
		{"no slug", `{"name":"Pune"}`, "invalid_slug"},
		{"upper-case slug", `{"name":"Pune","slug":"Pune"}`, "invalid_slug"},
		{"double dash", `{"name":"Pune","slug":"pu--ne"}`, "invalid_slug"},
		{"trailing dash", `{"name":"Pune","slug":"pune-"}`, "invalid_slug"},
		{"space", `{"name":"Pune","slug":"pu ne"}`, "invalid_slug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refused(t, e, http.StatusUnprocessableEntity, tc.code, func() *webtest.Response {
				return a.platform.Post("/api/v1/admin/cities", tc.body)
			})
		})
	}
	for _, tc := range []struct{ name, body, code string }{
		{"not JSON", `{"name":`, "malformed_json"},
		{"unknown field", `{"name":"Pune","slug":"pune","country":"IN"}`, "unknown_field"},
		{"wrong type", `{"name":1,"slug":"pune"}`, "invalid_field_type"},
		{"no body", ``, "body_required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refused(t, e, http.StatusBadRequest, tc.code, func() *webtest.Response {
				return a.platform.Post("/api/v1/admin/cities", tc.body)
			})
		})
	}
}

func TestCreateTheatre(t *testing.T) {
	t.Parallel()
	a := newAdmins(t)
	e := a.e
	webtest.Want(t, a.platform.Post("/api/v1/admin/cities", map[string]string{"name": "Pune", "slug": "pune"}), http.StatusCreated)

	t.Run("with the defaults", func(t *testing.T) {
		r := a.platform.Post("/api/v1/admin/theatres", map[string]any{
			"city": "pune", "name": "Deccan Talkies", "address": "FC Road", "timezone": "Asia/Kolkata"})
		webtest.Want(t, r, http.StatusCreated)
		want := fmt.Sprintf(`{"theatre_id":%d,"city":"pune","name":"Deccan Talkies","address":"FC Road","timezone":"Asia/Kolkata","currency":"INR",`+
			`"cleaning_buffer_minutes":15,"refund_tiers":[{"hours_before":24,"percent":100},{"hours_before":2,"percent":50}],"orphan_rule":true}`,
			int64(r.Num("theatre_id")))
		if strings.TrimSpace(string(r.Body)) != want {
			t.Fatalf("theatre = %s\nwant        %s", r.Body, want)
		}
		entry := lastAudit(t, e, "theatre.create")
		if entry.Actor != a.platformID || entry.Theatre == nil || *entry.Theatre != int64(r.Num("theatre_id")) ||
			entry.Before != nil || entry.After["name"] != "Deccan Talkies" || entry.After["cleaning_buffer_minutes"] != 15.0 {
			t.Fatalf("audit entry = %+v", entry)
		}
		// No tiers of its own: the default policy applies.
		if n := e.Count(t, `SELECT count(*) FROM refund_tiers WHERE theatre_id = $1`, int64(r.Num("theatre_id"))); n != 0 {
			t.Fatalf("refund tiers = %d, want none", n)
		}
	})
	t.Run("with its own buffer and refund tiers", func(t *testing.T) {
		r := a.platform.Post("/api/v1/admin/theatres", map[string]any{
			"city": "pune", "name": "Koregaon Screens", "timezone": "Asia/Kolkata", "cleaning_buffer_minutes": 0,
			"refund_tiers": []map[string]int{{"hours_before": 6, "percent": 50}, {"hours_before": 48, "percent": 100}}})
		webtest.Want(t, r, http.StatusCreated)
		id := int64(r.Num("theatre_id"))
		if got := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT cleaning_buffer::text FROM theatres WHERE id = $1`, id); got != "00:00:00" {
			t.Fatalf("cleaning buffer = %s", got)
		}
		tiers := pgtest.Scalar[string](t, e.Store.Pool(), `
			SELECT string_agg(extract(epoch FROM min_before)::int / 3600 || 'h=' || percent, ' ' ORDER BY min_before DESC)
			  FROM refund_tiers WHERE theatre_id = $1`, id)
		if tiers != "48h=100 6h=50" {
			t.Fatalf("refund tiers = %s", tiers)
		}
		policy, err := e.Store.RefundPolicy(t.Context(), id)
		if err != nil || len(policy.Tiers) != 2 {
			t.Fatalf("policy = %+v, %v", policy, err)
		}
	})
	valid := func(change map[string]any) map[string]any {
		body := map[string]any{"city": "pune", "name": "Valid Cinema", "timezone": "Asia/Kolkata"}
		for k, v := range change {
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
		}
		return body
	}
	for _, tc := range []struct {
		name   string
		change map[string]any
		code   string
	}{
		{"an unknown zone", map[string]any{"timezone": "Mars/Olympus_Mons"}, "invalid_timezone"},
		{"an empty zone", map[string]any{"timezone": ""}, "invalid_timezone"},
		{"the server's zone", map[string]any{"timezone": "Local"}, "invalid_timezone"},
		{"a path for a zone", map[string]any{"timezone": "../../etc/passwd"}, "invalid_timezone"},
		{"no zone", map[string]any{"timezone": nil}, "invalid_timezone"},
		{"a currency ISO 4217 never assigned", map[string]any{"currency": "XYZ"}, "invalid_currency"},
		{"a withdrawn currency", map[string]any{"currency": "DEM"}, "invalid_currency"},
		{"a currency in small letters", map[string]any{"currency": "eur"}, "invalid_currency"},
		{"an unknown city", map[string]any{"city": "atlantis"}, "invalid_city"},
		{"no city", map[string]any{"city": nil}, "invalid_city"},
		{"no name", map[string]any{"name": nil}, "invalid_name"},
		{"a blank name", map[string]any{"name": " "}, "invalid_name"},
		{"a long name", map[string]any{"name": strings.Repeat("n", 101)}, "invalid_name"},
		{"the name of another theatre of the city", map[string]any{"name": "Deccan Talkies"}, "invalid_name"},
		{"a long address", map[string]any{"address": strings.Repeat("a", 301)}, "invalid_address"},
		{"a negative buffer", map[string]any{"cleaning_buffer_minutes": -1}, "invalid_cleaning_buffer_minutes"},
		{"a buffer over four hours", map[string]any{"cleaning_buffer_minutes": 241}, "invalid_cleaning_buffer_minutes"},
		{"no refund tiers", map[string]any{"refund_tiers": []any{}}, "invalid_refund_tiers"},
		{"a refund over 100 percent", map[string]any{"refund_tiers": []map[string]int{{"hours_before": 1, "percent": 101}}}, "invalid_refund_tiers"},
		{"a tier after the show", map[string]any{"refund_tiers": []map[string]int{{"hours_before": -1, "percent": 10}}}, "invalid_refund_tiers"},
		{"two tiers at one time", map[string]any{"refund_tiers": []map[string]int{{"hours_before": 2, "percent": 10}, {"hours_before": 2, "percent": 20}}}, "invalid_refund_tiers"},
		{"less back for cancelling earlier", map[string]any{"refund_tiers": []map[string]int{{"hours_before": 6, "percent": 100}, {"hours_before": 48, "percent": 50}}}, "invalid_refund_tiers"},
	} {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			refused(t, e, http.StatusUnprocessableEntity, tc.code, func() *webtest.Response {
				return a.platform.Post("/api/v1/admin/theatres", valid(tc.change))
			})
		})
	}
	t.Run("refuses a malformed body", func(t *testing.T) {
		refused(t, e, http.StatusBadRequest, "invalid_field_type", func() *webtest.Response {
			return a.platform.Post("/api/v1/admin/theatres", valid(map[string]any{"cleaning_buffer_minutes": "15"}))
		})
		refused(t, e, http.StatusBadRequest, "unknown_field", func() *webtest.Response {
			return a.platform.Post("/api/v1/admin/theatres", valid(map[string]any{"screens": 3}))
		})
	})
}

func TestTheatreDetailAndUpdate(t *testing.T) {
	t.Parallel()
	a := newAdmins(t)
	e := a.e
	path := fmt.Sprintf("/api/v1/admin/theatres/%d", e.Venue.TheatreID)

	t.Run("the theatre with its screens and admins", func(t *testing.T) {
		r := a.theatre.Get(path)
		webtest.Want(t, r, http.StatusOK)
		screens, _ := r.JSON["screens"].([]any)
		admins, _ := r.JSON["admins"].([]any)
		if r.Str("name") != "Test Cinema" || r.Str("timezone") != "Asia/Kolkata" || len(screens) != 1 || len(admins) != 1 {
			t.Fatalf("theatre = %s", r)
		}
		if s := screens[0].(map[string]any); s["seats"] != 100.0 || s["screen_id"] == nil || s["name"] == "" {
			t.Fatalf("screen = %v", s)
		}
		if ad := admins[0].(map[string]any); ad["user_id"] != a.theatreID || ad["email"] != a.theatreEmail || ad["name"] == "" {
			t.Fatalf("admin = %v", ad)
		}
	})
	t.Run("its theatre admin changes it, and the change is audited with before and after", func(t *testing.T) {
		r := patch(a.theatre, path, map[string]any{"name": "Test Cinema Gold", "cleaning_buffer_minutes": 30,
			"refund_tiers": []map[string]int{{"hours_before": 12, "percent": 80}}})
		webtest.Want(t, r, http.StatusOK)
		if r.Str("name") != "Test Cinema Gold" || r.Num("cleaning_buffer_minutes") != 30 || r.Str("timezone") != "Asia/Kolkata" {
			t.Fatalf("theatre = %s", r)
		}
		entry := lastAudit(t, e, "theatre.update")
		if entry.Actor != a.theatreID || entry.Theatre == nil || *entry.Theatre != e.Venue.TheatreID ||
			entry.Before["name"] != "Test Cinema" || entry.After["name"] != "Test Cinema Gold" ||
			entry.Before["cleaning_buffer_minutes"] != 15.0 || entry.After["cleaning_buffer_minutes"] != 30.0 {
			t.Fatalf("audit entry = %+v", entry)
		}
		if got := fmt.Sprint(entry.After["refund_tiers"]); got != "[map[hours_before:12 percent:80]]" {
			t.Fatalf("refund tiers after = %s", got)
		}
		if got := a.theatre.Get(path); got.Str("name") != "Test Cinema Gold" {
			t.Fatalf("read back = %s", got)
		}
	})
	t.Run("a platform admin changes any theatre", func(t *testing.T) {
		r := patch(a.platform, path, map[string]any{"timezone": "Europe/Paris", "address": "1 Rue"})
		webtest.Want(t, r, http.StatusOK)
		if r.Str("timezone") != "Europe/Paris" || r.Str("address") != "1 Rue" || r.Str("name") != "Test Cinema Gold" {
			t.Fatalf("theatre = %s", r)
		}
	})
	for _, tc := range []struct {
		name string
		body any
		code string
	}{
		{"an unknown zone", map[string]any{"timezone": "Nowhere/Town"}, "invalid_timezone"},
		{"an empty name", map[string]any{"name": ""}, "invalid_name"},
		{"another city", map[string]any{"city": "elsewhere"}, "invalid_city"},
		{"a buffer too long", map[string]any{"cleaning_buffer_minutes": 1000}, "invalid_cleaning_buffer_minutes"},
	} {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			refused(t, e, http.StatusUnprocessableEntity, tc.code, func() *webtest.Response { return patch(a.theatre, path, tc.body) })
		})
	}
	t.Run("an empty change changes nothing and is not audited", func(t *testing.T) {
		before := places(t, e)
		r := patch(a.theatre, path, map[string]any{})
		webtest.Want(t, r, http.StatusOK)
		if r.Str("name") != "Test Cinema Gold" || places(t, e) != before {
			t.Fatalf("theatre = %s", r)
		}
	})
	t.Run("refuses no body", func(t *testing.T) {
		refused(t, e, http.StatusBadRequest, "body_required", func() *webtest.Response { return patch(a.theatre, path, nil) })
	})
}

func TestGrantAndRevoke(t *testing.T) {
	t.Parallel()
	a := newAdmins(t)
	e := a.e
	path := fmt.Sprintf("/api/v1/admin/theatres/%d", e.Venue.TheatreID)
	role := func(id string) string {
		return pgtest.Scalar[string](t, e.Store.Pool(), `SELECT role FROM users WHERE id = $1`, id)
	}
	grants := func(id string) int64 {
		return e.Count(t, `SELECT count(*) FROM theatre_staff WHERE user_id = $1`, id)
	}

	t.Run("a moviegoer granted becomes a theatre admin of that theatre", func(t *testing.T) {
		webtest.WantError(t, a.goer.Get(path), http.StatusForbidden, "forbidden")
		r := a.platform.Post(path+"/admins", map[string]string{"email": strings.ToUpper(a.goerEmail)})
		webtest.Want(t, r, http.StatusCreated)
		if r.Num("theatre_id") != float64(e.Venue.TheatreID) || r.Str("user_id") != a.goerID || r.Str("email") != a.goerEmail {
			t.Fatalf("grant = %s", r)
		}
		if role(a.goerID) != "theatre_admin" || grants(a.goerID) != 1 {
			t.Fatalf("role %s, grants %d", role(a.goerID), grants(a.goerID))
		}
		entry := lastAudit(t, e, "theatre_admin.grant")
		if entry.Actor != a.platformID || entry.After["user_id"] != a.goerID || entry.After["role"] != "theatre_admin" || entry.Before != nil {
			t.Fatalf("audit entry = %+v", entry)
		}
		// The same session now reaches the theatre.
		webtest.Want(t, a.goer.Get(path), http.StatusOK)
	})
	t.Run("granting twice is harmless", func(t *testing.T) {
		entries := e.Count(t, `SELECT count(*) FROM audit_log`)
		webtest.Want(t, a.platform.Post(path+"/admins", map[string]string{"email": a.goerEmail}), http.StatusCreated)
		if grants(a.goerID) != 1 || e.Count(t, `SELECT count(*) FROM audit_log`) != entries {
			t.Fatalf("grants %d after a second grant", grants(a.goerID))
		}
	})
	t.Run("a platform admin granted stays a platform admin", func(t *testing.T) {
		webtest.Want(t, a.platform.Post(path+"/admins", map[string]string{"email": a.platformEmail}), http.StatusCreated)
		if role(a.platformID) != "platform_admin" {
			t.Fatalf("role = %s", role(a.platformID))
		}
		webtest.Want(t, a.platform.Delete(path+"/admins/"+a.platformID), http.StatusNoContent)
		if role(a.platformID) != "platform_admin" {
			t.Fatalf("role after revoke = %s", role(a.platformID))
		}
	})
	t.Run("refuses an unknown account or theatre", func(t *testing.T) {
		refused(t, e, http.StatusUnprocessableEntity, "unknown_account", func() *webtest.Response {
			return a.platform.Post(path+"/admins", map[string]string{"email": "nobody@example.com"})
		})
		refused(t, e, http.StatusUnprocessableEntity, "invalid_email", func() *webtest.Response {
			return a.platform.Post(path+"/admins", map[string]string{"email": ""})
		})
		refused(t, e, http.StatusNotFound, "not_found", func() *webtest.Response {
			return a.platform.Post("/api/v1/admin/theatres/999999/admins", map[string]string{"email": a.goerEmail})
		})
		refused(t, e, http.StatusNotFound, "not_found", func() *webtest.Response {
			return a.platform.Delete("/api/v1/admin/theatres/999999/admins/" + a.goerID)
		})
		refused(t, e, http.StatusNotFound, "not_found", func() *webtest.Response {
			return a.platform.Delete(path + "/admins/not-a-uuid")
		})
		refused(t, e, http.StatusNotFound, "not_found", func() *webtest.Response {
			return a.platform.Delete(path + "/admins/6f1c1d2e-0000-4000-8000-000000000001")
		})
	})
	t.Run("revoked, a theatre admin with no theatre left is a moviegoer again", func(t *testing.T) {
		r := a.platform.Delete(path + "/admins/" + a.goerID)
		webtest.Want(t, r, http.StatusNoContent)
		if role(a.goerID) != "moviegoer" || grants(a.goerID) != 0 {
			t.Fatalf("role %s, grants %d", role(a.goerID), grants(a.goerID))
		}
		entry := lastAudit(t, e, "theatre_admin.revoke")
		if entry.Actor != a.platformID || entry.Before["user_id"] != a.goerID || entry.Before["role"] != "theatre_admin" || entry.After != nil {
			t.Fatalf("audit entry = %+v", entry)
		}
		webtest.WantError(t, a.goer.Get(path), http.StatusForbidden, "forbidden")
		// Revoking again changes nothing.
		entries := e.Count(t, `SELECT count(*) FROM audit_log`)
		webtest.Want(t, a.platform.Delete(path+"/admins/"+a.goerID), http.StatusNoContent)
		if e.Count(t, `SELECT count(*) FROM audit_log`) != entries {
			t.Fatal("a revocation of nothing was audited")
		}
	})
	t.Run("a theatre admin keeps the role while granted another theatre", func(t *testing.T) {
		other := a.platform.Post("/api/v1/admin/theatres", map[string]any{
			"city": pgtest.Scalar[string](t, e.Store.Pool(), `SELECT slug FROM cities`), "name": "Second Cinema", "timezone": "UTC"})
		webtest.Want(t, other, http.StatusCreated)
		webtest.Want(t, a.platform.Post(fmt.Sprintf("/api/v1/admin/theatres/%d/admins", int64(other.Num("theatre_id"))),
			map[string]string{"email": a.theatreEmail}), http.StatusCreated)
		webtest.Want(t, a.platform.Delete(path+"/admins/"+a.theatreID), http.StatusNoContent)
		if role(a.theatreID) != "theatre_admin" || grants(a.theatreID) != 1 {
			t.Fatalf("role %s, grants %d", role(a.theatreID), grants(a.theatreID))
		}
		webtest.WantError(t, a.theatre.Get(path), http.StatusNotFound, "not_found")
	})
}

func TestAuditLog(t *testing.T) {
	t.Parallel()
	a := newAdmins(t)
	e := a.e
	theatre := fmt.Sprintf("/api/v1/admin/theatres/%d", e.Venue.TheatreID)
	webtest.Want(t, a.platform.Post("/api/v1/admin/cities", map[string]string{"name": "Pune", "slug": "pune"}), http.StatusCreated)
	webtest.Want(t, patch(a.theatre, theatre, map[string]any{"name": "Renamed"}), http.StatusOK)
	webtest.Want(t, patch(a.theatre, theatre, map[string]any{"address": "2 Main Road"}), http.StatusOK)

	entries := func(t *testing.T, query string) []map[string]any {
		t.Helper()
		r := a.platform.Get("/api/v1/admin/audit" + query)
		webtest.Want(t, r, http.StatusOK)
		var out []map[string]any
		for _, v := range r.JSON["entries"].([]any) {
			out = append(out, v.(map[string]any))
		}
		return out
	}
	t.Run("newest first, with actor, before and after", func(t *testing.T) {
		all := entries(t, "")
		if len(all) != 3 {
			t.Fatalf("entries = %v", all)
		}
		newest := all[0]
		actor := newest["actor"].(map[string]any)
		if newest["action"] != "theatre.update" || actor["user_id"] != a.theatreID || actor["email"] != a.theatreEmail ||
			newest["theatre_id"] != float64(e.Venue.TheatreID) || newest["object"] != fmt.Sprintf("theatre %d", e.Venue.TheatreID) ||
			newest["before"].(map[string]any)["address"] != "" || newest["after"].(map[string]any)["address"] != "2 Main Road" ||
			newest["at"] == "" || newest["id"] == nil {
			t.Fatalf("newest = %v", newest)
		}
		if oldest := all[2]; oldest["action"] != "city.create" || oldest["theatre_id"] != nil || oldest["before"] != nil {
			t.Fatalf("oldest = %v", oldest)
		}
	})
	t.Run("filters", func(t *testing.T) {
		today := e.Now().UTC().Format("2006-01-02")
		for _, tc := range []struct {
			query string
			want  int
		}{
			{fmt.Sprintf("?theatre_id=%d", e.Venue.TheatreID), 2},
			{"?theatre_id=999999", 0},
			{"?actor=" + a.platformEmail, 1},
			{"?actor=" + strings.ToUpper(a.theatreEmail), 2},
			{"?actor=nobody@example.com", 0},
			{"?from=" + today + "&to=" + today, 3},
			{"?to=2000-01-01", 0},
			{"?from=2999-01-01", 0},
			{"?limit=1", 1},
		} {
			if got := entries(t, tc.query); len(got) != tc.want {
				t.Errorf("%s: %d entries, want %d", tc.query, len(got), tc.want)
			}
		}
	})
	t.Run("a bad filter is a 400", func(t *testing.T) {
		for _, q := range []string{"?theatre_id=x", "?theatre_id=-1", "?from=yesterday", "?to=2026-13-01",
			"?from=2026-02-02&to=2026-02-01", "?limit=0", "?limit=501", "?limit=ten"} {
			webtest.WantError(t, a.platform.Get("/api/v1/admin/audit"+q), http.StatusBadRequest, "invalid_query")
		}
		webtest.WantError(t, a.platform.Get("/api/v1/admin/audit?actor=%00"), http.StatusBadRequest, "invalid_text")
	})
	t.Run("a failed change writes no entry", func(t *testing.T) {
		before := e.Count(t, `SELECT count(*) FROM audit_log`)
		webtest.WantError(t, a.platform.Post("/api/v1/admin/cities", map[string]string{"name": "Pune", "slug": "pune"}),
			http.StatusConflict, "city_exists")
		webtest.WantError(t, patch(a.theatre, theatre, map[string]any{"timezone": "Bad/Zone"}), http.StatusUnprocessableEntity, "invalid_timezone")
		if after := e.Count(t, `SELECT count(*) FROM audit_log`); after != before {
			t.Fatalf("audit entries %d -> %d", before, after)
		}
	})
}
