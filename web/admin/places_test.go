package admin_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// placesBrowser is a browser signed in through the login page as a new
// account of role, granted theatres.
func placesBrowser(t *testing.T, e *webtest.Env, role auth.Role, theatres ...int64) (*webtest.Browser, auth.User) {
	t.Helper()
	_, u := e.Account(t, role, theatres...)
	b := e.Browser()
	p := b.Submit(t, "/login", url.Values{"email": {u.Email}, "password": {pgtest.FixturePassword}})
	// With nowhere else to go back to, an admin lands on the dashboard.
	webtest.WantSeeOther(t, p, "/admin")
	return b, u
}

// otherTheatre is a second theatre in the env's city.
func otherTheatre(t *testing.T, e *webtest.Env) int64 {
	t.Helper()
	id, err := e.Store.CreateTheatre(context.Background(), catalog.Theatre{CityID: e.Venue.CityID,
		Name: fmt.Sprintf("Other Cinema %d", e.Seq.Add(1)), TimeZone: "Europe/London"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func theatreURL(id int64) string { return fmt.Sprintf("/admin/theatres/%d", id) }

func TestPlacesAccess(t *testing.T) {
	e := webtest.NewEnv(t)
	other := otherTheatre(t, e)
	pages := []string{"/admin", "/admin/theatres", theatreURL(e.Venue.TheatreID)}

	t.Run("a guest is sent to log in", func(t *testing.T) {
		b := e.Browser()
		for _, path := range pages {
			p := b.Get(t, path)
			if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/login") {
				t.Fatalf("%s: %d to %q, want 303 to /login", path, p.Status, p.Header.Get("Location"))
			}
		}
	})

	t.Run("a moviegoer is refused", func(t *testing.T) {
		b := e.PageUser(t)
		for _, path := range pages {
			webtest.WantFriendly(t, b.Get(t, path), http.StatusForbidden)
		}
		webtest.WantFriendly(t, b.Submit(t, "/admin/theatres", url.Values{"name": {"X"}}), http.StatusForbidden)
	})

	t.Run("another theatre's admin finds no such theatre", func(t *testing.T) {
		b, _ := placesBrowser(t, e, auth.RoleTheatreAdmin, other)
		webtest.WantFriendly(t, b.Get(t, theatreURL(e.Venue.TheatreID)), http.StatusNotFound)
		p := b.Submit(t, theatreURL(e.Venue.TheatreID), url.Values{"name": {"Taken over"}, "timezone": {"UTC"},
			"cleaning_buffer_minutes": {"10"}, "tier_hours": {"1"}, "tier_percent": {"10"}})
		webtest.WantFriendly(t, p, http.StatusNotFound)
		webtest.WantFriendly(t, b.Get(t, "/admin/theatres/999999"), http.StatusNotFound)
		webtest.WantFriendly(t, b.Get(t, "/admin/theatres/nope"), http.StatusNotFound)
		if n := e.Count(t, `SELECT count(*) FROM theatres WHERE name = 'Taken over'`); n != 0 {
			t.Fatal("another theatre's admin changed it")
		}
	})

	t.Run("a theatre admin may not create, grant or revoke", func(t *testing.T) {
		b, u := placesBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
		webtest.WantFriendly(t, b.Submit(t, "/admin/cities", url.Values{"name": {"Pune"}, "slug": {"pune"}}), http.StatusForbidden)
		webtest.WantFriendly(t, b.Submit(t, "/admin/theatres", url.Values{"city": {e.CitySlug(t)}, "name": {"Mine"}, "timezone": {"UTC"}}),
			http.StatusForbidden)
		webtest.WantFriendly(t, b.Submit(t, theatreURL(e.Venue.TheatreID)+"/admins", url.Values{"email": {u.Email}}), http.StatusForbidden)
		webtest.WantFriendly(t, b.Submit(t, theatreURL(e.Venue.TheatreID)+"/admins/"+u.ID+"/revoke", nil), http.StatusForbidden)
		if n := e.Count(t, `SELECT count(*) FROM theatre_admins WHERE user_id = $1`, u.ID); n != 1 {
			t.Fatalf("grants = %d, want 1", n)
		}
	})
}

func TestDashboard(t *testing.T) {
	e := webtest.NewEnv(t)
	other := otherTheatre(t, e)
	// A second show, soon: today in the theatre's zone unless midnight comes first.
	soon := e.Now().Add(30 * time.Minute)
	next := pgtest.NewShow(t, e.Store, e.Venue, 2, 2, soon)
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	today := "0 shows"
	if soon.In(kolkata).YearDay() == e.Now().In(kolkata).YearDay() {
		today = "1 show"
	}

	t.Run("a platform admin sees every theatre, the ledger and the catalogue", func(t *testing.T) {
		b, _ := placesBrowser(t, e, auth.RolePlatformAdmin)
		p := b.Get(t, "/admin")
		webtest.Want200(t, p)
		card := fmt.Sprintf(`[data-dashboard-theatres] li:has(a[href="%s"])`, theatreURL(e.Venue.TheatreID))
		if !p.Has(card) || !p.Has(fmt.Sprintf(`a[href="%s"]`, theatreURL(other))) {
			t.Fatalf("theatres missing: %s", p.Text("[data-dashboard-theatres]"))
		}
		if got := p.Text(card + " [data-upcoming]"); got != "2 shows" {
			t.Fatalf("upcoming = %q, want 2 shows", got)
		}
		if got := p.Text(card + " [data-today]"); got != today {
			t.Fatalf("today = %q, want %q", got, today)
		}
		// The next show's time leads to its page.
		if !p.Has(fmt.Sprintf(`%s [data-next] a[href="/admin/shows/%d"] time`, card, next)) {
			t.Fatalf("no link to the next show: %s", p.Text(card+" [data-next]"))
		}
		if !p.Has(fmt.Sprintf(`%s a[href="%s/schedule"]`, card, theatreURL(e.Venue.TheatreID))) ||
			!p.Has(fmt.Sprintf(`%s a[href="/admin/reports/sales?theatre_id=%d"]`, card, e.Venue.TheatreID)) {
			t.Fatal("no schedule or sales link")
		}
		if !strings.Contains(p.Text(`[data-ledger="balanced"]`), "Ledger check: balanced") || !p.Has(`[data-ledger] time[datetime]`) {
			t.Fatalf("ledger: %s", p.Text("main"))
		}
		for _, href := range []string{"/admin/movies", "/admin/theatres#new-theatre", "/admin/theatres#new-city", "/admin/reconciliation"} {
			if !p.Has(fmt.Sprintf(`main a[href="%s"]`, href)) {
				t.Fatalf("no link to %s", href)
			}
		}
	})

	t.Run("a broken ledger is listed", func(t *testing.T) {
		b, _ := placesBrowser(t, e, auth.RolePlatformAdmin)
		pgtest.Exec(t, e.Store.Pool(), `INSERT INTO payments (payment_id, hold_ref, amount_minor, currency, outcome, reason, received_at)
			VALUES ('pay_dash_test', 'nohold', 5000, 'INR', 'REFUND_REQUIRED', 'unknown_hold', now())`)
		defer pgtest.Exec(t, e.Store.Pool(), `DELETE FROM payments WHERE payment_id = 'pay_dash_test'`)
		p := b.Get(t, "/admin")
		webtest.Want200(t, p)
		panel := p.Text(`[data-ledger="failing"]`)
		if !strings.Contains(panel, "I4") || !strings.Contains(panel, "pay_dash_test") || p.Attr(`[data-ledger="failing"]`, "role") != "alert" {
			t.Fatalf("ledger panel: %q", panel)
		}
	})

	t.Run("a theatre admin sees only their theatres", func(t *testing.T) {
		b, _ := placesBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
		p := b.Get(t, "/admin")
		webtest.Want200(t, p)
		if !p.Has(fmt.Sprintf(`a[href="%s"]`, theatreURL(e.Venue.TheatreID))) || p.Has(fmt.Sprintf(`a[href="%s"]`, theatreURL(other))) {
			t.Fatalf("theatres: %s", p.Text("[data-dashboard-theatres]"))
		}
		if p.Has("[data-ledger]") || p.Has(`main a[href="/admin/movies"]`) || p.Has(`main a[href="/admin/theatres#new-theatre"]`) {
			t.Fatal("a theatre admin sees the platform admin's part")
		}
		if !p.Has(`main a[href="/admin/reconciliation"]`) {
			t.Fatal("no link to the payments to check")
		}
	})
}

func TestTheatresPages(t *testing.T) {
	e := webtest.NewEnv(t)
	other := otherTheatre(t, e)
	b, _ := placesBrowser(t, e, auth.RolePlatformAdmin)

	t.Run("the list and the forms", func(t *testing.T) {
		p := b.Get(t, "/admin/theatres")
		webtest.Want200(t, p)
		for _, id := range []int64{e.Venue.TheatreID, other} {
			if !p.Has(fmt.Sprintf(`[data-theatres] th[scope=row] a[href="%s"]`, theatreURL(id))) {
				t.Fatalf("theatre %d not listed", id)
			}
		}
		if !p.Has(fmt.Sprintf(`#new-theatre select[name=city] option[value="%s"]`, e.CitySlug(t))) || !p.Has(`#new-city input[name=slug]`) {
			t.Fatal("no new theatre or city form")
		}
		if p.Attr("#theatre-cleaning_buffer_minutes", "value") != "15" || p.Attr("#theatre-tier-hours-0", "value") != "24" {
			t.Fatal("the new theatre form does not start with the defaults")
		}
		for _, id := range []string{"theatre-name", "theatre-address", "theatre-timezone", "theatre-city", "city-name", "city-slug", "theatre-tier-hours-0"} {
			if !p.Has(fmt.Sprintf(`label[for="%s"]`, id)) {
				t.Fatalf("field %s has no label", id)
			}
		}
		ta, _ := placesBrowser(t, e, auth.RoleTheatreAdmin, other)
		p = ta.Get(t, "/admin/theatres")
		webtest.Want200(t, p)
		if p.Has("#new-theatre") || p.Has("#new-city") || p.Has(fmt.Sprintf(`a[href="%s"]`, theatreURL(e.Venue.TheatreID))) ||
			!p.Has(fmt.Sprintf(`a[href="%s"]`, theatreURL(other))) {
			t.Fatalf("a theatre admin's list: %s", p.Text("main"))
		}
	})

	t.Run("a new city, then a theatre in it", func(t *testing.T) {
		p := b.Submit(t, "/admin/cities", url.Values{"name": {"Pune"}, "slug": {"pune"}})
		webtest.WantSeeOther(t, p, "/admin/theatres?city=pune#new-theatre")
		p = b.Get(t, "/admin/theatres?city=pune")
		if p.Attr(`#theatre-city option[selected]`, "value") != "pune" || !strings.Contains(p.Text(`[role=status]`), "Pune") {
			t.Fatalf("the new city is not chosen: %s", p.Text("[role=status]"))
		}
		p = b.Submit(t, "/admin/theatres", url.Values{"city": {"pune"}, "name": {"Marquee Koregaon"}, "address": {"North Main Road"},
			"timezone": {"Asia/Kolkata"}, "cleaning_buffer_minutes": {"20"},
			"tier_hours": {"48", "6", ""}, "tier_percent": {"100", "25", ""}})
		if p.Status != http.StatusSeeOther {
			t.Fatalf("create: %s", p)
		}
		var id int64
		if _, err := fmt.Sscanf(p.Header.Get("Location"), "/admin/theatres/%d?done=created", &id); err != nil {
			t.Fatalf("created, then to %q", p.Header.Get("Location"))
		}
		r := b.API().Get(fmt.Sprintf("/api/v1/admin/theatres/%d", id))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("name") != "Marquee Koregaon" || r.Str("city") != "pune" || r.Num("cleaning_buffer_minutes") != 20 ||
			!strings.Contains(string(r.Body), `"refund_tiers":[{"hours_before":48,"percent":100},{"hours_before":6,"percent":25}]`) {
			t.Fatalf("created theatre: %s", r)
		}
		p = b.Get(t, p.Header.Get("Location"))
		webtest.Want200(t, p)
		if p.Text("h1") != "Marquee Koregaon" || !strings.Contains(p.Text("[role=status]"), "Theatre added") {
			t.Fatalf("theatre page: %s", p.Text("main"))
		}
	})

	t.Run("mistakes come back at their fields and change nothing", func(t *testing.T) {
		before := e.Count(t, `SELECT count(*) FROM theatres`)
		cases := []struct {
			form  url.Values
			field string
			says  string
		}{
			{url.Values{"city": {""}, "name": {"No City"}, "timezone": {"UTC"}}, "city", "city"},
			{url.Values{"city": {"pune"}, "name": {"Bad Zone"}, "timezone": {"Mars/Olympus"}}, "timezone", "IANA"},
			{url.Values{"city": {"pune"}, "name": {""}, "timezone": {"UTC"}}, "name", "name"},
			{url.Values{"city": {"pune"}, "name": {"Slow"}, "timezone": {"UTC"}, "cleaning_buffer_minutes": {"lots"}}, "cleaning_buffer_minutes", "minutes"},
			{url.Values{"city": {"pune"}, "name": {"Generous"}, "timezone": {"UTC"}, "tier_hours": {"24"}, "tier_percent": {"150"}}, "refund_tiers", "percent"},
			{url.Values{"city": {"pune"}, "name": {"Half"}, "timezone": {"UTC"}, "tier_hours": {"24"}, "tier_percent": {""}}, "refund_tiers", "Tier 1"},
			{url.Values{"city": {"pune"}, "name": {"Marquee Koregaon"}, "timezone": {"UTC"}}, "name", "Another theatre"},
		}
		for _, c := range cases {
			p := b.Submit(t, "/admin/theatres", c.form)
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			id := "theatre-" + c.field
			if c.field == "refund_tiers" {
				if !p.Has("#theatre-tier-hours-0[aria-invalid=true]") {
					t.Fatalf("%v: tiers not marked", c.form)
				}
			} else if p.Attr("#"+id, "aria-invalid") != "true" || !strings.Contains(p.Attr("#"+id, "aria-describedby"), id+"-error") {
				t.Fatalf("%v: field %s not marked: %s", c.form, c.field, p.Text("#theatre-form-error"))
			}
			if !strings.Contains(p.Text("#"+id+"-error"), c.says) || !p.Has(`#theatre-form-error[role=alert]`) {
				t.Fatalf("%v: %q, want %q", c.form, p.Text("#"+id+"-error"), c.says)
			}
			if p.Attr("#theatre-name", "value") != c.form.Get("name") {
				t.Fatal("the form forgot what was typed")
			}
		}
		// Every mistake at once, each at its field, as the schedule form does.
		p := b.Submit(t, "/admin/theatres", url.Values{"city": {"pune"}, "name": {" "}, "timezone": {"Mars/Olympus"},
			"currency": {"XYZ"}, "cleaning_buffer_minutes": {"lots"}, "tier_hours": {"24"}, "tier_percent": {"150"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		wantTheatreFaults(t, p, map[string]string{"name": "name", "timezone": "IANA", "currency": "currency",
			"cleaning_buffer_minutes": "minutes", "refund_tiers": "percent"})
		p = b.Submit(t, "/admin/cities", url.Values{"name": {"Pune again"}, "slug": {"pune"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text("#city-slug-error"), "already exists") || p.Attr("#city-name", "value") != "Pune again" {
			t.Fatalf("taken slug: %s", p.Text("#new-city"))
		}
		p = b.Submit(t, "/admin/cities", url.Values{"name": {"Navi Mumbai"}, "slug": {"Navi Mumbai"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text("#city-slug-error"), "dashes") {
			t.Fatalf("bad slug: %s", p.Text("#new-city"))
		}
		if after := e.Count(t, `SELECT count(*) FROM theatres`); after != before {
			t.Fatalf("theatres %d -> %d", before, after)
		}
		if n := e.Count(t, `SELECT count(*) FROM cities WHERE name IN ('Pune again', 'Navi Mumbai')`); n != 0 {
			t.Fatal("a bad city was added")
		}
	})
}

func TestTheatrePage(t *testing.T) {
	e := webtest.NewEnv(t)
	th := e.Venue.TheatreID
	path := theatreURL(th)
	manager, mu := placesBrowser(t, e, auth.RoleTheatreAdmin, th)
	platform, _ := placesBrowser(t, e, auth.RolePlatformAdmin)
	form := func(changes url.Values) url.Values {
		f := url.Values{"name": {"Test Cinema"}, "address": {""}, "timezone": {"Asia/Kolkata"}, "cleaning_buffer_minutes": {"15"},
			"tier_hours": {"24", "2", ""}, "tier_percent": {"100", "50", ""}}
		for k, v := range changes {
			f[k] = v
		}
		return f
	}
	audits := func() int64 { return e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'theatre.update'`) }

	t.Run("its details, screens, links and admins", func(t *testing.T) {
		p := manager.Get(t, path)
		webtest.Want200(t, p)
		if p.Text("h1") != "Test Cinema" || p.Attr("#theatre-timezone", "value") != "Asia/Kolkata" ||
			p.Attr("#theatre-tier-hours-1", "value") != "2" || p.Attr("#theatre-tier-percent-1", "value") != "50" {
			t.Fatalf("details: %s", p.Text("#edit-theatre"))
		}
		if !p.Has(`[data-screens] th[scope=row] a[href^="/admin/screens/"]`) || !p.Has(`a[href="`+path+`/screens/new"]`) {
			t.Fatal("no screens or new screen link")
		}
		if !p.Has(`a[href="`+path+`/schedule"]`) || !p.Has(fmt.Sprintf(`a[href="/admin/reports/sales?theatre_id=%d"]`, th)) {
			t.Fatal("no schedule or sales link")
		}
		if !strings.Contains(p.Text("[data-admins]"), mu.Email) || p.Has("#grant") || p.Has("[data-admins] form") {
			t.Fatalf("a theatre admin's admins: %s", p.Text("[data-admins]"))
		}
		p = platform.Get(t, path)
		webtest.Want200(t, p)
		if !p.Has("#grant input#grant-email") || !p.Has(fmt.Sprintf(`[data-admins] details form[action="%s/admins/%s/revoke"] button`, path, mu.ID)) {
			t.Fatal("a platform admin has no grant form or revoke button")
		}
	})

	t.Run("a theatre admin saves its settings", func(t *testing.T) {
		p := manager.Submit(t, path, form(url.Values{"name": {"Test Cinema Gold"}, "address": {"1 Main St"}, "cleaning_buffer_minutes": {"25"},
			"tier_hours": {"72", "", ""}, "tier_percent": {"80", "", ""}}))
		webtest.WantSeeOther(t, p, path+"?done=saved")
		r := platform.API().Get(fmt.Sprintf("/api/v1/admin/theatres/%d", th))
		if r.Str("name") != "Test Cinema Gold" || r.Str("address") != "1 Main St" || r.Num("cleaning_buffer_minutes") != 25 ||
			!strings.Contains(string(r.Body), `"refund_tiers":[{"hours_before":72,"percent":80}]`) {
			t.Fatalf("after saving: %s", r)
		}
		p = manager.Get(t, path+"?done=saved")
		if !strings.Contains(p.Text("[role=status]"), "Changes saved") || p.Attr("#theatre-name", "value") != "Test Cinema Gold" {
			t.Fatal("no confirmation")
		}
		n := audits()
		p = manager.Submit(t, path, form(url.Values{"name": {"Test Cinema Gold"}, "address": {"1 Main St"}, "cleaning_buffer_minutes": {"25"},
			"tier_hours": {"", "72"}, "tier_percent": {"", "80"}}))
		webtest.WantSeeOther(t, p, path+"?done=saved")
		if audits() != n {
			t.Fatal("saving the form unchanged wrote an audit entry")
		}
	})

	t.Run("mistakes come back at their fields and change nothing", func(t *testing.T) {
		n := audits()
		for field, f := range map[string]url.Values{
			"timezone":                form(url.Values{"timezone": {"Local"}}),
			"cleaning_buffer_minutes": form(url.Values{"cleaning_buffer_minutes": {"999"}}),
			"refund_tiers":            form(url.Values{"tier_hours": {"", ""}, "tier_percent": {"", ""}}),
			"name":                    form(url.Values{"name": {" "}}),
		} {
			p := manager.Submit(t, path, f)
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			if p.Text("#theatre-"+field+"-error") == "" || p.Text("#theatre-form-error") == "" {
				t.Fatalf("%s: no message at the field: %s", field, p.Text("#edit-theatre"))
			}
		}
		// Every mistake at once, each at its field.
		p := manager.Submit(t, path, form(url.Values{"name": {" "}, "timezone": {"Local"}, "currency": {"ABC"},
			"cleaning_buffer_minutes": {"999"}, "tier_hours": {"", ""}, "tier_percent": {"", ""}}))
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		wantTheatreFaults(t, p, map[string]string{"name": "name", "timezone": "IANA", "currency": "currency",
			"cleaning_buffer_minutes": "minutes", "refund_tiers": "tier"})
		if audits() != n {
			t.Fatal("a bad form changed the theatre")
		}
	})

	t.Run("a platform admin grants and revokes", func(t *testing.T) {
		_, newcomer := e.Account(t, auth.RoleMoviegoer)
		p := platform.Submit(t, path+"/admins", url.Values{"email": {"nobody-" + newcomer.Email}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if p.Text("#grant-email-error") != "No account has this email. Ask the person to sign up first." ||
			p.Attr("#grant-email", "aria-invalid") != "true" || p.Attr("#grant-email", "value") != "nobody-"+newcomer.Email {
			t.Fatalf("unknown email: %s", p.Text("#grant"))
		}
		p = platform.Submit(t, path+"/admins", url.Values{"email": {""}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)

		p = platform.Submit(t, path+"/admins", url.Values{"email": {strings.ToUpper(newcomer.Email)}})
		webtest.WantSeeOther(t, p, path+"?done=granted#admins-title")
		if n := e.Count(t, `SELECT count(*) FROM theatre_admins WHERE theatre_id = $1 AND user_id = $2`, th, newcomer.ID); n != 1 {
			t.Fatal("not granted")
		}
		p = platform.Get(t, path+"?done=granted")
		if !strings.Contains(p.Text("[data-admins]"), newcomer.Email) || !strings.Contains(p.Text("[role=status]"), "Access granted") {
			t.Fatalf("after granting: %s", p.Text("[data-admins]"))
		}

		p = platform.Submit(t, fmt.Sprintf("%s/admins/%s/revoke", path, newcomer.ID), nil)
		webtest.WantSeeOther(t, p, path+"?done=revoked#admins-title")
		if n := e.Count(t, `SELECT count(*) FROM theatre_admins WHERE user_id = $1`, newcomer.ID); n != 0 {
			t.Fatal("not revoked")
		}
		webtest.WantFriendly(t, platform.Submit(t, path+"/admins/not-a-user/revoke", nil), http.StatusNotFound)
		webtest.WantFriendly(t, platform.Submit(t, "/admin/theatres/999999/admins", url.Values{"email": {newcomer.Email}}), http.StatusNotFound)
	})
}

// wantTheatreFaults checks that the theatre form names every one of want
// (field: words its message has) at its field, and counts them all in its
// summary.
func wantTheatreFaults(t *testing.T, p *webtest.HTMLDoc, want map[string]string) {
	t.Helper()
	for field, says := range want {
		id := "theatre-" + field
		if got := p.Text("#" + id + "-error"); !strings.Contains(strings.ToLower(got), strings.ToLower(says)) {
			t.Errorf("the %s field says %q, want %q", field, got, says)
		}
	}
	if got, n := p.Text("#theatre-form-error"), len(want); !strings.Contains(got, fmt.Sprintf("these %d things", n)) {
		t.Errorf("the form's summary says %q, want %d mistakes", got, n)
	}
}
