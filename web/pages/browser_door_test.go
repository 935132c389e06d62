package pages_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/chromium"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/ticket"
)

// TestBrowserDoor runs a cinema night's door in Chromium: a manager grants
// an usher by e-mail on the staff page; the usher, on a phone whose camera
// films a real ticket's QR code (Chromium's fake camera, fed a video made
// from the code the ticket carries), opens tonight's show from the Door
// page, starts the camera and sees "Admitted"; the ticket is admitted once.
// Chromium on Linux has no BarcodeDetector of its own, so the page scans
// with the vendored polyfill and its WebAssembly, served by the app.
// axe-core finds nothing wrong with the staff page, the Door page and the
// show's door, at a desktop's width and a phone's.
func TestBrowserDoor(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{})
	show := s.newShow(4, 6)
	theatre := scalar[int64](s, `SELECT sc.theatre_id FROM shows sh JOIN screens sc ON sc.id = sh.screen_id WHERE sh.id = $1`, show)
	// Tonight: an hour from now (the Door page lists it unless that is
	// past midnight where the theatre is).
	pgtest.Exec(t, s.Store.Pool(), `UPDATE shows SET starts_at = now() + interval '1 hour' WHERE id = $1`, show)
	b := s.confirmed(show, "C3", "C4")

	// The manager grants the usher by e-mail, in the browser.
	manager := pgtest.User(t, s.Store)
	pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, manager)
	pgtest.Exec(t, s.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'manager')`, theatre, manager)
	managerEmail := scalar[string](s, `SELECT email FROM users WHERE id = $1`, manager)
	usher := pgtest.User(t, s.Store)
	usherEmail := scalar[string](s, `SELECT email FROM users WHERE id = $1`, usher)
	mt := s.adminTab(t, browser, "door-manager", managerEmail, desktop)
	mt.open(fmt.Sprintf("/admin/theatres/%d/staff", theatre))
	mt.waitVisible("main h1")
	mt.lookLoaded("staff")
	mt.typeInto("staff-email", usherEmail)
	mt.click(`input[name=role][value=usher]`)
	mt.click(`form[data-grant-staff] button[type=submit]`)
	mt.waitFor("the usher in the staff list", fmt.Sprintf(`!!document.querySelector('[data-staff-member=%s] [data-staff-role]')`, jsString(usherEmail)))
	wantText(t, "the usher's role", mt.Text(fmt.Sprintf(`[data-staff-member=%s] [data-staff-role]`, jsString(usherEmail))), "Usher")
	if role := scalar[string](s, `SELECT role FROM theatre_staff WHERE user_id = $1 AND theatre_id = $2`, usher, theatre); role != "usher" {
		t.Fatalf("the usher's role in the database is %q", role)
	}
	s.lookOnPhone(t, browser, "door-manager-phone", managerEmail, []string{fmt.Sprintf("/admin/theatres/%d/staff", theatre)})

	// The box office sells two seats on the map, at a desktop and on a
	// phone, and gets the ticket to print.
	desk := pgtest.User(t, s.Store)
	pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, desk)
	pgtest.Exec(t, s.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'box_office')`, theatre, desk)
	deskEmail := scalar[string](s, `SELECT email FROM users WHERE id = $1`, desk)
	for i, vp := range []viewport{desktop, phone} {
		bt := s.adminTab(t, browser, "counter-"+vp.name, deskEmail, vp)
		bt.open("/admin")
		bt.click(`nav[aria-label=Admin] a[href="/admin/box-office"]`)
		bt.waitVisible("[data-counter-shows]")
		bt.lookLoaded(vp.name + " box office")
		bt.click(fmt.Sprintf(`a[href="/admin/shows/%d/sell"]`, show))
		bt.waitVisible(`#seatmap[data-ready="true"]`)
		bt.lookLoaded(vp.name + " counter")
		seats := [][]string{{"A1", "A2"}, {"B1", "B2"}}[i]
		for _, id := range seats {
			bt.pick(id)
		}
		bt.waitFor("the picks in the seats field", fmt.Sprintf(`document.querySelector('[data-block-seats]').value === %s`, jsString(strings.Join(seats, ", "))))
		bt.typeInto("sell-name", "Walk-in "+vp.name)
		bt.click(`form[data-counter-form] button[type=submit]`)
		bt.waitVisible("[data-printed-ticket]")
		wantText(t, "the printed ticket", bt.Text("[data-ticket-seats]"), strings.Join(seats, ", "))
		bt.lookLoaded(vp.name + " ticket to print")
	}

	// The usher's phone, filming the ticket.
	code := ticket.DevKeys().Code(b.Code, show)
	phoneBrowser := fakeCamera(t, ticketVideo(t, code))
	ut := s.openTab(t, phoneBrowser, "door-usher", phone)
	ut.logInWith(usherEmail, pgtest.FixturePassword)
	ut.open("/admin")
	ut.click(`nav[aria-label=Admin] a[href="/admin/door"]`)
	ut.waitVisible("main h1")
	ut.lookLoaded("phone door list")
	ut.open(fmt.Sprintf("/admin/shows/%d/door", show))
	ut.waitVisible("[data-door-start]")
	ut.lookLoaded("phone door")
	ut.click("[data-door-start]")
	ut.waitForWithin("the ticket admitted from the camera", `document.querySelector('[data-door-answer]').getAttribute('data-kind') === 'admitted'`, workTimeout)
	wantText(t, "the answer", eval[string](ut, `document.querySelector('[data-door-answer]').textContent`), "Admitted", "C3, C4")
	ut.waitFor("the admitted count", `document.querySelector('[data-door-admitted]').textContent.trim() === '1'`)
	ut.lookLoaded("phone door admitted")
	// The camera keeps seeing the ticket: it is admitted once.
	time.Sleep(time.Second)
	if n := scalar[int64](s, `SELECT count(*) FROM checkins WHERE booking_id = $1`, b.ID); n != 1 {
		t.Fatalf("%d admissions of the ticket, want 1", n)
	}

	// A typed code at a desktop's door: the same ticket again.
	dt := s.openTab(t, browser, "door-desk", desktop)
	dt.logInWith(usherEmail, pgtest.FixturePassword)
	dt.open(fmt.Sprintf("/admin/shows/%d/door", show))
	dt.waitVisible("#door-code")
	dt.typeInto("door-code", b.Code)
	dt.click(`form[data-door-form] button[type=submit]`)
	dt.waitFor("the answer", `document.querySelector('[data-door-answer]').getAttribute('data-kind') === 'again'`)
	wantText(t, "the answer", eval[string](dt, `document.querySelector('[data-door-answer]').textContent`), "Already admitted")
	dt.lookLoaded("door again")
}

// confirmed books seats of show for a new moviegoer, paid, and returns the
// booking.
func (s *site) confirmed(show int64, seats ...string) booking.Booking {
	s.t.Helper()
	return s.confirmedFor(pgtest.User(s.t, s.Store), show, seats...)
}

// confirmedFor books seats of show for user, paid, and returns the booking.
func (s *site) confirmedFor(user string, show int64, seats ...string) booking.Booking {
	s.t.Helper()
	ctx := context.Background()
	key := fmt.Sprint("door-", user, "-", show, "-", strings.Join(seats, "-"))
	res, err := s.Store.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: seats, TTL: 5 * time.Minute,
		Key: key}, 10)
	if err != nil {
		s.t.Fatal(err)
	}
	c, err := s.Store.ConfirmPayment(ctx, booking.Payment{ID: "pay-" + key, HoldRef: res.Hold.ID,
		AmountMinor: res.Hold.AmountMinor, Currency: res.Hold.Currency})
	if err != nil || c.BookingID == "" {
		s.t.Fatalf("confirm: %+v, %v", c, err)
	}
	b, err := s.Store.Booking(ctx, user, c.BookingID)
	if err != nil {
		s.t.Fatal(err)
	}
	return b
}

// ticketVideo writes a few seconds of video (YUV4MPEG2, what Chromium's
// fake camera plays) of code's QR code on white, as a phone held up to a
// ticket would film it, and returns the file.
func ticketVideo(t *testing.T, code string) string {
	t.Helper()
	q, err := qrcode.New(code, qrcode.Medium)
	if err != nil {
		t.Fatal(err)
	}
	const w, h = 640, 480
	frame := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(frame, frame.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	qr := q.Image(400)
	draw.Draw(frame, image.Rect((w-400)/2, (h-400)/2, (w+400)/2, (h+400)/2), qr, qr.Bounds().Min, draw.Src)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "YUV4MPEG2 W%d H%d F10:1 Ip A1:1 C420jpeg\n", w, h)
	chroma := bytes.Repeat([]byte{128}, w*h/4)
	for range 20 {
		buf.WriteString("FRAME\n")
		buf.Write(frame.Pix)
		buf.Write(chroma)
		buf.Write(chroma)
	}
	path := filepath.Join(t.TempDir(), "ticket.y4m")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeCamera is a Chromium of its own whose camera plays video, with the
// permission to use it granted.
func fakeCamera(t *testing.T, video string) context.Context {
	t.Helper()
	opts := chromium.Options(chromium.Path(),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-video-capture", video),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("start a Chromium with a fake camera: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	return ctx
}
