package pages_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The admin pages as an admin walking through them found them wanting
// (#23): each test here is one of those findings, in headless Chromium
// against the real server and Postgres.

// TestLayoutPaintKeepsAisles: painting a category over a block of rows
// that has aisles changes the category of its seats and nothing else: the
// aisles stay gaps, no seat is added and every seat keeps its number.
func TestLayoutPaintKeepsAisles(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s, email := adminSite(t, siteConfig{})
	screen := s.aisleScreen(s.adminTheatre())
	before := s.seatsOf(screen)

	ad := s.adminTab(t, browser, "layout-paint", email, desktop)
	ad.open(fmt.Sprintf("/admin/screens/%d", screen))
	ad.waitVisible(`[data-editor-tools]`)
	wantText(t, "the seat count", ad.Text("[data-editor-count]"), "60 seats in 6 rows of 12 columns.")
	ad.click(`input[name="brush"][value="seat:PREMIUM"]`)
	// Into the grid as the Tab key would land, then rows C to F selected
	// with Shift and the keys, and painted.
	ad.do("focus the grid", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-editor-grid] [tabindex="0"]').focus()`))
	ad.press(kb.ArrowDown)
	ad.press(kb.ArrowDown)
	ad.pressShift(kb.End)
	ad.pressShift(kb.PageDown)
	if n := eval[int](ad, `document.querySelectorAll('[data-editor-grid] [aria-selected="true"]').length`); n != 48 {
		t.Fatalf("selected %d cells, want rows C to F, 48", n)
	}
	ad.press(kb.Enter)
	ad.waitFor("the paint to be done", `document.querySelector("[data-editor-status]").textContent.startsWith("Painted")`)
	wantText(t, "what the editor says", ad.Text("[data-editor-status]"),
		"Painted 40 cells Premium seat.", "The 8 gaps in the selection stay as they are")
	// The count is written once the paint is done (a moment after it).
	ad.waitFor("the seat count to say the change", `document.querySelector("[data-editor-count]").textContent.includes("Not saved yet.")`)
	wantText(t, "the seat count", ad.Text("[data-editor-count]"), "60 seats in 6 rows of 12 columns. Not saved yet.")
	ad.look("layout painted premium over aisles")

	ad.click(`#layout-form button[type=submit]`)
	ad.waitFor("the layout to be saved", `!!document.querySelector('#editor-notice[data-notice="success"]')`)
	after := s.seatsOf(screen)
	if len(after) != len(before) {
		t.Fatalf("the saved layout has %d seats, want the %d it had", len(after), len(before))
	}
	for at, was := range before {
		now, ok := after[at]
		if !ok || now.ID != was.ID {
			t.Errorf("grid %v: seat %q became %q", at, was.ID, now.ID)
			continue
		}
		want := "STANDARD"
		if at[0] >= 2 {
			want = "PREMIUM"
		}
		if now.Category != want {
			t.Errorf("seat %s is %s, want %s", now.ID, now.Category, want)
		}
	}
}

// aisleScreen is a screen of theatre with 6 rows of 12 grid columns, two
// of them aisles (grid columns 3 and 8): 10 standard seats a row,
// numbered 1 to 10 from the left.
func (s *site) aisleScreen(theatre int64) int64 {
	s.t.Helper()
	var seats []catalog.SeatSpec
	for r := range 6 {
		row := string(rune('A' + r))
		n := 0
		for c := range 12 {
			if c == 3 || c == 8 {
				continue
			}
			n++
			seats = append(seats, catalog.SeatSpec{ID: fmt.Sprintf("%s%d", row, n), Row: row, Number: n,
				Category: "STANDARD", GridRow: r, GridCol: c})
		}
	}
	screen, err := s.Store.CreateScreen(context.Background(), theatre, "Aisles", seats)
	if err != nil {
		s.t.Fatal(err)
	}
	return screen
}

// layoutSeat is a seat of a layout as stored.
type layoutSeat struct{ ID, Category string }

// seatsOf is screen's seats by grid position.
func (s *site) seatsOf(screen int64) map[[2]int]layoutSeat {
	s.t.Helper()
	rows, err := s.Store.Pool().Query(context.Background(),
		`SELECT grid_row, grid_col, seat_id, category FROM seats WHERE screen_id = $1 AND NOT retired`, screen)
	if err != nil {
		s.t.Fatal(err)
	}
	defer rows.Close()
	out := map[[2]int]layoutSeat{}
	for rows.Next() {
		var at [2]int
		var st layoutSeat
		if err := rows.Scan(&at[0], &at[1], &st.ID, &st.Category); err != nil {
			s.t.Fatal(err)
		}
		out[at] = st
	}
	if err := rows.Err(); err != nil {
		s.t.Fatal(err)
	}
	return out
}

// TestOccupancyFollowsLiveMap: on the admin's show page the occupancy
// figures change with the live seat map, in the same moment: when a seat
// turns held on the map, the Held figure already counts it (not at the
// panel's next poll, seconds later).
func TestOccupancyFollowsLiveMap(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s, email := adminSite(t, siteConfig{live: true})
	show := s.newShow(5, 8)
	ad := s.adminTab(t, browser, "occupancy-live", email, desktop)
	ad.open(fmt.Sprintf("/admin/shows/%d", show))
	ad.waitVisible(`[data-admin-show] #seatmap[data-ready="true"]`)
	ad.waitFor("the page to be live", `document.querySelector("[data-live-status]").dataset.liveStatus === "live"`)
	wantText(t, "the first figures", ad.Text(`[data-count="held"]`), "0")
	// What the figures say at the moment each seat changes on the map: a
	// mutation observer runs right after the task that changed the seat.
	eval[bool](ad, `(() => {
		window.figuresAtChange = [];
		new MutationObserver(records => {
			for (const r of records) {
				const seat = r.target;
				const n = k => document.querySelector('[data-count="' + k + '"]').textContent;
				window.figuresAtChange.push(seat.dataset.seat + " " + seat.dataset.status + ": available " + n("available") + ", held " + n("held") + ", booked " + n("booked"));
			}
		}).observe(document.querySelector("#seatmap"), {subtree: true, attributes: true, attributeFilter: ["data-status"]});
		return true;
	})()`)
	s.holdElsewhere(show, "occupancy-live-1", "C4", "C5")
	ad.waitFor("the seats to turn held", `document.querySelector("#seat-C4").dataset.status === "held" && document.querySelector("#seat-C5").dataset.status === "held"`)
	got := eval[[]string](ad, `window.figuresAtChange`)
	if len(got) != 2 || got[1] != "C5 held: available 38, held 2, booked 0" && got[1] != "C4 held: available 38, held 2, booked 0" {
		t.Fatalf("when the seats turned held on the map the figures said %q, want available 38, held 2", got)
	}
	ad.look("admin show figures following the map")
}

// TestPosterTooLargeInBrowser: the poster form says its 2 MiB limit by the
// file field; a 5 MiB photo is told at once, before any upload; and the
// server's own answer to it (a browser without the page's script) is the
// form again, the mistake at the file field and the text typed kept, not
// a page of its own.
func TestPosterTooLargeInBrowser(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s, email := adminSite(t, siteConfig{})
	movie := pgtest.NewVenue(t, s.Store).MovieID
	photo := filepath.Join(t.TempDir(), "photo.png")
	if err := os.WriteFile(photo, bytes.Repeat([]byte{7}, 5<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, vp := range []viewport{desktop, phone} {
		ad := s.adminTab(t, browser, "poster-"+vp.name, email, vp)
		ad.open(fmt.Sprintf("/admin/movies/%d", movie))
		ad.waitVisible("#poster")
		wantText(t, "the file field's hint", ad.Text("#poster-hint"), "At most 2 MiB.")
		ad.typeInto("alt", "A robot under a red sky")
		ad.do("choose a 5 MiB photo", chromedp.SetUploadFiles(chromedp.ID("poster"), []string{photo}))
		ad.waitVisible("#poster-size-error")
		wantText(t, "the file field", ad.Text("#poster-size-error"), "This image is 5.0 MiB: a poster is at most 2 MiB.")
		ad.click(`form[action$="/poster"] button[type=submit]`)
		if got := ad.focused(); got != "poster" {
			t.Fatalf("%s: after sending a file too large the focus is on %q, want the file field", vp.name, got)
		}
		ad.look("poster too large, told at once")

		// Without the script: the server says it.
		ad.do("leave the check to the server", chromedp.Evaluate[chromedp.Void](`document.querySelector("#poster").removeAttribute("data-max-bytes")`))
		ad.click(`form[action$="/poster"] button[type=submit]`)
		ad.waitVisible("#poster-error")
		wantText(t, "the server's answer", ad.Text("#poster-error"), "This image is 5.0 MiB: a poster is at most 2 MiB.")
		if got := ad.Attr("#alt", "value"); got != "A robot under a red sky" {
			t.Errorf("%s: the form forgot the text alternative: %q", vp.name, got)
		}
		if got := ad.Attr("#poster", "aria-invalid"); got != "true" {
			t.Errorf("%s: the file field is not marked invalid (%q)", vp.name, got)
		}
		ad.look("poster too large, told by the server")
	}
}

// TestAdminPagesFitAPhone: on a 390 px phone every admin page fits the
// screen's width: the tab bar wraps, and a table wider than the screen
// scrolls sideways inside its own box, never cut off by the page. The
// schedule page puts its list of shows first, before its forms. axe-core
// finds nothing wrong with any of them.
func TestAdminPagesFitAPhone(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s, email := adminSite(t, siteConfig{demo: true})
	theatre := scalar[int64](s, `SELECT min(id) FROM theatres`)
	show := scalar[int64](s, `SELECT min(id) FROM shows WHERE starts_at > now()`)
	movie := scalar[int64](s, `SELECT min(id) FROM movies`)
	screen := scalar[int64](s, `SELECT min(id) FROM screens WHERE theatre_id = $1`, theatre)
	today := time.Now().Format(time.DateOnly)
	ph := s.adminTab(t, browser, "admin-phone", email, phone)
	for _, p := range []string{
		"/admin", "/admin/theatres", fmt.Sprintf("/admin/theatres/%d", theatre), fmt.Sprintf("/admin/theatres/%d/schedule", theatre),
		fmt.Sprintf("/admin/shows/%d", show), "/admin/movies", fmt.Sprintf("/admin/movies/%d", movie), fmt.Sprintf("/admin/screens/%d", screen),
		fmt.Sprintf("/admin/reports/sales?theatre_id=%d&from=%s&to=%s", theatre, today, today), "/admin/bookings", "/admin/reconciliation",
		"/admin/audit", "/admin/jobs",
	} {
		ph.open(p)
		ph.waitFor("the page to load", `document.readyState === "complete" && !!document.querySelector("main h1")`)
		cut := eval[[]string](ph, `(() => {
			const width = window.innerWidth, cut = [];
			// Inside a box that scrolls sideways and itself fits, a wide
			// element is seen by scrolling that box.
			const scrolls = el => { for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
				const o = getComputedStyle(p).overflowX;
				if ((o === "auto" || o === "scroll") && p.getBoundingClientRect().right <= width + 1) return true;
			} return false; };
			for (const el of document.querySelectorAll("main *, nav[aria-label=Admin] *")) {
				const r = el.getBoundingClientRect();
				if (r.width === 0 || r.right <= width + 1 || getComputedStyle(el).visibility === "hidden") continue;
				if (el.closest(".sr-only") || scrolls(el)) continue;
				cut.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + [...el.classList].slice(0, 3).join(".") + " ends at " + Math.round(r.right));
			}
			return cut.slice(0, 5);
		})()`)
		if len(cut) > 0 {
			t.Errorf("%s at 390 px: cut off: %q", p, cut)
		}
		tabs := eval[[]string](ph, `[...document.querySelectorAll('nav[aria-label="Admin"] a')].filter(a => {
			const r = a.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth; }).map(a => a.textContent.trim())`)
		if len(tabs) > 0 {
			t.Errorf("%s at 390 px: the tabs %q are off the screen", p, tabs)
		}
		ph.look("phone " + p)
	}
	// The schedule's list comes first on the page.
	ph.open(fmt.Sprintf("/admin/theatres/%d/schedule", theatre))
	ph.waitVisible("#shows-title")
	if !eval[bool](ph, `(() => { const list = document.querySelector("#shows-title"), form = document.querySelector("form[action$='/schedule']");
		return !!form && !!(list.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING); })()`) {
		t.Error("the schedule page shows its forms before its list of shows")
	}
	if top := eval[float64](ph, `document.querySelector("#shows-title").getBoundingClientRect().top + window.scrollY`); top > 1200 {
		t.Errorf("the list of shows starts %.0f px down the schedule page on a phone", top)
	}
}
