package places

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/seating"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Screens and the seat-layout editor.

// defaultTemplate is the layout the new-screen form starts on.
const defaultTemplate = "aisles-12x20"

// brushCategories are offered in the editor whatever the layout has.
var brushCategories = []string{"STANDARD", "PREMIUM", "RECLINER"}

// NewScreenPage is the form adding a screen to a theatre from a template.
func (h *Handlers) NewScreenPage(c echo.Context) error {
	theatreID, err := adminpage.PathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	d, err := h.Admin.Theatre(c.Request().Context(), web.Actor(c), theatreID)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	v := newScreenView(theatreID, d.Name)
	v.Template, v.Rows, v.SeatsPerRow = defaultTemplate, "10", "12"
	return web.Render(c, http.StatusOK, adminview.NewScreenPage(adminpage.Meta(h.Server, c, "Add a screen"), adminpage.Nav(c, adminview.SectionTheatres), v))
}

func newScreenView(theatreID int64, theatreName string) adminview.NewScreenView {
	v := adminview.NewScreenView{TheatreID: theatreID, TheatreName: theatreName, Fields: map[string]string{}}
	for _, t := range admin.LayoutTemplates() {
		v.Templates = append(v.Templates, adminview.TemplateOption{Key: t.Key, Name: t.Name, Description: t.Description, Sized: t.Sized})
	}
	return v
}

// CreateScreenSubmit creates a screen from the chosen template and opens
// its editor.
func (h *Handlers) CreateScreenSubmit(c echo.Context) error {
	ctx := c.Request().Context()
	theatreID, err := adminpage.PathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	d, err := h.Admin.Theatre(ctx, web.Actor(c), theatreID)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	v := newScreenView(theatreID, d.Name)
	v.Name, v.Template = c.FormValue("name"), c.FormValue("template")
	v.Rows, v.SeatsPerRow = strings.TrimSpace(c.FormValue("rows")), strings.TrimSpace(c.FormValue("seats_per_row"))
	rows, _ := strconv.Atoi(v.Rows)
	perRow, _ := strconv.Atoi(v.SeatsPerRow)
	seats, err := admin.TemplateSeats(v.Template, rows, perRow)
	var bad *catalog.FieldError
	switch {
	case errors.As(err, &bad):
		v.Fields[bad.Field] = problem.Sentence(bad.Message)
		if strings.TrimSpace(v.Name) == "" {
			v.Fields["name"] = "A screen needs a name."
		}
	case err != nil:
		return err
	default:
		id, err := h.Admin.CreateScreen(ctx, web.Actor(c), theatreID, strings.TrimSpace(v.Name), seats, nil)
		if !errors.As(err, &bad) {
			if err != nil {
				return problem.Lookup("theatre", err)
			}
			return web.SeeOther(c, "/admin/screens/"+strconv.FormatInt(id, 10))
		}
		field := bad.Field
		if field != "name" {
			field = "template"
		}
		v.Fields[field] = problem.Sentence(bad.Message)
	}
	v.Error = "The screen was not created. Please fix:"
	return web.Render(c, http.StatusUnprocessableEntity, adminview.NewScreenPage(adminpage.Meta(h.Server, c, "Add a screen"), adminpage.Nav(c, adminview.SectionTheatres), v))
}

// ScreenPage is the seat-layout editor of a screen.
func (h *Handlers) ScreenPage(c echo.Context) error {
	screenID, err := adminpage.PathID(c, "screen_id")
	if err != nil {
		return problem.NotFound("screen")
	}
	v, err := h.editorView(c, screenID, nil, catalog.IdealChange{})
	if err != nil {
		return err
	}
	switch {
	case c.QueryParam("saved") != "":
		v.Notice = &adminview.EditorNotice{Kind: "success", Title: "Saved.",
			Text: fmt.Sprintf("The layout has %d seats; upcoming shows have it too.", v.Seats)}
		if n, err := strconv.Atoi(c.QueryParam("priced")); err == nil && n > 0 {
			v.Notice.Text += fmt.Sprintf(" %s now %s a price for the new seat categories.", format.Plural(n, "upcoming show"),
				map[bool]string{true: "has", false: "have"}[n == 1])
		}
	case c.QueryParam("renamed") != "":
		v.Notice = &adminview.EditorNotice{Kind: "success", Title: "Renamed.", Text: "The screen is called " + v.Name + " now."}
	case c.QueryParam("retired") != "":
		v.Notice = &adminview.EditorNotice{Kind: "success", Title: "Retired.",
			Text: "The screen takes no new shows and is no longer offered for scheduling. Its past shows and sales are kept."}
	case c.QueryParam("unretired") != "":
		v.Notice = &adminview.EditorNotice{Kind: "success", Title: "Back in use.", Text: "The screen is offered for scheduling again."}
	}
	return h.renderEditor(c, http.StatusOK, v)
}

// RenameScreenSubmit renames the screen: POST /admin/screens/{id}/name.
func (h *Handlers) RenameScreenSubmit(c echo.Context) error {
	screenID, err := adminpage.PathID(c, "screen_id")
	if err != nil {
		return problem.NotFound("screen")
	}
	name := c.FormValue("name")
	_, err = h.Admin.UpdateScreen(c.Request().Context(), web.Actor(c), screenID, catalog.ScreenPatch{Name: &name})
	var bad *catalog.FieldError
	switch {
	case err == nil:
		return web.SeeOther(c, fmt.Sprintf("/admin/screens/%d?renamed=1", screenID))
	case !errors.As(err, &bad):
		return problem.Lookup("screen", err)
	}
	v, err := h.editorView(c, screenID, nil, catalog.IdealChange{})
	if err != nil {
		return err
	}
	v.Rename = adminview.RenameForm{Name: name, Error: problem.Sentence(bad.Message)}
	return h.renderEditor(c, http.StatusUnprocessableEntity, v)
}

// RetireScreenSubmit retires the screen, unless shows of it are still to
// come (they are listed): POST /admin/screens/{id}/retire.
func (h *Handlers) RetireScreenSubmit(c echo.Context) error {
	return h.setRetired(c, true)
}

// UnretireScreenSubmit puts the screen back in use: POST
// /admin/screens/{id}/unretire.
func (h *Handlers) UnretireScreenSubmit(c echo.Context) error {
	return h.setRetired(c, false)
}

// maxListedShows is how many shows a refused retirement lists.
const maxListedShows = 20

func (h *Handlers) setRetired(c echo.Context, retired bool) error {
	screenID, err := adminpage.PathID(c, "screen_id")
	if err != nil {
		return problem.NotFound("screen")
	}
	_, err = h.Admin.UpdateScreen(c.Request().Context(), web.Actor(c), screenID, catalog.ScreenPatch{Retired: &retired})
	var busy *catalog.ScreenHasShowsError
	switch {
	case err == nil && retired:
		return web.SeeOther(c, fmt.Sprintf("/admin/screens/%d?retired=1", screenID))
	case err == nil:
		return web.SeeOther(c, fmt.Sprintf("/admin/screens/%d?unretired=1", screenID))
	case !errors.As(err, &busy):
		return problem.Lookup("screen", err)
	}
	v, err := h.editorView(c, screenID, nil, catalog.IdealChange{})
	if err != nil {
		return err
	}
	n := len(busy.Shows)
	v.Retire.Error = fmt.Sprintf("The screen was not retired: it has %s still to come. Cancel them, or wait until they are over, then retire it.",
		format.Plural(n, "show"))
	for i, sh := range busy.Shows {
		if i == maxListedShows {
			v.Retire.More = n - i
			break
		}
		v.Retire.Shows = append(v.Retire.Shows, adminview.ShowLink{
			Name: format.Date(sh.StartsAt, sh.TimeZone) + ", " + format.Clock(sh.StartsAt, sh.TimeZone) + " (" + sh.MovieTitle + ")",
			Href: fmt.Sprintf("/admin/shows/%d", sh.ID),
		})
	}
	return h.renderEditor(c, http.StatusConflict, v)
}

func (h *Handlers) renderEditor(c echo.Context, status int, v adminview.ScreenEditorView) error {
	return web.Render(c, status, adminview.ScreenEditorPage(adminpage.Meta(h.Server, c, "Seat layout: "+v.Name), adminpage.Nav(c, adminview.SectionTheatres), v))
}

// editorView is the editor of a screen, showing draft and the best view
// ideal sets instead of the saved layout when draft is not nil.
func (h *Handlers) editorView(c echo.Context, screenID int64, draft []catalog.SeatSpec, ideal catalog.IdealChange) (adminview.ScreenEditorView, error) {
	ctx := c.Request().Context()
	sc, err := h.Admin.Screen(ctx, web.Actor(c), screenID)
	if err != nil {
		return adminview.ScreenEditorView{}, problem.Lookup("screen", err)
	}
	d, err := h.Admin.Theatre(ctx, web.Actor(c), sc.TheatreID)
	if err != nil {
		return adminview.ScreenEditorView{}, problem.Lookup("screen", err)
	}
	seats, best := sc.Seats, sc.Ideal
	if drawable(draft) {
		seats = draft
		if ideal.Set {
			best = ideal.At
		}
	} else {
		draft = nil
	}
	v := editorGrid(seats, best)
	v.ScreenID, v.Name, v.TheatreID, v.TheatreName, v.Draft = sc.ID, sc.Name, sc.TheatreID, d.Name, draft != nil
	v.Rename.Name = sc.Name
	if sc.RetiredAt != nil {
		v.Retired = format.Date(*sc.RetiredAt, d.TimeZone)
	}
	return v, nil
}

// drawable reports whether a draft can be shown in the editor's grid: a
// refused draft placing a seat far off would make a grid too big for a
// page, so it gets no bigger grid than a layout may have.
func drawable(draft []catalog.SeatSpec) bool {
	if len(draft) == 0 {
		return false
	}
	rows, cols := 0, 0
	for _, st := range draft {
		if st.GridRow < 0 || st.GridCol < 0 || st.GridRow >= admin.MaxGridCells || st.GridCol >= admin.MaxGridCells {
			return false
		}
		rows, cols = max(rows, st.GridRow+1), max(cols, st.GridCol+1)
	}
	return rows*cols <= admin.MaxGridCells
}

// editorGrid lays seats out in the editor's grid, from grid row and column
// 0 to the last ones used; a cell without a seat is a gap. ideal is the
// screen's best view (nil: the default), marked on its cell.
func editorGrid(seats []catalog.SeatSpec, ideal *catalog.GridPoint) adminview.ScreenEditorView {
	rows, cols := 1, 1
	for _, st := range seats {
		rows, cols = max(rows, st.GridRow+1), max(cols, st.GridCol+1)
	}
	v := adminview.ScreenEditorView{Rows: make([]adminview.EditorRow, rows), Cols: cols, Seats: len(seats)}
	for r := range v.Rows {
		v.Rows[r].Cells = make([]adminview.EditorCell, cols)
		for c := range v.Rows[r].Cells {
			v.Rows[r].Cells[c].Kind = "gap"
		}
	}
	cats := slices.Clone(brushCategories)
	for _, st := range seats {
		if st.GridRow < 0 || st.GridCol < 0 {
			continue
		}
		row := &v.Rows[st.GridRow]
		if row.Label == "" {
			row.Label = st.Row
		}
		kind := "seat"
		switch {
		case st.Accessible:
			kind = "accessible"
		case st.Companion:
			kind = "companion"
		}
		row.Cells[st.GridCol] = adminview.EditorCell{Kind: kind, Category: st.Category, Number: st.Number}
		if !slices.Contains(cats, st.Category) {
			cats = append(cats, st.Category)
		}
	}
	markIdeal(&v, seats, ideal)
	for r := range v.Rows {
		for c := range v.Rows[r].Cells {
			v.Rows[r].Cells[c].Label = cellLabel(v.Rows[r].Label, v.Rows[r].Cells[c])
		}
	}
	v.Categories = cats
	v.SeatsJSON = seatsJSON(seats)
	return v
}

// markIdeal marks the best view in the editor's grid and says where it
// is: the cell ideal names, or the default's cells (two, when the centre
// line runs between columns). static/js/layout-editor.js marks and says it
// the same way.
func markIdeal(v *adminview.ScreenEditorView, seats []catalog.SeatSpec, ideal *catalog.GridPoint) {
	inGrid := func(r, c int) bool { return r >= 0 && c >= 0 && r < len(v.Rows) && c < v.Cols }
	if ideal != nil && inGrid(ideal.Row, ideal.Col) {
		v.Rows[ideal.Row].Cells[ideal.Col].Ideal = "set"
		v.IdealValue = strconv.Itoa(ideal.Row) + "," + strconv.Itoa(ideal.Col)
		v.IdealText = "Best view: " + gridRowName(v, ideal.Row) + ", column " + strconv.Itoa(ideal.Col+1) + ", set for this screen."
		return
	}
	if len(seats) == 0 {
		v.IdealText = "Best view: the default, two thirds of the way back on the centre line."
		return
	}
	at := make([]seating.Seat, len(seats))
	for i, st := range seats {
		at[i] = seating.Seat{GridRow: st.GridRow, GridCol: st.GridCol}
	}
	p := seating.DefaultIdeal(at)
	r, c0, c1 := int(math.Round(p.Row)), int(math.Floor(p.Col)), int(math.Ceil(p.Col))
	cols := "column " + strconv.Itoa(c0+1)
	if c1 != c0 {
		cols = "between columns " + strconv.Itoa(c0+1) + " and " + strconv.Itoa(c1+1)
	}
	for _, c := range []int{c0, c1} {
		if inGrid(r, c) {
			v.Rows[r].Cells[c].Ideal = "default"
		}
	}
	v.IdealText = "Best view: the default, two thirds of the way back on the centre line (" + gridRowName(v, r) + ", " + cols + ")."
}

// gridRowName names grid row r as the editor does: "row F", or "grid row
// 3" for a row without seats.
func gridRowName(v *adminview.ScreenEditorView, r int) string {
	if r >= 0 && r < len(v.Rows) && v.Rows[r].Label != "" {
		return "row " + v.Rows[r].Label
	}
	return "grid row " + strconv.Itoa(r+1)
}

// cellLabel is a cell's accessible name: "Row C, seat 7, Premium", "Row C,
// gap". static/js/layout-editor.js names cells the same way.
func cellLabel(row string, cell adminview.EditorCell) string {
	prefix := "Row " + row + ", "
	if row == "" {
		prefix = ""
	}
	if cell.Kind == "gap" {
		if prefix == "" {
			return "Gap" + idealWords(cell.Ideal)
		}
		return prefix + "gap" + idealWords(cell.Ideal)
	}
	label := prefix + "seat " + strconv.Itoa(cell.Number) + ", " + format.CategoryName(cell.Category)
	switch cell.Kind {
	case "accessible":
		label += ", wheelchair space"
	case "companion":
		label += ", companion seat"
	}
	return label + idealWords(cell.Ideal)
}

// idealWords end a cell's accessible name when the best view is there.
func idealWords(ideal string) string {
	switch ideal {
	case "set":
		return ", best view"
	case "default":
		return ", best view by default"
	}
	return ""
}

func seatsJSON(specs []catalog.SeatSpec) string {
	b, _ := json.Marshal(specs)
	return string(b)
}

// parseLayoutJSON reads the form's seats field, the layout as JSON.
func parseLayoutJSON(c echo.Context) ([]catalog.SeatSpec, error) {
	raw := c.FormValue("seats")
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	var specs []catalog.SeatSpec
	if err := dec.Decode(&specs); err != nil || dec.More() {
		return nil, &catalog.FieldError{Field: "seats", Message: "The layout sent could not be read as a list of seats. Reload the page and try again."}
	}
	return specs, nil
}

// parseIdeal reads the form's ideal field, the best view drawn: "" for
// the default, "row,column" for a cell. A form without the field leaves
// the screen's best view as it is.
func parseIdeal(c echo.Context) (catalog.IdealChange, error) {
	form, _ := c.FormParams() // a form that cannot be read has no layout either: parseLayoutJSON says so
	if form["ideal"] == nil {
		return catalog.IdealChange{}, nil
	}
	raw := strings.TrimSpace(form.Get("ideal"))
	if raw == "" {
		return catalog.IdealChange{Set: true}, nil
	}
	r, col, ok := strings.Cut(raw, ",")
	row, rerr := strconv.Atoi(r)
	column, cerr := strconv.Atoi(col)
	if !ok || rerr != nil || cerr != nil {
		return catalog.IdealChange{}, &catalog.FieldError{Field: "ideal", Message: "The best view sent could not be read. Reload the page and try again."}
	}
	return catalog.IdealChange{Set: true, At: &catalog.GridPoint{Row: row, Col: column}}, nil
}

// SaveLayoutSubmit replaces the screen's layout and its best view with the
// ones drawn. A refusal shows the draft again with what was wrong.
func (h *Handlers) SaveLayoutSubmit(c echo.Context) error {
	ctx := c.Request().Context()
	screenID, err := adminpage.PathID(c, "screen_id")
	if err != nil {
		return problem.NotFound("screen")
	}
	seats, perr := parseLayoutJSON(c)
	ideal, ierr := parseIdeal(c)
	if perr == nil {
		perr = ierr
	}
	if perr != nil {
		// The screen must be the admin's before anything is said about it.
		v, err := h.editorView(c, screenID, nil, catalog.IdealChange{})
		if err != nil {
			return err
		}
		text := perr.Error()
		if bad := (*catalog.FieldError)(nil); errors.As(perr, &bad) {
			text = bad.Message
		}
		v.Notice = &adminview.EditorNotice{Kind: "error", Title: "The layout was not saved.", Text: text}
		return h.renderEditor(c, http.StatusUnprocessableEntity, v)
	}
	// A category upcoming shows have no price for is priced in the same
	// step: the form asks for the prices with the draft, and saves both.
	var needs []catalog.PriceNeed
	if h.Admin.CheckLayout(ctx, web.Actor(c), screenID, seats) == nil { // else the save says what is wrong
		if needs, err = h.Admin.PriceNeeds(ctx, web.Actor(c), screenID, seats); err != nil {
			return problem.Lookup("screen", err)
		}
	}
	var prices catalog.NewPrices
	if len(needs) > 0 {
		form, read, ok := newPricesForm(c, needs)
		if !ok {
			return h.askPrices(c, screenID, seats, ideal, form, http.StatusUnprocessableEntity)
		}
		prices = read
	}
	ch, err := h.Admin.ReplaceLayoutPriced(ctx, web.Actor(c), screenID, seats, ideal, prices)
	if err == nil {
		q := "?saved=1"
		if len(ch.Priced) > 0 {
			q += "&priced=" + strconv.Itoa(countShows(ch.Priced))
		}
		return web.SeeOther(c, "/admin/screens/"+strconv.FormatInt(screenID, 10)+q)
	}
	if missing := (*catalog.MissingPricesError)(nil); errors.As(err, &missing) {
		// A show was scheduled, or priced, meanwhile: ask again.
		if needs, err = h.Admin.PriceNeeds(ctx, web.Actor(c), screenID, seats); err != nil {
			return problem.Lookup("screen", err)
		}
		form, _, _ := newPricesForm(c, needs)
		form.Error = "Another show of this screen needs a price too: it was scheduled meanwhile. Nothing was saved; check the prices and save again."
		return h.askPrices(c, screenID, seats, ideal, form, http.StatusUnprocessableEntity)
	}
	var (
		badSeat  *admin.SeatError
		badField *catalog.FieldError
		inUse    *catalog.LayoutInUseError
		noPrice  *catalog.MissingPricesError
	)
	notice := &adminview.EditorNotice{Kind: "error", Title: "The layout was not saved."}
	status := http.StatusUnprocessableEntity
	switch {
	case errors.As(err, &badSeat):
		notice.Text = badSeat.Err.Message
	case errors.As(err, &badField):
		notice.Text = problem.Sentence(badField.Message)
	case errors.As(err, &inUse):
		status = http.StatusConflict
		notice.Text = h.inUseMessage(c, screenID, inUse)
	case errors.As(err, &noPrice):
		notice.Text = "Upcoming shows of this screen have no price for " + layoutAndList(noPrice.Categories) + "."
	default:
		return problem.Lookup("screen", err)
	}
	v, err := h.editorView(c, screenID, seats, ideal)
	if err != nil {
		return err
	}
	if badSeat != nil && v.Draft {
		markBad(&v, seats, badSeat.Index)
	}
	v.Notice = notice
	return h.renderEditor(c, status, v)
}

// countShows is how many shows prices were added to.
func countShows(added []catalog.PriceAdded) int {
	shows := map[int64]bool{}
	for _, p := range added {
		shows[p.ShowID] = true
	}
	return len(shows)
}

// askPrices shows the draft again with the prices it needs: the first
// time with nothing to correct yet, then with each mistake at its field.
func (h *Handlers) askPrices(c echo.Context, screenID int64, seats []catalog.SeatSpec, ideal catalog.IdealChange,
	form *adminview.NewPricesForm, status int) error {
	v, err := h.editorView(c, screenID, seats, ideal)
	if err != nil {
		return err
	}
	v.Prices = form
	var cats []string
	for _, cat := range form.Categories {
		cats = append(cats, format.CategoryName(cat.Category))
	}
	v.Notice = &adminview.EditorNotice{Kind: "error", Title: "The layout was not saved yet.",
		Text: "Upcoming shows of this screen have no price for " + layoutAndList(cats) +
			" seats. Give the prices below the grid, then save: the layout and the prices are saved together."}
	if !v.Draft {
		v.Notice.Text = "This layout is too large to draw here. Reload the page and try again."
	}
	return h.renderEditor(c, status, v)
}

// newPricesForm reads the prices of the form for needs: for each category,
// a price for every show of each currency, and any show's own, which comes
// first. ok is false when a price is missing or cannot be read; each is
// named at its field once the form was shown (prices_asked), and the form
// is only shown the first time.
func newPricesForm(c echo.Context, needs []catalog.PriceNeed) (*adminview.NewPricesForm, catalog.NewPrices, bool) {
	asked := c.FormValue("prices_asked") == "1"
	form := &adminview.NewPricesForm{}
	prices := catalog.NewPrices{Shows: map[int64]map[string]int64{}}
	ok := true
	read := func(in *adminview.PriceInput) (int64, bool) {
		in.Value = strings.TrimSpace(c.FormValue(in.ID))
		if in.Value == "" {
			return 0, false
		}
		minor, err := money.ParsePrice(in.Value, in.Currency)
		if err != nil {
			in.Error = format.CategoryName(catOf(in.ID)) + ": " + priceProblem(err)
			ok = false
			return 0, false
		}
		return minor, true
	}
	var cats []string
	for _, n := range needs {
		cats = append(cats, n.Categories...)
	}
	slices.Sort(cats)
	for _, cat := range slices.Compact(cats) {
		group := adminview.NewCategoryPrices{Category: cat}
		defaults := map[string]*adminview.PriceInput{}
		var currencies []string
		for _, n := range needs {
			if slices.Contains(n.Categories, cat) && !slices.Contains(currencies, n.Currency) {
				currencies = append(currencies, n.Currency)
			}
		}
		slices.Sort(currencies)
		group.Defaults = make([]adminview.PriceInput, len(currencies))
		defaultPrice := map[string]int64{}
		for i, cur := range currencies {
			in := &group.Defaults[i]
			*in = adminview.PriceInput{ID: adminview.NewPriceDefaultID(cat, cur), Currency: cur,
				Label: "Price of " + format.CategoryName(cat) + " for every show"}
			if len(currencies) > 1 {
				in.Label += " in " + cur
			}
			if minor, got := read(in); got {
				defaultPrice[cur] = minor
			}
			defaults[cur] = in
		}
		for _, n := range needs {
			if !slices.Contains(n.Categories, cat) {
				continue
			}
			in := adminview.PriceInput{ID: adminview.NewPriceShowID(cat, n.ID), Currency: n.Currency,
				Label: format.Date(n.StartsAt, n.TimeZone) + ", " + format.Clock(n.StartsAt, n.TimeZone) + " (" + n.MovieTitle + ")",
				Href:  fmt.Sprintf("/admin/shows/%d", n.ID)}
			minor, got := read(&in)
			if !got && in.Error == "" {
				if minor, got = defaultPrice[n.Currency]; !got {
					ok = false
					if d := defaults[n.Currency]; asked && d.Error == "" {
						d.Error = "Give a price of " + format.CategoryName(cat) + " for every show, or one for each show under it."
					}
				}
			}
			if got {
				if prices.Shows[n.ID] == nil {
					prices.Shows[n.ID] = map[string]int64{}
				}
				prices.Shows[n.ID][cat] = minor
			}
			group.Shows = append(group.Shows, in)
		}
		form.Categories = append(form.Categories, group)
	}
	if !ok && asked {
		form.Error = "Some prices are missing or cannot be read: see each field. Nothing was saved."
	}
	return form, prices, ok
}

// catOf is the category of a new price field's id.
func catOf(id string) string {
	rest := strings.TrimPrefix(id, "newprice-")
	if i := strings.Index(rest, "-"); i >= 0 {
		return rest[:i]
	}
	return rest
}

// priceProblem says why a typed price cannot be read.
func priceProblem(err error) string {
	var bad *money.PriceError
	if errors.As(err, &bad) {
		return bad.Message
	}
	return "give the price as a number, such as 250 or 250.50."
}

// markBad marks the cell of the seat at index in the editor's grid.
func markBad(v *adminview.ScreenEditorView, seats []catalog.SeatSpec, index int) {
	if index < 0 || index >= len(seats) {
		return
	}
	st := seats[index]
	if st.GridRow >= 0 && st.GridRow < len(v.Rows) && st.GridCol >= 0 && st.GridCol < v.Cols {
		v.Rows[st.GridRow].Cells[st.GridCol].Bad = true
	}
}

// inUseMessage names the seats a refused layout would disturb and the
// upcoming shows they are held or sold in: "A5 and A6 are held or sold in
// the show of Fri 12 Dec 19:00 (Inception)".
func (h *Handlers) inUseMessage(c echo.Context, screenID int64, e *catalog.LayoutInUseError) string {
	verb := " is"
	if len(e.Seats) > 1 {
		verb = " are"
	}
	shows := h.layoutShowNames(c, screenID, e.Shows)
	of := "the show of "
	if len(shows) > 1 {
		of = "the shows of "
	}
	text := layoutAndList(e.Seats) + verb + " held or sold in " + of + layoutAndList(shows) +
		". This layout would remove, move or re-categorize them: keep them as they are until those shows are over."
	return text
}

// layoutShowNames names shows by their start in the theatre's time and movie.
func (h *Handlers) layoutShowNames(c echo.Context, screenID int64, ids []int64) []string {
	names := make([]string, 0, len(ids))
	known := map[int64]string{}
	if sc, err := h.Admin.Screen(c.Request().Context(), web.Actor(c), screenID); err == nil {
		if shows, err := h.Admin.TheatreShows(c.Request().Context(), web.Actor(c), sc.TheatreID, time.Time{}, time.Time{}); err == nil {
			for _, s := range shows {
				known[s.ID] = format.When(s.StartsAt, s.TimeZone) + " (" + s.MovieTitle + ")"
			}
		}
	}
	for _, id := range ids {
		if n, ok := known[id]; ok {
			names = append(names, n)
		} else {
			names = append(names, "show "+strconv.FormatInt(id, 10))
		}
	}
	return names
}

func layoutAndList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// LayoutPreview renders the drafted layout with the moviegoer's seat map,
// every seat available (an htmx fragment).
func (h *Handlers) LayoutPreview(c echo.Context) error {
	screenID, err := adminpage.PathID(c, "screen_id")
	if err != nil {
		return problem.NotFound("screen")
	}
	seats, perr := parseLayoutJSON(c)
	if perr == nil {
		perr = h.Admin.CheckLayout(c.Request().Context(), web.Actor(c), screenID, seats)
	} else if _, err := h.Admin.Screen(c.Request().Context(), web.Actor(c), screenID); err != nil {
		return problem.Lookup("screen", err)
	}
	var badSeat *admin.SeatError
	var badField *catalog.FieldError
	switch {
	case errors.As(perr, &badSeat):
		return h.renderPreview(c, http.StatusUnprocessableEntity, components.SeatMapView{}, 0, "No preview: "+badSeat.Err.Message)
	case errors.As(perr, &badField):
		return h.renderPreview(c, http.StatusUnprocessableEntity, components.SeatMapView{}, 0, "No preview: "+problem.Sentence(badField.Message))
	case perr != nil:
		return problem.Lookup("screen", perr)
	}
	return h.renderPreview(c, http.StatusOK, previewMap(seats), len(seats), "")
}

func (h *Handlers) renderPreview(c echo.Context, status int, v components.SeatMapView, seats int, problem string) error {
	var buf bytes.Buffer
	if err := adminview.LayoutPreview(v, seats, problem).Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// previewMap is the seat map of a show of the layout, every seat available
// and no prices yet, exactly as the show page lays it out (components.SeatMapOf).
func previewMap(specs []catalog.SeatSpec) components.SeatMapView {
	seats := make([]booking.Seat, len(specs))
	for i, st := range specs {
		seats[i] = booking.Seat{ID: st.ID, Row: st.Row, Number: st.Number, GridRow: st.GridRow, GridCol: st.GridCol,
			Accessible: st.Accessible, Companion: st.Companion, Category: st.Category, Status: booking.SeatAvailable}
	}
	return components.SeatMapOf(seats, "", nil, nil)
}
