package pages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestAdminInBrowser drives the theatre admin's pages in headless Chromium
// against the real server and Postgres, in four journeys of a platform
// admin, each on a site of its own and run side by side:
//
//   - Places: the dashboard; a city, then a theatre in it, through the
//     theatres page's forms; the audit log names the theatre.
//   - Layout: a screen of the theatre from the grid template, its layout
//     redrawn with the keyboard alone and saved.
//   - Schedule: a movie added to the catalogue, then a show of it
//     scheduled on the theatre's screen three days ahead.
//   - LiveShow: a moviegoer in another browser holds a seat of the show and
//     pays while the admin's show page, never reloaded, shows the seat held
//     then booked and its counts change; the admin blocks a seat and the
//     moviegoer's open page shows it off sale, live; the sales report and
//     the payments to check.
//
// A journey that starts where another ends starts from what that one makes
// (the theatre, the screen of the layout drawn, the show), made in the
// store. axe-core finds nothing wrong with any admin page visited, on a
// desktop and, at the end of each journey, on a phone.
func TestAdminInBrowser(t *testing.T) {
	t.Parallel()
	axeSource(t) // before any work: without axe-core the test cannot judge
	browser := startChromium(t)
	logScreenshots(t)
	for _, j := range []struct {
		name    string
		journey func(*testing.T, context.Context)
	}{
		{"Places", adminPlaces},
		{"Layout", adminLayout},
		{"Schedule", adminSchedule},
		{"LiveShow", adminLiveShow},
	} {
		t.Run(j.name, func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			j.journey(t, browser)
			t.Logf("the journey took %v", time.Since(began).Round(time.Millisecond))
		})
	}
}

// adminSite is a site with a platform admin; it returns the admin's email
// (the password is pgtest.FixturePassword).
func adminSite(t *testing.T, cfg siteConfig) (*site, string) {
	t.Helper()
	s := newSite(t, cfg)
	adminID := pgtest.User(t, s.Store)
	pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = 'platform_admin' WHERE id = $1`, adminID)
	return s, scalar[string](s, `SELECT email FROM users WHERE id = $1`, adminID)
}

// adminTab is a tab at vp signed in as the admin.
func (s *site) adminTab(t *testing.T, browser context.Context, name, email string, vp viewport) *tab {
	t.Helper()
	tb := s.openTab(t, browser, name, vp)
	tb.logInWith(email, pgtest.FixturePassword)
	return tb
}

// lookLoaded checks the page the tab is on, once it has loaded (its
// scripts run): axe-core, the width, a screenshot.
func (tb *tab) lookLoaded(page string) {
	tb.t.Helper()
	tb.waitFor("the page to load", `document.readyState === "complete"`)
	tb.look(page)
}

// lookOnPhone looks at each of the admin pages at a phone's width.
func (s *site) lookOnPhone(t *testing.T, browser context.Context, name, email string, pages []string) {
	t.Helper()
	ph := s.adminTab(t, browser, name, email, phone)
	for _, p := range pages {
		ph.open(p)
		ph.waitVisible("main h1")
		if strings.HasPrefix(p, "/admin/shows/") {
			ph.waitVisible(`#seatmap[data-ready="true"]`)
		}
		ph.lookLoaded("phone " + p)
	}
}

// adminTheatre is the theatre the places journey makes, made in the store
// for the journeys that start after it: The Regent in Lyme Regis, London's
// time, with the orphan rule on as the theatre form makes it.
func (s *site) adminTheatre() int64 {
	s.t.Helper()
	ctx := context.Background()
	city, err := s.Store.CreateCity(ctx, "Lyme Regis", "lyme-regis")
	if err != nil {
		s.t.Fatal(err)
	}
	theatre, err := s.Store.CreateTheatre(ctx, catalog.Theatre{CityID: city, Name: "The Regent", Address: "Broad Street", TimeZone: "Europe/London"}, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := pgtest.SetOrphanRule(ctx, s.Store, theatre, true); err != nil {
		s.t.Fatal(err)
	}
	return theatre
}

// adminScreen is the screen the layout journey draws, made in the store in
// theatre for the journeys that start after it.
func (s *site) adminScreen(theatre int64) int64 {
	s.t.Helper()
	screen, err := s.Store.CreateScreen(context.Background(), theatre, "Screen 1", drawnLayout())
	if err != nil {
		s.t.Fatal(err)
	}
	return screen
}

// adminPlaces: the dashboard, a city and a theatre through the theatres
// page's forms, and the audit log that names the theatre.
func adminPlaces(t *testing.T, browser context.Context) {
	s, email := adminSite(t, siteConfig{})
	ad := s.adminTab(t, browser, "admin-places", email, desktop)
	ad.click(`header a[href="/admin"]`)
	ad.waitFor("the dashboard", `location.pathname === "/admin" && !!document.querySelector('nav[aria-label="Admin"] a[aria-current="page"][href="/admin"]')`)
	ad.lookLoaded("admin dashboard")

	// A city, then a theatre in it, through the theatres page's forms.
	ad.click(`nav[aria-label="Admin"] a[href="/admin/theatres"]`)
	ad.waitVisible("#new-city")
	ad.lookLoaded("admin theatres")
	ad.fill("city-name", "Lyme Regis")
	ad.fill("city-slug", "lyme-regis")
	ad.click(`#new-city button[type=submit]`)
	ad.waitFor("the new city chosen for a new theatre", `document.querySelector("#theatre-city").value === "lyme-regis"`)
	ad.fill("theatre-name", "The Regent")
	ad.fill("theatre-address", "Broad Street")
	ad.fill("theatre-timezone", "Europe/London")
	ad.click(`#new-theatre button[type=submit]`)
	ad.waitFor("the new theatre's page", `/^\/admin\/theatres\/\d+$/.test(location.pathname) && document.querySelector("h1").textContent.includes("The Regent")`)
	theatre := eval[int64](ad, `Number(location.pathname.split("/").pop())`)
	if got := scalar[string](s, `SELECT t.timezone || ' ' || c.slug FROM theatres t JOIN cities c ON c.id = t.city_id WHERE t.id = $1`, theatre); got != "Europe/London lyme-regis" {
		t.Fatalf("the theatre made is in %q, want Europe/London lyme-regis", got)
	}
	ad.lookLoaded("admin theatre")
	theatrePath := fmt.Sprintf("/admin/theatres/%d", theatre)

	ad.click(`nav[aria-label="Admin"] a[href="/admin/audit"]`)
	ad.waitFor("admin audit log", `location.pathname === "/admin/audit" && !!document.querySelector("main h1")`)
	ad.lookLoaded("admin audit log")
	wantText(t, "the audit log", ad.Text("main"), "The Regent")

	s.lookOnPhone(t, browser, "admin-places-phone", email, []string{"/admin", "/admin/theatres", theatrePath, "/admin/audit"})
}

// adminLayout: a screen of the theatre from the plain grid template, 6
// rows of 8 standard seats, its layout redrawn with the keyboard alone.
func adminLayout(t *testing.T, browser context.Context) {
	s, email := adminSite(t, siteConfig{})
	theatrePath := fmt.Sprintf("/admin/theatres/%d", s.adminTheatre())
	ad := s.adminTab(t, browser, "admin-layout", email, desktop)
	ad.open(theatrePath)
	ad.click(`a[href$="/screens/new"]`)
	ad.waitVisible(`input[name=template][value=grid]`)
	ad.lookLoaded("admin new screen")
	ad.fill("name", "Screen 1")
	ad.click(`input[name=template][value=grid]`)
	ad.fill("rows", "6")
	ad.fill("seats_per_row", "8")
	ad.click(`form[action$="/screens"] button[type=submit]`)
	ad.waitVisible(`[data-editor-tools]`)
	screen := eval[int64](ad, `Number(location.pathname.split("/").pop())`)
	editorPath := fmt.Sprintf("/admin/screens/%d", screen)
	if n := scalar[int64](s, `SELECT count(*) FROM seats WHERE screen_id = $1`, screen); n != 48 {
		t.Fatalf("the new screen has %d seats, want 6 rows of 8", n)
	}
	ad.lookLoaded("admin layout editor")
	editLayout(t, ad, s, screen)
	ad.lookLoaded("admin layout editor saved")

	s.lookOnPhone(t, browser, "admin-layout-phone", email, []string{theatrePath + "/screens/new", editorPath})
}

// adminSchedule: a movie added to the catalogue, then a show of it on the
// theatre's screen three days ahead, at the prices typed.
func adminSchedule(t *testing.T, browser context.Context) {
	s, email := adminSite(t, siteConfig{})
	theatre := s.adminTheatre()
	screen := s.adminScreen(theatre)
	theatrePath := fmt.Sprintf("/admin/theatres/%d", theatre)
	ad := s.adminTab(t, browser, "admin-schedule", email, desktop)
	ad.open("/admin")
	ad.click(`nav[aria-label="Admin"] a[href="/admin/movies"]`)
	ad.waitVisible(`form[action="/admin/movies"]`)
	ad.lookLoaded("admin movies")
	ad.fill("title", "The French Lieutenant's Woman")
	ad.fill("duration_minutes", "124")
	ad.fill("rating", "PG")
	ad.fill("language", "English")
	ad.fill("genres", "Drama, Romance")
	ad.click(`form[action="/admin/movies"] button[type=submit]`)
	ad.waitFor("the new movie's page", `/^\/admin\/movies\/\d+$/.test(location.pathname)`)
	movie := eval[int64](ad, `Number(location.pathname.split("/").pop())`)
	wantText(t, "the movie page", ad.Text("main"), "The French Lieutenant's Woman", "Movie added to the catalogue.")
	ad.lookLoaded("admin movie")

	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().In(london).AddDate(0, 0, 3).Format(time.DateOnly)
	schedulePath := theatrePath + "/schedule"
	ad.open(schedulePath)
	ad.waitVisible(`#one-screen`)
	ad.lookLoaded("admin schedule")
	priceField := func(cat string) string { return fmt.Sprintf("one-price-%d-%s", screen, cat) }
	ad.setValue("one-screen", fmt.Sprint(screen))
	ad.setValue("one-movie", fmt.Sprint(movie))
	ad.setValue("one-date", day)
	ad.setValue("one-time", "19:30")
	if got := ad.Attr("#one-currency", "value"); got != "INR" {
		t.Fatalf("the schedule form's currency is %q, want INR", got)
	}
	ad.fill(priceField("STANDARD"), "250")
	ad.fill(priceField("PREMIUM"), "400")
	ad.click(`form[data-schedule-form][action$="/schedule"] button[type=submit]`)
	ad.waitFor("the show in the schedule", `!!document.querySelector("[data-notice]") && !!document.querySelector("[data-schedule] tr[data-show]")`)
	wantText(t, "the schedule", ad.Text("[data-notice]"), "1 show scheduled.")
	show := eval[int64](ad, `Number(document.querySelector("[data-schedule] tr[data-show]").dataset.show)`)
	starts := scalar[time.Time](s, `SELECT starts_at FROM shows WHERE id = $1`, show).In(london)
	if starts.Format(time.DateOnly+" 15:04") != day+" 19:30" {
		t.Fatalf("the show starts at %v, want %s 19:30 in London", starts, day)
	}
	for cat, want := range map[string]int64{"STANDARD": 25000, "PREMIUM": 40000} {
		if got := scalar[int64](s, `SELECT price_minor FROM show_prices WHERE show_id = $1 AND category = $2`, show, cat); got != want {
			t.Fatalf("the show's %s price is %d, want %d", cat, got, want)
		}
	}

	s.lookOnPhone(t, browser, "admin-schedule-phone", email, []string{"/admin/movies", fmt.Sprintf("/admin/movies/%d", movie), schedulePath})
}

// adminLiveShow: the admin watches the show's page, never reloaded, while
// a moviegoer holds a seat and pays for it, then blocks a seat the
// moviegoer's open page shows off sale; then the sales report and the
// payments to check. The show is the schedule journey's: the drawn
// layout's 45 seats, ₹250 standard and ₹400 premium, three days ahead.
func adminLiveShow(t *testing.T, browser context.Context) {
	s, email := adminSite(t, siteConfig{live: true})
	screen := s.adminScreen(s.adminTheatre())
	ctx := context.Background()
	movie, err := s.Store.CreateMovie(ctx, catalog.Movie{Title: "The French Lieutenant's Woman", DurationMinutes: 124})
	if err != nil {
		t.Fatal(err)
	}
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().In(london).AddDate(0, 0, 3)
	starts := time.Date(day.Year(), day.Month(), day.Day(), 19, 30, 0, 0, london)
	show, err := s.Store.CreateShow(ctx, catalog.Show{MovieID: movie, ScreenID: screen, StartsAt: starts, EndsAt: starts.Add(124 * time.Minute),
		Currency: "INR", Prices: map[string]int64{"STANDARD": 25000, "PREMIUM": 40000}})
	if err != nil {
		t.Fatal(err)
	}

	// The admin watches the show's page; a moviegoer holds a seat.
	ad := s.adminTab(t, browser, "admin-show", email, desktop)
	showPath := fmt.Sprintf("/admin/shows/%d", show)
	ad.open(showPath)
	ad.waitVisible(`[data-admin-show] #seatmap[data-ready="true"]`)
	ad.waitFor("the admin's page to be live", `document.querySelector("[data-live-status]").dataset.liveStatus === "live"`)
	ad.lookLoaded("admin show")
	eval[bool](ad, `(window.adminTestMark = true)`)
	wantCounts := func(what string, available, held, booked, blocked int) {
		t.Helper()
		ad.waitForWithin(what, fmt.Sprintf(`(() => {
			const n = k => (document.querySelector('[data-count="' + k + '"]') || {}).textContent;
			return n("available") === "%d" && n("held") === "%d" && n("booked") === "%d" && n("blocked") === "%d";
		})()`, available, held, booked, blocked), 30*time.Second)
	}
	wantCounts("the first counts", 45, 0, 0, 0)

	mg := s.openTab(t, browser, "moviegoer", desktop)
	mg.signUp("Sarah Woodruff")
	mg.openShow(show)
	mg.pick("C4")
	mg.click("[data-hold-button]")
	mg.waitVisible("#checkout [data-countdown-display]")
	ad.waitFor("C4 to turn held on the admin's page", `document.querySelector("#seat-C4").dataset.status === "held"`)
	wantCounts("the counts to show the hold", 44, 1, 0, 0)
	ad.shot("show-held")

	// The moviegoer pays; the seat turns booked.
	mg.click(`#checkout form[action$="/pay"] button[type=submit]`)
	mg.waitVisible("[data-merchant]")
	if got := mg.Text("[data-amount]"); got != rupees(25000) {
		t.Fatalf("the sandbox asks for %s, want %s", got, rupees(25000))
	}
	mg.click(`#pay-form button[type=submit]`)
	mg.waitFor("the booking to be confirmed", `!!document.querySelector('#payment-status[data-state="booked"] [data-booking-link]')`)
	ad.waitFor("C4 to turn booked on the admin's page", `document.querySelector("#seat-C4").dataset.status === "booked"`)
	wantCounts("the counts to show the booking", 44, 0, 1, 0)
	// The money is the server's sum, asked for after the seats change (up
	// to a second later on a busy show): wait for it, not only the seats.
	ad.waitForWithin("the revenue to include the booking", fmt.Sprintf(
		`(document.querySelector('[data-count="revenue"]') || {textContent: ""}).textContent.includes(%s)`, jsString(rupees(25000))), 30*time.Second)
	if !eval[bool](ad, `window.adminTestMark === true`) {
		t.Fatal("the admin's show page was reloaded: its changes must arrive live")
	}
	ad.shot("show-booked")

	// The admin blocks D5 while the moviegoer looks at the show again.
	mg.openShow(show)
	mg.waitFor("the moviegoer's page to be live", `document.querySelector("[data-live-status]").dataset.liveStatus === "live"`)
	mg.wantSeat("D5", "available", "false")
	eval[bool](mg, `(window.moviegoerTestMark = true)`)
	ad.pick("D5")
	ad.waitFor("D5 picked", `document.querySelector("[data-block-seats]").value === "D5" && document.querySelector("#seat-D5").getAttribute("aria-pressed") === "true"`)
	ad.click(`[data-block-form] button[type=submit]:not([formaction])`)
	ad.waitFor("the block to be done", `!!document.querySelector('[data-notice="success"]')`)
	wantText(t, "the block notice", ad.Text("[data-notice]"), "1 seat blocked: D5")
	wantCounts("the counts to show the block", 43, 0, 1, 1)
	ad.lookLoaded("admin show with a seat blocked")
	mg.waitFor("D5 to go off sale on the moviegoer's page", `document.querySelector("#seat-D5").dataset.status === "blocked"`)
	if !eval[bool](mg, `window.moviegoerTestMark === true`) {
		t.Fatal("the moviegoer's page was reloaded: the block must arrive live")
	}
	if got := mg.Attr("#seat-D5", "aria-disabled"); got != "true" {
		t.Fatalf("the blocked seat D5 is not disabled on the moviegoer's page (aria-disabled=%q)", got)
	}
	mg.shot("seat-blocked-live")
	if got := scalar[string](s, `SELECT status FROM show_seats WHERE show_id = $1 AND seat_id = 'D5'`, show); got != "BLOCKED" {
		t.Fatalf("seat D5 is %s after the block", got)
	}

	// The reports, with the booking in them.
	for _, p := range []struct{ path, name string }{
		{"/admin/reports/sales", "admin sales"},
		{"/admin/reconciliation", "admin payments to check"},
	} {
		ad.click(fmt.Sprintf(`nav[aria-label="Admin"] a[href=%s]`, jsString(p.path)))
		ad.waitFor(p.name, fmt.Sprintf(`location.pathname === %s && !!document.querySelector("main h1")`, jsString(p.path)))
		ad.lookLoaded(p.name)
	}
	pgtest.CheckInvariants(t, s.Store)

	s.lookOnPhone(t, browser, "admin-show-phone", email, []string{showPath, "/admin/reports/sales", "/admin/reconciliation"})
}

// editLayout redraws the screen's layout with the keyboard alone, saves it
// and checks the seats saved. The plain grid of 6 rows of 8 standard seats
// becomes: an aisle in row A (grid columns 3 and 4) and a gap in row B
// (column 4), rows D and E premium, and the first seat of row F a
// wheelchair space.
func editLayout(t *testing.T, tb *tab, s *site, screen int64) {
	t.Helper()
	grid := `document.activeElement && document.activeElement.closest("[data-editor-grid]")`
	current := func() [2]int {
		t.Helper()
		rc := eval[[]int](tb, `(() => { const el = document.activeElement; return [Number(el.parentNode.dataset.r), Number(el.dataset.c)]; })()`)
		return [2]int{rc[0], rc[1]}
	}
	// brush moves the focus back to the brushes, picks the one with the
	// arrow key keys, and goes on to the grid, where the focus lands on the
	// current cell.
	brush := func(value string, keys ...string) {
		t.Helper()
		tb.tabUntil("the brushes", `document.activeElement.name === "brush"`, true)
		for _, k := range keys {
			tb.press(k)
		}
		if got := eval[string](tb, `document.querySelector('input[name="brush"]:checked').value`); got != value {
			t.Fatalf("the brush chosen is %q, want %q", got, value)
		}
		tb.tabUntil("the grid", grid, false)
	}
	paint := func(key string, want string) {
		t.Helper()
		tb.press(key)
		tb.waitFor("the editor to say "+want, fmt.Sprintf(`document.querySelector("[data-editor-status]").textContent.startsWith(%s)`, jsString(want)))
	}
	move := func(key string, n int) {
		t.Helper()
		for range n {
			tb.press(key)
		}
	}

	// Tab into the grid: one stop, on its first cell.
	tb.do("focus the top of the page", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
	tb.tabUntil("the brushes", `document.activeElement.name === "brush"`, false)
	move(kb.ArrowRight, 5) // Standard, Premium, Recliner, Wheelchair, Companion, Gap
	if got := eval[string](tb, `document.querySelector('input[name="brush"]:checked').value`); got != "gap" {
		t.Fatalf("the brush chosen is %q, want gap", got)
	}
	tb.tabUntil("the grid", grid, false)
	if got := current(); got != [2]int{0, 0} {
		t.Fatalf("tabbing into the grid lands on %v, want its first cell", got)
	}
	if n := eval[int](tb, `document.querySelectorAll('[data-editor-grid] [tabindex="0"]').length`); n != 1 {
		t.Fatalf("the grid has %d tab stops, want 1", n)
	}

	// Gaps: A at columns 3 and 4 (an aisle), B at column 4.
	move(kb.ArrowRight, 3)
	paint(" ", "Painted 1 cell gap or aisle")
	move(kb.ArrowRight, 1)
	paint(kb.Enter, "Painted 1 cell gap or aisle")
	move(kb.ArrowDown, 1)
	paint(" ", "Painted 1 cell gap or aisle")
	if got := current(); got != [2]int{1, 4} {
		t.Fatalf("after painting the gaps the focus is on %v, want grid row 1, column 4", got)
	}

	// A wheelchair space: the first seat of row F.
	brush("accessible", kb.ArrowLeft, kb.ArrowLeft) // Gap, Companion, Wheelchair
	if got := current(); got != [2]int{1, 4} {
		t.Fatalf("back in the grid the focus is on %v, want the cell it left, grid row 1, column 4", got)
	}
	move(kb.ArrowDown, 4)
	tb.press(kb.Home)
	paint(" ", "Painted 1 cell wheelchair space")

	// Rows D and E premium: select them with Shift and the arrows.
	brush("seat:PREMIUM", kb.ArrowLeft, kb.ArrowLeft) // Wheelchair, Recliner, Premium
	move(kb.ArrowUp, 2)
	for range 7 {
		tb.pressShift(kb.ArrowRight)
	}
	tb.pressShift(kb.ArrowDown)
	if got := eval[int](tb, `document.querySelectorAll('[data-editor-grid] [aria-selected="true"]').length`); got != 16 {
		t.Fatalf("Shift and the arrows selected %d cells, want rows D and E, 16", got)
	}
	paint(kb.Enter, "Painted 16 cells Premium seat")
	wantText(t, "the seat count", tb.Text("[data-editor-count]"), "45 seats in 6 rows of 8 columns. Not saved yet.")

	// The best view, by keyboard too: its brush, then Space on a cell.
	marked := func() string {
		t.Helper()
		return eval[string](tb, `[...document.querySelectorAll('[data-editor-grid] [data-ideal]')].map(el =>
			el.parentNode.dataset.r + "," + el.dataset.c + ":" + el.dataset.ideal).join(" ") + " field " + document.querySelector('input[name="ideal"]').value`)
	}
	if got := marked(); got != "3,3:default 3,4:default field " {
		t.Fatalf("the default best view is marked at %q, want row D between columns 4 and 5", got)
	}
	brush("ideal", kb.ArrowRight, kb.ArrowRight, kb.ArrowRight, kb.ArrowRight, kb.ArrowRight) // Recliner, Wheelchair, Companion, Gap, Best view
	move(kb.ArrowUp, 3)
	paint(" ", "Best view: row B, column 8, set for this screen.")
	if got := marked(); got != "1,7:set field 1,7" {
		t.Fatalf("the best view set is marked at %q, want grid row 1, column 7", got)
	}
	wantText(t, "the best view's words", tb.Text("[data-ideal-text]"), "Best view: row B, column 8, set for this screen.")
	tb.shot("layout-drawn")

	// Save, by keyboard too: the next stop after the grid.
	tb.tabUntil("the Save button", `document.activeElement.matches('#layout-form button[type=submit]')`, false)
	tb.press(kb.Enter)
	tb.waitFor("the layout to be saved", `new URLSearchParams(location.search).get("saved") === "1" && !!document.querySelector('#editor-notice[data-notice="success"]')`)
	wantText(t, "the saved notice", tb.Text("#editor-notice"), "The layout has 45 seats")

	// What was saved: seat by seat, where it is, its id and category.
	type seat struct {
		ID, Category string
		Accessible   bool
	}
	want := map[[2]int]seat{}
	for _, st := range drawnLayout() {
		want[[2]int{st.GridRow, st.GridCol}] = seat{ID: st.ID, Category: st.Category, Accessible: st.Accessible}
	}
	rows, err := s.Store.Pool().Query(t.Context(), `SELECT grid_row, grid_col, seat_id, category, accessible FROM seats WHERE screen_id = $1`, screen)
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int]seat{}
	for rows.Next() {
		var at [2]int
		var st seat
		if err := rows.Scan(&at[0], &at[1], &st.ID, &st.Category, &st.Accessible); err != nil {
			t.Fatal(err)
		}
		got[at] = st
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var diff []string
	for at, w := range want {
		if g, ok := got[at]; !ok || g != w {
			diff = append(diff, fmt.Sprintf("at %v saved %+v, want %+v", at, g, w))
		}
	}
	for at, g := range got {
		if _, ok := want[at]; !ok {
			diff = append(diff, fmt.Sprintf("at %v saved %+v, want a gap", at, g))
		}
	}
	if len(diff) > 0 {
		t.Fatalf("the saved layout is not the one drawn:\n%s", strings.Join(diff, "\n"))
	}
	if got := scalar[string](s, `SELECT format('%s,%s', ideal_grid_row, ideal_grid_col) FROM screens WHERE id = $1`, screen); got != "1,7" {
		t.Fatalf("the best view saved is %q, want 1,7", got)
	}

	// Back to the default best view, saved.
	if got := marked(); got != "1,7:set field 1,7" {
		t.Fatalf("the saved best view is marked at %q", got)
	}
	tb.click(`button[data-cmd="reset-ideal"]`)
	tb.waitFor("the default best view", `document.querySelector("[data-editor-status]").textContent.startsWith("Best view: the default")`)
	if got := marked(); got != "3,3:default 3,4:default field " {
		t.Fatalf("reset, the best view is marked at %q", got)
	}
	wantText(t, "the best view's words", tb.Text("[data-ideal-text]"), "Best view: the default, two thirds of the way back on the centre line (row D, between columns 4 and 5).")
	tb.do("mark the page before saving", chromedp.Evaluate[chromedp.Void](`window.beforeSave = true`))
	tb.click(`#layout-form button[type=submit]`)
	tb.waitFor("the layout to be saved again", `!window.beforeSave && document.readyState === "complete" && !!document.querySelector('#editor-notice[data-notice="success"]')`)
	if n := scalar[int64](s, `SELECT count(*) FROM screens WHERE id = $1 AND ideal_grid_row IS NULL AND ideal_grid_col IS NULL`, screen); n != 1 {
		t.Fatal("the best view reset is not saved as the default")
	}
}

// drawnLayout is the layout editLayout draws on the plain grid of 6 rows
// of 8 standard seats: an aisle in row A (grid columns 3 and 4) and a gap
// in row B (column 4), rows D and E premium, and the first seat of row F a
// wheelchair space. 45 seats.
func drawnLayout() []catalog.SeatSpec {
	gaps := map[[2]int]bool{{0, 3}: true, {0, 4}: true, {1, 4}: true}
	var seats []catalog.SeatSpec
	for r := range 6 {
		row := string(rune('A' + r))
		n := 0
		for c := range 8 {
			if gaps[[2]int{r, c}] {
				continue
			}
			n++
			st := catalog.SeatSpec{ID: fmt.Sprintf("%s%d", row, n), Row: row, Number: n, Category: "STANDARD", GridRow: r, GridCol: c}
			if row == "D" || row == "E" {
				st.Category = "PREMIUM"
			}
			st.Accessible = row == "F" && c == 0
			seats = append(seats, st)
		}
	}
	return seats
}

// fill replaces the value of the field with id by typing value.
func (tb *tab) fill(id, value string) {
	tb.t.Helper()
	tb.setValue(id, "")
	tb.typeInto(id, value)
}

// setValue sets the value of the field with id (a select, a date or a time,
// which typing would enter by the browser's locale), as a change.
func (tb *tab) setValue(id, value string) {
	tb.t.Helper()
	if !eval[bool](tb, fmt.Sprintf(`(() => {
		const el = document.getElementById(%s);
		if (!el) return false;
		el.value = %s;
		el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
		return el.value === %s;
	})()`, jsString(id), jsString(value), jsString(value))) {
		tb.t.Fatalf("%s: could not set #%s to %q", tb.name, id, value)
	}
}

// pressShift sends key with Shift held to the focused element.
func (tb *tab) pressShift(key string) {
	tb.t.Helper()
	tb.do(fmt.Sprintf("press Shift+%q", key), chromedp.KeyEvent(key, chromedp.KeyModifiers(chromedp.ModifierShift)))
}

// tabUntil presses Tab (Shift+Tab when back) until the JavaScript
// expression is true of the focus, at most 60 times.
func (tb *tab) tabUntil(what, js string, back bool) {
	tb.t.Helper()
	for range 60 {
		if eval[bool](tb, "!!("+js+")") {
			return
		}
		if back {
			tb.pressShift(kb.Tab)
		} else {
			tb.press(kb.Tab)
		}
	}
	tb.t.Fatalf("%s: 60 presses of Tab do not reach %s (the focus is on %s)", tb.name, what,
		eval[string](tb, `document.activeElement ? document.activeElement.outerHTML.slice(0, 200) : "nothing"`))
}

// logInWith signs in as email with password through the login page (an
// account made in the store, whose password is not signUp's).
func (tb *tab) logInWith(email, password string) {
	tb.t.Helper()
	tb.open("/login")
	tb.typeInto("email", email)
	tb.typeInto("password", password)
	tb.click(`form[action="/login"] button[type=submit]`)
	tb.waitVisible(`header form[action="/logout"] button`)
}
