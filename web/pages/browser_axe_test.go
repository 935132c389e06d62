package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// axe-core checks a page's accessibility in the browser tests. It comes from
// npm at the version package-lock.json pins (make test runs npm ci first);
// the tests inject it into the page they look at, the app never serves it.

// axeScript is node_modules/axe-core/axe.min.js of the repository, read once.
var axeScript struct {
	once sync.Once
	src  string
	err  error
}

// axeSource returns axe-core's source. Without it the test is skipped,
// unless CI is set: there a missing node_modules is a broken set-up and fails.
func axeSource(t *testing.T) string {
	t.Helper()
	axeScript.once.Do(func() {
		root, err := repoRoot()
		if err != nil {
			axeScript.err = err
			return
		}
		path := filepath.Join(root, "node_modules", "axe-core", "axe.min.js")
		b, err := os.ReadFile(path)
		if err != nil {
			axeScript.err = fmt.Errorf("the accessibility checks need axe-core at %s: run `npm ci` in %s (make test does): %w", path, root, err)
			return
		}
		axeScript.src = string(b)
	})
	if axeScript.err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v; CI is set, so a missing axe-core fails the run", axeScript.err)
		}
		t.Skip(axeScript.err)
	}
	return axeScript.src
}

// repoRoot is the folder of go.mod, above the package folder a test runs in.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// axeViolation is one rule a page breaks, with the elements that break it.
type axeViolation struct {
	ID      string
	Impact  string
	Help    string
	HelpURL string
	Nodes   []struct {
		Target  []string
		Summary string
	}
}

// axe runs axe-core's default rules (WCAG 2.x A and AA and best practices)
// on the page as it is now, and fails the test listing every violation: the
// rule, what it asks, and each element at fault.
func (tb *tab) axe(page string) {
	tb.t.Helper()
	src := axeSource(tb.t)
	if !eval[bool](tb, `typeof window.axe === "object"`) {
		// DevTools evaluation is not bound by the page's CSP: the page
		// itself could never load this script.
		run(tb, "inject axe-core", chromedp.Evaluate[chromedp.Void](src))
	}
	// Colours are judged at rest: a button caught mid-transition (just
	// enabled) has colours it never keeps. Endless animations (a spinner)
	// are left running.
	violations := run(tb, "run axe-core on "+page, chromedp.Evaluate[[]axeViolation](`Promise.all(document.getAnimations()
		.filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
		.map(a => a.finished.catch(() => {})))
		.then(() => axe.run(document, {resultTypes: ["violations"]})).then(r =>
		r.violations.map(v => ({ID: v.id, Impact: v.impact || "", Help: v.help, HelpURL: v.helpUrl,
			Nodes: v.nodes.map(n => ({Target: n.target.map(String), Summary: n.failureSummary || ""}))})))`,
		chromedp.EvalAwaitPromise))
	if len(violations) == 0 {
		tb.t.Logf("%s: axe-core finds no violations on %s", tb.name, page)
		return
	}
	var b strings.Builder
	for _, v := range violations {
		fmt.Fprintf(&b, "\n  %s (%s): %s <%s>", v.ID, v.Impact, v.Help, v.HelpURL)
		for _, n := range v.Nodes {
			fmt.Fprintf(&b, "\n    %s: %s", strings.Join(n.Target, " "), squeeze(n.Summary))
		}
	}
	tb.shot("axe-" + strings.ReplaceAll(page, " ", "-"))
	tb.t.Errorf("%s: axe-core finds %d violations on %s (%dpx wide):%s", tb.name, len(violations), page, tb.vp.width, b.String())
}

// narrow is the smallest phone the header must fit.
var narrow = viewport{name: "narrow", width: 320, height: 640, mobile: true}

// TestBrowserPages looks at every page of the app in headless Chromium, as a
// guest and signed in, at 1280 and 390 px (the header at 320 px too), and
// requires axe-core to find no violations on any; and it checks what a person
// sees of accounts: the header of a page that does not exist, every mistake
// of a form at once with the focus on the first.
func TestBrowserPages(t *testing.T) {
	t.Parallel()
	axeSource(t) // before any work: without axe-core the test cannot judge
	browser := startChromium(t)
	logScreenshots(t)

	for _, vp := range []viewport{desktop, phone} {
		t.Run("Tour/"+vp.name, func(t *testing.T) {
			t.Parallel()
			pageTour(t, browser, vp)
		})
	}
	t.Run("NarrowHeader", func(t *testing.T) {
		t.Parallel()
		narrowHeader(t, browser)
	})
	t.Run("NotFoundSignedIn", func(t *testing.T) {
		t.Parallel()
		notFoundSignedIn(t, browser)
	})
	t.Run("FormErrors", func(t *testing.T) {
		t.Parallel()
		formErrors(t, browser)
	})
	t.Run("RateLimitedForms", func(t *testing.T) {
		t.Parallel()
		rateLimitedForms(t, browser)
	})
}

// look checks the page as it is now: it fits the screen's width, and
// axe-core finds nothing wrong with it. It keeps a screenshot.
func (tb *tab) look(page string) {
	tb.t.Helper()
	tb.noSidewaysScroll(page)
	tb.shot(strings.ReplaceAll(page, " ", "-"))
	tb.axe(page)
}

// pageTour visits every page a moviegoer can reach, buying a ticket on the
// way, and looks at each.
func pageTour(t *testing.T, browser context.Context, vp viewport) {
	s := newSite(t, siteConfig{demo: true, live: true})
	tb := s.openTab(t, browser, "tour-"+vp.name, vp)

	// A guest.
	tb.open("/")
	tb.waitVisible(`a[href="/cities/bengaluru"]`)
	tb.look("home")
	tb.open("/login")
	tb.waitVisible("#email")
	tb.look("login")
	tb.click(`form[action="/login"] button[type=submit]`)
	tb.waitVisible("#form-error")
	tb.look("login with errors")
	tb.open("/signup")
	tb.waitVisible("#name")
	tb.look("sign-up")
	tb.click(`form[action="/signup"] button[type=submit]`)
	tb.waitVisible("#form-error")
	tb.look("sign-up with errors")
	tb.open("/no-such-page")
	tb.waitVisible("#error-title")
	tb.look("404 signed out")

	// Signed in, before any booking.
	tb.signUp("Axel " + vp.name)
	tb.open("/bookings")
	tb.waitVisible("main h1")
	tb.look("my bookings empty")
	tb.open("/no-such-page")
	tb.waitVisible("#error-title")
	tb.look("404 signed in")

	// Browsing, on a day ahead (a show of today may be about to start).
	tb.open("/cities/bengaluru")
	tb.waitVisible(`section[aria-labelledby="movies-title"]`)
	day := eval[string](tb, `(() => { const d = document.querySelectorAll('nav[aria-label="Choose a day"] a'); return d.length > 2 ? d[2].getAttribute("href") : ""; })()`)
	if day == "" {
		t.Fatal("the city page offers no third day with shows")
	}
	tb.open(day)
	tb.waitVisible(`section[aria-labelledby="movies-title"] li a.btn-primary`)
	tb.look("city")
	theatre := tb.Attr(`section[aria-labelledby="theatres-title"] li a`, "href")
	movie := tb.Attr(`section[aria-labelledby="movies-title"] li a.btn-primary`, "href")
	tb.open(theatre)
	tb.waitVisible(`section[aria-labelledby="shows-title"]`)
	tb.look("theatre")
	tb.open(movie)
	tb.waitVisible(`section[aria-labelledby="showtimes-title"] a.chip`)
	tb.look("movie")
	tb.open(tb.Attr(`section[aria-labelledby="showtimes-title"] a.chip`, "href"))
	tb.waitVisible(`#seatmap[data-ready="true"]`)
	tb.look("show")

	// A hold, then paying for it.
	seat := eval[string](tb, `(() => {
		const rows = [...document.querySelectorAll('#seatmap [role=group][aria-label^="Row "]')];
		for (const row of rows.slice(Math.floor(rows.length / 2)).concat(rows)) {
			const free = row.querySelector('button.seat[data-status="available"]');
			if (free) return free.dataset.seat;
		}
		return "";
	})()`)
	if seat == "" {
		t.Fatal("no free seat on the show page")
	}
	tb.click("#seat-" + seat)
	tb.look("show with a seat picked")
	tb.click("[data-hold-button]")
	tb.waitVisible("#checkout [data-countdown-display]")
	tb.look("show with a hold")
	tb.click(`#checkout form[action$="/pay"] button[type=submit]`)
	tb.waitVisible("[data-merchant]")
	tb.look("sandbox checkout")
	tb.click(`#pay-form button[type=submit]`)
	tb.waitVisible("#payment-status")
	tb.look("checkout return")
	tb.waitFor("the booking to be confirmed", `!!document.querySelector('#payment-status[data-state="booked"] [data-booking-link]')`)
	tb.look("checkout return booked")
	tb.click("[data-booking-link]")
	tb.waitVisible("#ticket-code")
	tb.waitFor("the QR code image", `(() => { const i = document.querySelector('img[alt^="QR code"]'); return i && i.complete && i.naturalWidth > 0; })()`)
	tb.look("e-ticket")
	tb.open("/bookings")
	tb.waitVisible(`[id^="booking-"] a[hx-get$="/cancel"]`)
	tb.look("my bookings")
	tb.click(`[id^="booking-"] a[hx-get$="/cancel"]`)
	tb.waitVisible("[data-cancel-preview]")
	tb.look("my bookings cancel preview")
}

// narrowHeader: on a 320 px phone the header of a signed-in moviegoer with
// a city fits, Log out included, and so does a guest's.
func narrowHeader(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{demo: true})
	tb := s.openTab(t, browser, "narrow", narrow)
	fits := func(page, sel string) {
		t.Helper()
		tb.noSidewaysScroll(page)
		right := eval[float64](tb, fmt.Sprintf(`document.querySelector(%s).getBoundingClientRect().right`, jsString(sel)))
		if right > float64(narrow.width) {
			t.Errorf("%s: %s ends at %.0fpx, off a %dpx screen", page, sel, right, narrow.width)
		}
	}
	tb.open("/cities/bengaluru")
	tb.waitVisible("main h1")
	fits("the city page of a guest", `header a[href^="/signup"]`)
	tb.look("guest header")
	tb.signUp("Venkataraghavan Narrow")
	tb.open("/cities/bengaluru")
	tb.waitVisible("header [data-city-switch]")
	fits("the city page signed in", `header form[action="/logout"] button`)
	tb.look("header signed in")
	tb.open("/bookings")
	tb.waitVisible("main h1")
	fits("My bookings", `header form[action="/logout"] button`)
	tb.look("my bookings")
}

// notFoundSignedIn: a page that does not exist still shows who is signed in.
func notFoundSignedIn(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{})
	tb := s.openTab(t, browser, "notfound", desktop)
	tb.signUp("Nikhil Lost")
	tb.open("/no-such-page")
	tb.waitVisible("#error-title")
	wantText(t, "404 page", tb.Text("main"), "There is no page at this address")
	if !eval[bool](tb, `!!document.querySelector('header form[action="/logout"] button')`) {
		t.Fatalf("the 404 page of a signed-in moviegoer has no Log out: the header says %q", tb.Text("header"))
	}
	if eval[bool](tb, `!!document.querySelector('header a[href^="/login"]')`) {
		t.Fatalf("the 404 page offers a signed-in moviegoer to log in: %q", tb.Text("header"))
	}
	wantText(t, "404 page", tb.Text("main"), "My bookings")
	// Its Log out works.
	tb.click(`header form[action="/logout"] button`)
	tb.waitVisible(`header a[href^="/login"]`)
}

// formErrors: a form sent with mistakes names every one of them, each by
// its field, with the focus on the first; nothing typed is lost.
func formErrors(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{})
	tb := s.openTab(t, browser, "form-errors", desktop)

	wantErrors := func(form string, want map[string]string, first string) {
		t.Helper()
		tb.waitVisible("#form-error")
		for field, msg := range want {
			if got := tb.Text("#" + field + "-error"); !strings.Contains(got, msg) {
				t.Errorf("%s: the %s field says %q, want %q", form, field, got, msg)
			}
			if got := tb.Attr("#"+field, "aria-invalid"); got != "true" {
				t.Errorf("%s: the %s field has aria-invalid=%q", form, field, got)
			}
			if !strings.Contains(tb.Attr("#"+field, "aria-describedby"), field+"-error") {
				t.Errorf("%s: the %s field is not described by its message", form, field)
			}
		}
		if got := tb.focused(); got != first {
			t.Errorf("%s: the focus is on %q, want the first field at fault, %q", form, got, first)
		}
	}

	// Sign-up with nothing filled in: three fields to fix.
	tb.open("/signup")
	tb.waitVisible("#name")
	tb.click(`form[action="/signup"] button[type=submit]`)
	wantErrors("empty sign-up", map[string]string{
		"name": "Enter your name", "email": "Enter your email", "password": "at least 8 characters",
	}, "name")
	tb.shot("signup-empty")

	// A name, a bad address and a short password: two to fix, the name kept.
	tb.typeInto("name", "Farah")
	tb.typeInto("email", "farah.example.com")
	tb.typeInto("password", "short")
	tb.click(`form[action="/signup"] button[type=submit]`)
	tb.waitFor("the second answer", `document.querySelector("#name").value === "Farah" && !document.querySelector("#name-error")`)
	wantErrors("sign-up with two mistakes", map[string]string{"email": "valid email", "password": "at least 8 characters"}, "email")
	if got := tb.Attr("#email", "value"); got != "farah.example.com" {
		t.Errorf("the sign-up form forgot the email typed: %q", got)
	}

	// Login with nothing filled in: what is missing, not a wrong password.
	tb.open("/login")
	tb.waitVisible("#email")
	tb.click(`form[action="/login"] button[type=submit]`)
	wantErrors("empty login", map[string]string{"email": "Enter your email", "password": "Enter your password"}, "email")
	if body := tb.Text("main"); strings.Contains(body, "Wrong email or password") {
		t.Errorf("an empty login says %q", body)
	}
	tb.shot("login-empty")
	tb.typeInto("email", "gita@example.com")
	tb.click(`form[action="/login"] button[type=submit]`)
	tb.waitFor("the second answer", `!document.querySelector("#email-error")`)
	wantErrors("login without a password", map[string]string{"password": "Enter your password"}, "password")
}

// rateLimitedForms: a person who tries too often keeps the form, and what
// was typed, and is told how long to wait: the limiter's Retry-After. The
// limits count by the site's clock, which stands still: the allowance never
// refills during the test, however slowly its forms are sent, so each step
// is refused once the allowance is spent.
func rateLimitedForms(t *testing.T, browser context.Context) {
	s := newSite(t, siteConfig{limits: true, clock: true})
	tb := s.openTab(t, browser, "rate-limited", phone)

	// submit fills in a form and sends it until the answer is a refusal.
	submit := func(form string, fields [][2]string) {
		t.Helper()
		for i := 0; i < 20; i++ {
			tb.open(form)
			tb.waitVisible("#email")
			for _, f := range fields {
				tb.do("fill in the "+f[0], chromedp.SetValue(chromedp.ID(f[0]), f[1]))
			}
			tb.click(fmt.Sprintf(`form[action=%s] button[type=submit]`, jsString(form)))
			tb.waitVisible("#form-error")
			if strings.Contains(tb.Text("#form-error"), "Too many attempts") {
				return
			}
		}
		t.Fatalf("%s was sent 20 times in a row and never refused", form)
	}
	// refused sends the form from the page until refused, to read the
	// answer's status and header as well.
	type answer struct {
		Status     int
		RetryAfter string
		Body       string
	}
	refused := func(path string, fields map[string]string) answer {
		t.Helper()
		b, _ := json.Marshal(fields)
		for i := 0; i < 20; i++ {
			a := run(tb, "post "+path, chromedp.Evaluate[answer](fmt.Sprintf(`(async () => {
				const body = new URLSearchParams(%s);
				body.set("_csrf", document.querySelector('input[name="_csrf"]').value);
				const r = await fetch(%s, {method: "POST", body});
				return {Status: r.status, RetryAfter: r.headers.get("Retry-After") || "", Body: await r.text()};
			})()`, b, jsString(path)), chromedp.EvalAwaitPromise))
			if a.Status == http.StatusTooManyRequests {
				return a
			}
		}
		t.Fatalf("%s was sent 20 times in a row and never refused", path)
		return answer{}
	}

	submit("/login", [][2]string{{"email", "hema@example.com"}, {"password", "a wrong guess"}})
	a := refused("/login", map[string]string{"email": "hema@example.com", "password": "one more guess"})
	wait, err := strconv.Atoi(a.RetryAfter)
	if err != nil || wait < 1 {
		t.Fatalf("a refused login: Retry-After %q", a.RetryAfter)
	}
	wantText(t, "the refused login", tb.Text("#form-error"), fmt.Sprintf("Please wait %d seconds, then try again", wait))
	if got := tb.Attr("#email", "value"); got != "hema@example.com" {
		t.Errorf("the refused login form forgot the email: %q", got)
	}
	if !eval[bool](tb, `!!document.querySelector('form[action="/login"] button[type=submit]')`) {
		t.Error("a refused login shows no form to try again with")
	}
	tb.noSidewaysScroll("the refused login")
	tb.shot("login-limited")
	tb.axe("the refused login")

	// Sign-up has an allowance of its own, 3 an hour, and keeps its form
	// the same way; its wait is said in minutes. Its password is too
	// short: one that slips through is refused by the form, never made an
	// account.
	submit("/signup", [][2]string{{"name", "Hema"}, {"email", "hema@example.com"}, {"password", "short"}})
	wantText(t, "the refused sign-up", tb.Text("#form-error"), "Please wait 20 minutes, then try again")
	if tb.Attr("#name", "value") != "Hema" || tb.Attr("#email", "value") != "hema@example.com" {
		t.Error("the refused sign-up form forgot what was typed")
	}
	tb.shot("signup-limited")
	a = refused("/signup", map[string]string{"name": "Hema", "email": "hema@example.com", "password": "short"})
	if a.RetryAfter != "1200" || !strings.Contains(a.Body, `action="/signup"`) || !strings.Contains(a.Body, "Please wait 20 minutes") {
		t.Fatalf("a refused sign-up: Retry-After %q, form kept: %v", a.RetryAfter, strings.Contains(a.Body, `action="/signup"`))
	}
}
