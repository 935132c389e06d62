package admin_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// layoutBrowser is a page browser signed in as an account of role.
func layoutBrowser(t *testing.T, e *webtest.Env, role auth.Role, theatres ...int64) *webtest.Browser {
	t.Helper()
	c := e.Admin(t, role, theatres...)
	return &webtest.Browser{E: e, Jar: c.HTTP.Jar, HTTP: &http.Client{
		Transport: c.HTTP.Transport, Jar: c.HTTP.Jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// editorSeat is a seat as the editor's form sends it.
type editorSeat struct {
	ID         string `json:"id"`
	Row        string `json:"row"`
	Number     int    `json:"number"`
	Category   string `json:"category"`
	GridRow    int    `json:"grid_row"`
	GridCol    int    `json:"grid_col"`
	Accessible bool   `json:"accessible"`
	Companion  bool   `json:"companion"`
}

func envScreen(t *testing.T, e *webtest.Env) int64 {
	return e.Count(t, `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
}

// servedLayout is the layout an editor page carries in its seats field.
func servedLayout(t *testing.T, p *webtest.HTMLDoc) []editorSeat {
	t.Helper()
	var seats []editorSeat
	if err := json.Unmarshal([]byte(p.Attr(`input[name="seats"]`, "value")), &seats); err != nil {
		t.Fatalf("seats field: %v", err)
	}
	return seats
}

func layoutJSON(t *testing.T, seats []editorSeat) string {
	t.Helper()
	b, err := json.Marshal(seats)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func storedSeats(t *testing.T, e *webtest.Env, screenID int64) []catalog.SeatSpec {
	t.Helper()
	sc, err := e.Store.Screen(t.Context(), screenID)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Seats
}

// createdScreen is the screen a creation redirected to the editor of.
func createdScreen(t *testing.T, p *webtest.HTMLDoc) int64 {
	t.Helper()
	id, err := strconv.ParseInt(strings.TrimPrefix(p.Header.Get("Location"), "/admin/screens/"), 10, 64)
	if err != nil {
		t.Fatalf("redirect to %q", p.Header.Get("Location"))
	}
	return id
}

func TestLayoutPagesAccess(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	screenID := envScreen(t, e)
	other := pgtest.NewVenue(t, e.Store)
	pages := []string{
		fmt.Sprintf("/admin/theatres/%d/screens/new", e.Venue.TheatreID),
		fmt.Sprintf("/admin/screens/%d", screenID),
	}
	t.Run("a guest is sent to log in", func(t *testing.T) {
		b := e.Browser()
		for _, path := range pages {
			p := b.Get(t, path)
			if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/login") {
				t.Errorf("%s: %d to %q", path, p.Status, p.Header.Get("Location"))
			}
		}
	})
	t.Run("a moviegoer gets 403", func(t *testing.T) {
		b := e.PageUser(t)
		for _, path := range pages {
			webtest.WantFriendly(t, b.Get(t, path), http.StatusForbidden)
		}
		webtest.WantFriendly(t, b.Submit(t, fmt.Sprintf("/admin/screens/%d/seats", screenID), url.Values{"seats": {"[]"}}), http.StatusForbidden)
	})
	t.Run("another theatre's admin gets 404", func(t *testing.T) {
		b := layoutBrowser(t, e, auth.RoleTheatreAdmin, other.TheatreID)
		for _, path := range pages {
			webtest.WantFriendly(t, b.Get(t, path), http.StatusNotFound)
		}
		before := len(storedSeats(t, e, screenID))
		webtest.WantFriendly(t, b.Submit(t, fmt.Sprintf("/admin/screens/%d/seats", screenID), url.Values{"seats": {"[]"}}), http.StatusNotFound)
		webtest.WantFriendly(t, b.HtmxPost(t, fmt.Sprintf("/admin/screens/%d/preview", screenID), url.Values{"seats": {"[]"}}), http.StatusNotFound)
		webtest.WantFriendly(t, b.Submit(t, fmt.Sprintf("/admin/theatres/%d/screens", e.Venue.TheatreID),
			url.Values{"name": {"Sneaky"}, "template": {"small-8x14"}}), http.StatusNotFound)
		if after := len(storedSeats(t, e, screenID)); after != before {
			t.Fatalf("seats %d -> %d", before, after)
		}
		webtest.WantFriendly(t, b.Get(t, "/admin/screens/99999999"), http.StatusNotFound)
	})
}

func TestNewScreenFromTemplate(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	newPath := fmt.Sprintf("/admin/theatres/%d/screens/new", e.Venue.TheatreID)
	postPath := fmt.Sprintf("/admin/theatres/%d/screens", e.Venue.TheatreID)
	for _, role := range []auth.Role{auth.RolePlatformAdmin, auth.RoleTheatreAdmin} {
		b := layoutBrowser(t, e, role, e.Venue.TheatreID)
		p := b.Get(t, newPath)
		webtest.Want200(t, p)
		if !p.Has(`label[for="name"]`) || !p.Has(`input[name="template"][value="aisles-12x20"][checked]`) ||
			!p.Has(`input[name="template"][value="small-8x14"]`) || !p.Has(`input[name="template"][value="grid"]`) ||
			!strings.Contains(p.Text("fieldset"), "12 rows of 20") || p.Text("nav[aria-label=Admin] [aria-current=page]") != "Theatres" {
			t.Fatalf("%s: new screen page: %s", role, p)
		}
		// The way back ends in this page, not in a separator.
		if got := strings.Join(strings.Fields(p.Text("[data-breadcrumb]")), " "); got != "Theatres / Test Cinema / New screen" ||
			p.Text(`[data-breadcrumb] [aria-current="page"]`) != "New screen" {
			t.Fatalf("%s: breadcrumb %q", role, got)
		}
	}
	b := layoutBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	b.Get(t, newPath)

	t.Run("12 rows of 20 with aisles", func(t *testing.T) {
		p := b.Submit(t, postPath, url.Values{"name": {"Screen Aisles"}, "template": {"aisles-12x20"}})
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/admin/screens/") {
			t.Fatalf("create: %d to %q: %s", p.Status, p.Header.Get("Location"), p)
		}
		id := createdScreen(t, p)
		seats := storedSeats(t, e, id)
		if len(seats) != 240 {
			t.Fatalf("%d seats", len(seats))
		}
		premium, cols := 0, map[int]bool{}
		for _, st := range seats {
			cols[st.GridCol] = true
			if st.Category == "PREMIUM" {
				premium++
			}
		}
		if premium != 60 || len(cols) != 20 || cols[6] || cols[15] || !cols[21] {
			t.Fatalf("premium %d, columns %v", premium, cols)
		}
		ed := b.Get(t, p.Header.Get("Location"))
		webtest.Want200(t, ed)
		if n := ed.Doc.Find(`[role=gridcell]`).Length(); n != 12*22 {
			t.Fatalf("%d cells", n)
		}
		if ed.Attr(`[role=row][data-r="0"] [role=gridcell][data-c="6"]`, "aria-label") != "Row A, gap" ||
			ed.Attr(`[role=row][data-r="0"] [role=gridcell][data-c="7"]`, "aria-label") != "Row A, seat 7, Standard" ||
			ed.Attr(`[role=row][data-r="11"] [role=gridcell][data-c="21"]`, "aria-label") != "Row L, seat 20, Premium" {
			t.Fatalf("cell names: %q %q", ed.Attr(`[role=row][data-r="0"] [role=gridcell][data-c="6"]`, "aria-label"),
				ed.Attr(`[role=row][data-r="0"] [role=gridcell][data-c="7"]`, "aria-label"))
		}
	})
	t.Run("a plain grid", func(t *testing.T) {
		p := b.Submit(t, postPath, url.Values{"name": {"Screen Grid"}, "template": {"grid"}, "rows": {"3"}, "seats_per_row": {"4"}})
		if p.Status != http.StatusSeeOther {
			t.Fatalf("create: %s", p)
		}
		id := createdScreen(t, p)
		if seats := storedSeats(t, e, id); len(seats) != 12 || seats[11].ID != "C4" {
			t.Fatalf("seats %+v", seats)
		}
	})
	t.Run("bad input is a 422 naming the fields, and creates nothing", func(t *testing.T) {
		before := e.Count(t, `SELECT count(*) FROM screens`)
		p := b.Submit(t, postPath, url.Values{"name": {"  "}, "template": {"grid"}, "rows": {"0"}, "seats_per_row": {"4"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !p.Has("#name-error") || !p.Has("#rows-error") || p.Attr("#name", "aria-describedby") != "name-error" ||
			p.Attr("#rows", "aria-invalid") != "true" || !p.Has(`[role=alert]`) || p.Attr(`input[name="template"][checked]`, "value") != "grid" {
			t.Fatalf("errors: %s", p.Body)
		}
		p = b.Submit(t, postPath, url.Values{"name": {"Screen Aisles"}, "template": {"small-8x14"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !p.Has("#name-error") {
			t.Fatalf("a taken name: %s", p)
		}
		p = b.Submit(t, postPath, url.Values{"name": {"Nope"}, "template": {"nope"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !p.Has("#template-error") {
			t.Fatalf("no template: %s", p)
		}
		if after := e.Count(t, `SELECT count(*) FROM screens`); after != before {
			t.Fatalf("screens %d -> %d", before, after)
		}
	})
}

func TestScreenEditor(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	screenID := envScreen(t, e)
	path := fmt.Sprintf("/admin/screens/%d", screenID)
	for _, role := range []auth.Role{auth.RolePlatformAdmin, auth.RoleTheatreAdmin} {
		b := layoutBrowser(t, e, role, e.Venue.TheatreID)
		p := b.Get(t, path)
		webtest.Want200(t, p)
		if n := p.Doc.Find(`[role=grid] [role=row]`).Length(); n != 10 {
			t.Fatalf("%s: %d rows", role, n)
		}
		if n := p.Doc.Find(`[role=grid] [role=gridcell]`).Length(); n != 100 {
			t.Fatalf("%s: %d cells", role, n)
		}
		if p.Doc.Find(`[role=gridcell][tabindex="0"]`).Length() != 1 ||
			p.Attr(`[role=row][data-r="0"] [role=gridcell][data-c="0"]`, "aria-label") != "Row A, seat 1, Standard" ||
			p.Attr(`[role=row][data-r="9"] [role=gridcell][data-c="9"]`, "aria-label") != "Row J, seat 10, Premium" ||
			p.Text(`[role=row][data-r="2"] [role=rowheader]`) != "C" ||
			!p.Has(`script[src^="/static/js/layout-editor.js"]`) || !p.Has(`noscript`) ||
			!p.Has(`input[name="brush"][value="seat:PREMIUM"]`) || !p.Has(`input[name="brush"][value="gap"]`) ||
			!p.Has(`[data-editor-status][aria-live=polite]`) || !p.Has(`button[hx-post="/admin/screens/`+fmt.Sprint(screenID)+`/preview"]`) {
			t.Fatalf("%s: editor: %s", role, p.Body)
		}
		if seats := servedLayout(t, p); len(seats) != 100 || seats[0].ID != "A1" || seats[99].Category != "PREMIUM" {
			t.Fatalf("%s: seats field %+v", role, seats)
		}
	}
}

func TestSaveLayout(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	screenID := envScreen(t, e)
	path := fmt.Sprintf("/admin/screens/%d", screenID)
	b := layoutBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	original := servedLayout(t, b.Get(t, path))

	t.Run("a drawn layout is saved", func(t *testing.T) {
		seats := append([]editorSeat(nil), original...)
		seats[2].Category = "PREMIUM"
		seats = append(seats, editorSeat{ID: "K1", Row: "K", Number: 1, Category: "STANDARD", GridRow: 11, GridCol: 0, Accessible: true})
		p := b.Submit(t, path+"/seats", url.Values{"seats": {layoutJSON(t, seats)}})
		webtest.WantSeeOther(t, p, path+"?saved=1")
		stored := storedSeats(t, e, screenID)
		if len(stored) != 101 || stored[2].Category != "PREMIUM" || stored[100].ID != "K1" || !stored[100].Accessible {
			t.Fatalf("stored %d seats: %+v %+v", len(stored), stored[2], stored[len(stored)-1])
		}
		p = b.Get(t, path+"?saved=1")
		webtest.Want200(t, p)
		if !strings.Contains(p.Text(`#editor-notice[role=status]`), "Saved") || p.Attr(`[role=row][data-r="11"] [role=gridcell][data-c="0"]`, "aria-label") != "Row K, seat 1, Standard, wheelchair space" {
			t.Fatalf("after save: %s", p.Text("#editor-notice"))
		}
	})
	before := e.Snapshot(t)
	stored := storedSeats(t, e, screenID)
	unchanged := func(t *testing.T) {
		t.Helper()
		if after := e.Snapshot(t); after != before || fmt.Sprint(storedSeats(t, e, screenID)) != fmt.Sprint(stored) {
			t.Fatal("the layout changed")
		}
	}
	t.Run("bad JSON is a 422 and changes nothing", func(t *testing.T) {
		p := b.Submit(t, path+"/seats", url.Values{"seats": {`[{"id": "A1",`}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text(`#editor-notice[role=alert]`), "could not be read") {
			t.Fatalf("notice: %s", p.Text("#editor-notice"))
		}
		unchanged(t)
	})
	t.Run("a bad seat is a 422 naming it, with the draft marked", func(t *testing.T) {
		seats := servedLayout(t, b.Get(t, path))
		seats[7].Number = 0
		p := b.Submit(t, path+"/seats", url.Values{"seats": {layoutJSON(t, seats)}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if msg := p.Text(`#editor-notice[role=alert]`); !strings.Contains(msg, "Seat A8") || !strings.Contains(msg, "number") {
			t.Fatalf("notice: %q", msg)
		}
		if p.Attr(`[data-bad="true"]`, "data-c") != "7" || len(servedLayout(t, p)) != len(seats) {
			t.Fatalf("the draft is not shown with its bad seat")
		}
		unchanged(t)
	})
	t.Run("an empty layout is a 422", func(t *testing.T) {
		p := b.Submit(t, path+"/seats", url.Values{"seats": {"[]"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text(`#editor-notice`), "at least one seat") {
			t.Fatalf("notice: %s", p.Text("#editor-notice"))
		}
		unchanged(t)
	})
	t.Run("a category the upcoming show has no price for asks for its price", func(t *testing.T) {
		seats := servedLayout(t, b.Get(t, path))
		seats[50].Category = "RECLINER"
		p := b.Submit(t, path+"/seats", url.Values{"seats": {layoutJSON(t, seats)}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text(`#editor-notice`), "no price for Recliner") || !p.Has("#newprice-RECLINER-INR") {
			t.Fatalf("notice: %s", p.Text("#editor-notice"))
		}
		unchanged(t)
	})
	t.Run("a layout disturbing sold or held seats names them and the show", func(t *testing.T) {
		e.User(t).MustHold(t, "A1", "A2")
		before = e.Snapshot(t)
		seats := servedLayout(t, b.Get(t, path))
		seats[1].GridRow = 20 // A2 moves
		p := b.Submit(t, path+"/seats", url.Values{"seats": {layoutJSON(t, seats[1:])}})
		webtest.WantStatus(t, p, http.StatusConflict)
		msg := p.Text(`#editor-notice[role=alert]`)
		var startsAt time.Time
		if err := e.Store.Pool().QueryRow(t.Context(), `SELECT starts_at FROM shows WHERE id = $1`, e.Show).Scan(&startsAt); err != nil {
			t.Fatal(err)
		}
		kolkata, _ := time.LoadLocation("Asia/Kolkata")
		when := startsAt.In(kolkata).Format("Mon 2 Jan 2006, 15:04 MST")
		if !strings.Contains(msg, "A1 and A2 are held or sold in the show of "+when+" (The Last Algorithm)") {
			t.Fatalf("notice: %q (want %s)", msg, when)
		}
		unchanged(t)
	})
}

func TestSaveLargestLayout(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	b, id := largestScreen(t, e, "Arena")
	path := fmt.Sprintf("/admin/screens/%d", id)
	seats := servedLayout(t, b.Get(t, path))
	if len(seats) != admin.MaxSeats {
		t.Fatalf("%d seats", len(seats))
	}
	seats[0].Category = "PREMIUM"
	body := layoutJSON(t, seats)
	webtest.Want200(t, b.HtmxPost(t, path+"/preview", url.Values{"seats": {body}}))
	webtest.WantSeeOther(t, b.Submit(t, path+"/seats", url.Values{"seats": {body}}), path+"?saved=1")
	if st := storedSeats(t, e, id); len(st) != admin.MaxSeats || st[0].Category != "PREMIUM" {
		t.Fatalf("stored %d seats, A1 %s", len(st), st[0].Category)
	}
}

func TestLayoutPreview(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	screenID := envScreen(t, e)
	path := fmt.Sprintf("/admin/screens/%d/preview", screenID)
	b := layoutBrowser(t, e, auth.RolePlatformAdmin)
	seats := servedLayout(t, b.Get(t, fmt.Sprintf("/admin/screens/%d", screenID)))
	seats = append(seats[:5], seats[6:]...) // A6 goes: a gap
	seats[0].Accessible = true
	p := b.HtmxPost(t, path, url.Values{"seats": {layoutJSON(t, seats)}})
	webtest.Want200(t, p)
	if !p.Has(`[data-preview] [data-seatmap][data-selectable="false"]`) || !strings.Contains(p.Text("[data-preview] p"), "99 seats") {
		t.Fatalf("preview: %s", p)
	}
	for sel, want := range map[string]string{
		"#seat-A1": "Row A seat 1, Standard, wheelchair accessible, available",
		"#seat-J4": "Row J seat 4, Premium, available",
	} {
		if got := p.Attr(sel, "aria-label"); got != want {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	if p.Has("#seat-A6") || !strings.Contains(p.Body, `seat-gap`) {
		t.Errorf("A6 is not a gap in the preview")
	}
	seats[3].Category = "premium"
	p = b.HtmxPost(t, path, url.Values{"seats": {layoutJSON(t, seats)}})
	webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.Text("[data-preview-error]"), "Seat A4") {
		t.Fatalf("bad seat: %s", p)
	}
}

// largestScreen makes a screen of admin.MaxSeats seats, 40 rows of 50, from
// the grid template as a theatre admin of the env's theatre, and returns
// that admin's browser and the screen's id.
func largestScreen(t *testing.T, e *webtest.Env, name string) (*webtest.Browser, int64) {
	t.Helper()
	b := layoutBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	b.Get(t, "/admin")
	p := b.Submit(t, fmt.Sprintf("/admin/theatres/%d/screens", e.Venue.TheatreID),
		url.Values{"name": {name}, "template": {"grid"}, "rows": {"40"}, "seats_per_row": {"50"}})
	return b, createdScreen(t, p)
}

// The editor's best view: the default marked where it is, a cell set with
// the layout and marked there, kept by a form without the field, reset to
// the default; a bad one refused; another theatre's screen not found.
func TestSaveBestView(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	screenID := envScreen(t, e)
	path := fmt.Sprintf("/admin/screens/%d", screenID)
	b := layoutBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	stranger := layoutBrowser(t, e, auth.RoleTheatreAdmin, pgtest.NewVenue(t, e.Store).TheatreID)
	layout := layoutJSON(t, servedLayout(t, b.Get(t, path)))
	ideal := func() string {
		t.Helper()
		sc, err := e.Store.Screen(t.Context(), screenID)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(sc.Ideal)
	}
	cell := func(r, c int) string {
		return fmt.Sprintf(`[role=row][data-r="%d"] [role=gridcell][data-c="%d"]`, r, c)
	}

	t.Run("the default is marked two thirds back on the centre line", func(t *testing.T) {
		p := b.Get(t, path)
		webtest.Want200(t, p)
		// 10 rows of 10: grid row 6 (row G), between columns 5 and 6.
		if n := p.Doc.Find(`[role=gridcell][data-ideal]`).Length(); n != 2 || p.Attr(cell(6, 4), "data-ideal") != "default" || p.Attr(cell(6, 5), "data-ideal") != "default" {
			t.Fatalf("%d cells marked; G5 %q, G6 %q", n, p.Attr(cell(6, 4), "data-ideal"), p.Attr(cell(6, 5), "data-ideal"))
		}
		if got := p.Attr(cell(6, 4), "aria-label"); got != "Row G, seat 5, Standard, best view by default" {
			t.Fatalf("G5 is named %q", got)
		}
		if got := p.Text(`[data-ideal-text]`); got != "Best view: the default, two thirds of the way back on the centre line (row G, between columns 5 and 6)." {
			t.Fatalf("the editor says %q", got)
		}
		if p.Attr(`input[name="ideal"]`, "value") != "" || !p.Has(`input[name="brush"][value="ideal"]`) || !p.Has(`button[data-cmd="reset-ideal"]`) {
			t.Fatal("no best view field, brush or reset")
		}
	})
	t.Run("a cell is saved with the layout and marked", func(t *testing.T) {
		p := b.Submit(t, path+"/seats", url.Values{"seats": {layout}, "ideal": {"2,7"}})
		webtest.WantSeeOther(t, p, path+"?saved=1")
		if got := ideal(); got != "&{2 7}" {
			t.Fatalf("stored ideal %s", got)
		}
		p = b.Get(t, path)
		if n := p.Doc.Find(`[role=gridcell][data-ideal]`).Length(); n != 1 || p.Attr(cell(2, 7), "data-ideal") != "set" ||
			p.Attr(`input[name="ideal"]`, "value") != "2,7" || p.Text(`[data-ideal-text]`) != "Best view: row C, column 8, set for this screen." ||
			p.Attr(cell(2, 7), "aria-label") != "Row C, seat 8, Standard, best view" {
			t.Fatalf("after saving: %d marked, C8 %q, field %q, text %q", n, p.Attr(cell(2, 7), "data-ideal"),
				p.Attr(`input[name="ideal"]`, "value"), p.Text(`[data-ideal-text]`))
		}
	})
	t.Run("a form without the field keeps it", func(t *testing.T) {
		webtest.WantSeeOther(t, b.Submit(t, path+"/seats", url.Values{"seats": {layout}}), path+"?saved=1")
		if got := ideal(); got != "&{2 7}" {
			t.Fatalf("stored ideal %s", got)
		}
	})
	t.Run("a bad one is refused and changes nothing", func(t *testing.T) {
		for _, bad := range []string{"2;7", "ten,1", "10,0", "0,10", "-1,3"} {
			p := b.Submit(t, path+"/seats", url.Values{"seats": {layout}, "ideal": {bad}})
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			if msg := p.Text(`#editor-notice[role=alert]`); !strings.Contains(msg, "best view") {
				t.Fatalf("%q: notice %q", bad, msg)
			}
		}
		if got := ideal(); got != "&{2 7}" {
			t.Fatalf("stored ideal %s", got)
		}
	})
	t.Run("another theatre's admin gets 404 and changes nothing", func(t *testing.T) {
		webtest.WantFriendly(t, stranger.Get(t, path), http.StatusNotFound)
		webtest.WantFriendly(t, stranger.Submit(t, path+"/seats", url.Values{"seats": {layout}, "ideal": {""}}), http.StatusNotFound)
		webtest.WantFriendly(t, stranger.Submit(t, path+"/seats", url.Values{"seats": {layout}, "ideal": {"0,0"}}), http.StatusNotFound)
		if got := ideal(); got != "&{2 7}" {
			t.Fatalf("stored ideal %s", got)
		}
	})
	t.Run("an empty field resets it to the default", func(t *testing.T) {
		webtest.WantSeeOther(t, b.Submit(t, path+"/seats", url.Values{"seats": {layout}, "ideal": {""}}), path+"?saved=1")
		if got := ideal(); got != "<nil>" {
			t.Fatalf("stored ideal %s", got)
		}
		if p := b.Get(t, path); p.Attr(cell(6, 4), "data-ideal") != "default" || p.Attr(cell(2, 7), "data-ideal") != "" {
			t.Fatal("the default is not marked again")
		}
	})
}
