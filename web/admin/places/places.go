// Package places serves the admin pages of places: cities, theatres and
// who administers them, and each theatre's screens with the seat-layout
// editor.
package places

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Handlers are the places pages' handlers, on the shared server.
type Handlers struct{ *web.Server }

// Cities, theatres and their admins. A form sent with a mistake comes
// back (422) with what was typed and the mistake at its field; a change
// that worked goes on (303) to the page that shows it.

// maxTierRows is how many refund tier rows a theatre form offers at most
// (the use case takes at most ten tiers).
const maxTierRows = 10

// TheatresPage lists the admin's theatres, with the forms for a new
// theatre and a new city for a platform admin: GET /admin/theatres. After
// a new city (?city=slug) that city is chosen in the new-theatre form.
func (h *Handlers) TheatresPage(c echo.Context) error {
	v := adminview.TheatresView{New: newTheatreForm()}
	if slug := c.QueryParam("city"); slug != "" {
		v.New.City = slug
	}
	return h.theatresPage(c, http.StatusOK, v)
}

// newTheatreForm is the empty new-theatre form: the default cleaning time
// and refund policy filled in.
func newTheatreForm() adminview.TheatreForm {
	f := adminview.TheatreForm{Currency: "INR", CleaningBuffer: strconv.Itoa(int(admin.DefaultCleaningBuffer / time.Minute)),
		Settings: catalog.DefaultTheatreSettings()}
	f.Tiers = tierRows(admin.Record(catalog.AdminTheatre{Policy: booking.DefaultRefundPolicy}).RefundTiers)
	return f
}

// theatresPage renders the theatres page with v's forms, the list and the
// cities read afresh.
func (h *Handlers) theatresPage(c echo.Context, status int, v adminview.TheatresView) error {
	ctx := c.Request().Context()
	a := web.Actor(c)
	v.Platform = a.Platform()
	theatres, err := h.Admin.Theatres(ctx, a)
	if err != nil {
		return err
	}
	for _, t := range theatres {
		v.Theatres = append(v.Theatres, adminview.TheatreRow{ID: t.ID, Name: t.Name, City: t.CityName, Address: t.Address, TimeZone: t.TimeZone})
	}
	if v.Platform {
		cities, err := h.Store.Cities(ctx)
		if err != nil {
			return err
		}
		for _, city := range cities {
			v.Cities = append(v.Cities, adminview.CityOption{Name: city.Name, Slug: city.Slug})
			if status == http.StatusOK && city.Slug == c.QueryParam("city") {
				v.Status = fmt.Sprintf("City added: %s. It is chosen for the new theatre below.", city.Name)
			}
		}
	}
	return web.Render(c, status, adminview.TheatresPage(adminpage.Meta(h.Server, c, "Theatres"), adminpage.Nav(c, adminview.SectionTheatres), v))
}

// CreateTheatreSubmit adds a theatre and shows it: POST /admin/theatres.
func (h *Handlers) CreateTheatreSubmit(c echo.Context) error {
	if err := adminpage.PlatformOnly(c); err != nil {
		return err
	}
	f := theatreFormOf(c)
	f.City = c.FormValue("city")
	in, fields := theatreInput(f, true)
	if f.City == "" {
		fields["city"] = "Choose the theatre's city."
	}
	in.City = &f.City
	addFieldProblems(fields, admin.CheckTheatre(in, true))
	if len(fields) == 0 {
		t, err := h.Admin.CreateTheatre(c.Request().Context(), web.Actor(c), in)
		if err == nil {
			return web.SeeOther(c, fmt.Sprintf("/admin/theatres/%d?done=created", t.ID))
		}
		if fields = placeFieldProblem(err); fields == nil {
			return err
		}
	}
	f.Fields, f.Error = fields, placesFixThese(len(fields))
	return h.theatresPage(c, http.StatusUnprocessableEntity, adminview.TheatresView{New: f})
}

// CreateCitySubmit adds a city and goes back to the theatres page with it
// chosen for a new theatre: POST /admin/cities.
func (h *Handlers) CreateCitySubmit(c echo.Context) error {
	if err := adminpage.PlatformOnly(c); err != nil {
		return err
	}
	f := adminview.CityForm{Name: c.FormValue("name"), Slug: strings.TrimSpace(c.FormValue("slug"))}
	city, err := h.Admin.CreateCity(c.Request().Context(), web.Actor(c), f.Name, f.Slug)
	if err == nil {
		return web.SeeOther(c, "/admin/theatres?city="+city.Slug+"#new-theatre")
	}
	switch fields := placeFieldProblem(err); {
	case errors.Is(err, catalog.ErrCityExists):
		f.Fields = map[string]string{"slug": "A city with this slug already exists. Pick another slug."}
	case fields != nil:
		f.Fields = fields
	default:
		return err
	}
	f.Error = placesFixThese(len(f.Fields))
	return h.theatresPage(c, http.StatusUnprocessableEntity, adminview.TheatresView{New: newTheatreForm(), City: f})
}

// TheatrePage is one theatre: GET /admin/theatres/{id}. Another theatre's
// admin finds no such theatre.
func (h *Handlers) TheatrePage(c echo.Context) error {
	d, err := h.placeTheatre(c)
	if err != nil {
		return err
	}
	return h.theatrePage(c, http.StatusOK, d, theatreForm(d.AdminTheatre), adminview.GrantForm{})
}

// placeTheatre reads the theatre of the path, or answers 404.
func (h *Handlers) placeTheatre(c echo.Context) (catalog.TheatreDetail, error) {
	id, err := adminpage.PathID(c, "theatre_id")
	if err != nil {
		return catalog.TheatreDetail{}, problem.NotFound("theatre")
	}
	d, err := h.Admin.Theatre(c.Request().Context(), web.Actor(c), id)
	return d, problem.Lookup("theatre", err)
}

// theatreDone are what a change that worked says on the theatre page it
// goes on to (?done=).
var theatreDone = map[string]string{
	"created": "Theatre added. Give it screens next.",
	"saved":   "Changes saved.",
	"granted": "Access granted.",
	"revoked": "Access revoked.",
}

func (h *Handlers) theatrePage(c echo.Context, status int, d catalog.TheatreDetail, edit adminview.TheatreForm, grant adminview.GrantForm) error {
	v := adminview.TheatreView{Platform: web.Actor(c).Platform(), ID: d.ID, Name: d.Name, City: d.CityName, Edit: edit, Grant: grant}
	if status == http.StatusOK {
		v.Status = theatreDone[c.QueryParam("done")]
	}
	for _, s := range d.Screens {
		v.Screens = append(v.Screens, adminview.ScreenRow{ID: s.ID, Name: s.Name, Seats: s.Seats})
	}
	for _, u := range d.Admins {
		v.Admins = append(v.Admins, adminview.AdminRow{UserID: u.ID, Email: u.Email, Name: u.Name})
	}
	return web.Render(c, status, adminview.TheatrePage(adminpage.Meta(h.Server, c, d.Name), adminpage.Nav(c, adminview.SectionTheatres), v))
}

// theatreForm is the edit form of t as it is.
func theatreForm(t catalog.AdminTheatre) adminview.TheatreForm {
	r := admin.Record(t)
	return adminview.TheatreForm{Name: r.Name, Address: r.Address, TimeZone: r.TimeZone, Currency: r.Currency,
		CleaningBuffer: strconv.Itoa(r.CleaningBufferMinutes), Tiers: tierRows(r.RefundTiers), Settings: r.TheatreSettings}
}

// tierRows are a policy's tiers as form rows, with empty rows to add more.
func tierRows(tiers []admin.TierRecord) []adminview.TierRow {
	rows := make([]adminview.TierRow, 0, maxTierRows)
	for _, t := range tiers {
		rows = append(rows, adminview.TierRow{Hours: strconv.Itoa(t.HoursBefore), Percent: strconv.Itoa(t.Percent)})
	}
	for i := 0; i < 2 && len(rows) < maxTierRows; i++ {
		rows = append(rows, adminview.TierRow{})
	}
	return rows
}

// UpdateTheatreSubmit saves the theatre's settings: POST
// /admin/theatres/{id}. Only what changed is sent to the use case, so a
// form saved as it was changes nothing and writes no audit entry.
func (h *Handlers) UpdateTheatreSubmit(c echo.Context) error {
	d, err := h.placeTheatre(c)
	if err != nil {
		return err
	}
	f := theatreFormOf(c)
	in, fields := theatreInput(f, false)
	addFieldProblems(fields, admin.CheckTheatre(in, false))
	if len(fields) == 0 {
		in = changesOnly(in, admin.Record(d.AdminTheatre))
		_, err := h.Admin.UpdateTheatre(c.Request().Context(), web.Actor(c), d.ID, in)
		if err == nil {
			return web.SeeOther(c, fmt.Sprintf("/admin/theatres/%d?done=saved", d.ID))
		}
		if fields = placeFieldProblem(err); fields == nil {
			return problem.Lookup("theatre", err)
		}
	}
	f.Fields, f.Error = fields, placesFixThese(len(fields))
	return h.theatrePage(c, http.StatusUnprocessableEntity, d, f, adminview.GrantForm{})
}

// changesOnly leaves out of in what is as the theatre has it.
func changesOnly(in admin.TheatreInput, was admin.TheatreRecord) admin.TheatreInput {
	same := func(p *string, v string) bool { return p != nil && strings.TrimSpace(*p) == v }
	if same(in.Name, was.Name) {
		in.Name = nil
	}
	if same(in.Address, was.Address) {
		in.Address = nil
	}
	if same(in.TimeZone, was.TimeZone) {
		in.TimeZone = nil
	}
	if same(in.Currency, was.Currency) {
		in.Currency = nil
	}
	if in.CleaningBufferMinutes != nil && *in.CleaningBufferMinutes == was.CleaningBufferMinutes {
		in.CleaningBufferMinutes = nil
	}
	if in.RefundTiers != nil && sameTiers(*in.RefundTiers, was.RefundTiers) {
		in.RefundTiers = nil
	}
	in.Settings = was.Changes(was.With(in.Settings))
	return in
}

func sameTiers(a, b []admin.TierRecord) bool {
	order := func(x, y admin.TierRecord) int { return y.HoursBefore - x.HoursBefore }
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, order)
	slices.SortFunc(b, order)
	return slices.Equal(a, b)
}

// theatreFormOf is the theatre form as sent.
func theatreFormOf(c echo.Context) adminview.TheatreForm {
	f := adminview.TheatreForm{Name: c.FormValue("name"), Address: c.FormValue("address"),
		TimeZone: strings.TrimSpace(c.FormValue("timezone")), Currency: strings.ToUpper(strings.TrimSpace(c.FormValue("currency"))),
		CleaningBuffer: strings.TrimSpace(c.FormValue("cleaning_buffer_minutes"))}
	form, _ := c.FormParams()
	f.Settings, f.SettingsFields = settingsOf(form)
	hours, percents := form["tier_hours"], form["tier_percent"]
	for i := 0; i < max(len(hours), len(percents)) && i < maxTierRows; i++ {
		var row adminview.TierRow
		if i < len(hours) {
			row.Hours = strings.TrimSpace(hours[i])
		}
		if i < len(percents) {
			row.Percent = strings.TrimSpace(percents[i])
		}
		f.Tiers = append(f.Tiers, row)
	}
	if len(f.Tiers) == 0 {
		f.Tiers = tierRows(nil)
	}
	return f
}

// theatreInput reads the form's numbers; what it cannot read is named at
// its field. For a new theatre an empty cleaning time and no tiers leave
// the defaults; a change always sends both.
func theatreInput(f adminview.TheatreForm, create bool) (admin.TheatreInput, map[string]string) {
	fields := map[string]string{}
	maps.Copy(fields, f.SettingsFields)
	in := admin.TheatreInput{Name: &f.Name, Address: &f.Address, TimeZone: &f.TimeZone, Settings: f.Settings.Patch()}
	if f.Currency != "" {
		in.Currency = &f.Currency // left empty: INR for a new theatre, unchanged for one that has one
	}
	if f.CleaningBuffer != "" || !create {
		minutes, err := strconv.Atoi(f.CleaningBuffer)
		if err != nil {
			fields["cleaning_buffer_minutes"] = fmt.Sprintf("Give the cleaning time between shows in whole minutes, from 0 to %d.",
				int(admin.MaxCleaningBuffer/time.Minute))
		}
		in.CleaningBufferMinutes = &minutes
	}
	tiers := []admin.TierRecord{}
	for i, row := range f.Tiers {
		if row.Hours == "" && row.Percent == "" {
			continue
		}
		hours, errH := strconv.Atoi(row.Hours)
		percent, errP := strconv.Atoi(row.Percent)
		if errH != nil || errP != nil {
			fields["refund_tiers"] = fmt.Sprintf("Tier %d: give both the hours before the show and the percent refunded, as whole numbers.", i+1)
			break
		}
		tiers = append(tiers, admin.TierRecord{HoursBefore: hours, Percent: percent})
	}
	if len(tiers) > 0 || !create {
		in.RefundTiers = &tiers
	}
	return in, fields
}

// placeFieldProblem is a use case's complaints about fields, or nil for
// any other error.
func placeFieldProblem(err error) map[string]string {
	if len(catalog.FieldErrors(err)) == 0 {
		return nil
	}
	fields := map[string]string{}
	addFieldProblems(fields, err)
	return fields
}

// addFieldProblems puts each field the use case refuses in err at its
// field, after what the form itself could not read there (which says more
// of what was typed).
func addFieldProblems(fields map[string]string, err error) {
	for _, fe := range catalog.FieldErrors(err) {
		if _, said := fields[fe.Field]; !said {
			fields[fe.Field] = problem.Sentence(fe.Message)
		}
	}
}

// placesFixThese heads the list of a form's mistakes.
func placesFixThese(n int) string {
	if n == 1 {
		return "Please fix this to continue:"
	}
	return fmt.Sprintf("Please fix these %d things to continue:", n)
}

// GrantSubmit gives an account access to the theatre: POST
// /admin/theatres/{id}/admins (platform admins only).
func (h *Handlers) GrantSubmit(c echo.Context) error {
	if err := adminpage.PlatformOnly(c); err != nil {
		return err
	}
	d, err := h.placeTheatre(c)
	if err != nil {
		return err
	}
	g := adminview.GrantForm{Email: strings.TrimSpace(c.FormValue("email"))}
	u, err := h.Admin.GrantTheatre(c.Request().Context(), web.Actor(c), d.ID, g.Email)
	if err == nil {
		h.UserChanged(u.ID) // the header links the admin pages
		return web.SeeOther(c, fmt.Sprintf("/admin/theatres/%d?done=granted#admins-title", d.ID))
	}
	switch fields := placeFieldProblem(err); {
	case errors.Is(err, auth.ErrUnknownAccount):
		g.Error = "No account has this email. Ask the person to sign up first."
	case fields != nil:
		g.Error = "Enter the email address of an account."
	default:
		return problem.Lookup("theatre", err)
	}
	return h.theatrePage(c, http.StatusUnprocessableEntity, d, theatreForm(d.AdminTheatre), g)
}

// RevokeSubmit ends an account's access to the theatre: POST
// /admin/theatres/{id}/admins/{user_id}/revoke (platform admins only).
func (h *Handlers) RevokeSubmit(c echo.Context) error {
	if err := adminpage.PlatformOnly(c); err != nil {
		return err
	}
	id, err := adminpage.PathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	if err := h.Admin.RevokeTheatre(c.Request().Context(), web.Actor(c), id, c.Param("user_id")); err != nil {
		return problem.Lookup("theatre or account", err)
	}
	h.UserChanged(c.Param("user_id"))
	return web.SeeOther(c, fmt.Sprintf("/admin/theatres/%d?done=revoked#admins-title", id))
}
