package pages_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserTicketMail books and pays in Chromium, then opens the dev
// mailbox (demo mode's, when no SMTP server is configured) at 1280 and
// 390 px: the ticket's e-mail is there, its HTML framed with the QR code
// loaded from the message's own part, and axe-core finds nothing wrong
// with the mailbox's pages.
func TestBrowserTicketMail(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{})
	show := s.newShow(4, 6)

	tb := s.openTab(t, browser, "mail-desktop", desktop)
	email := tb.signUp("Mira")
	code := tb.buy(email, show, "B3")
	wantText(t, "the return page", tb.Text("[data-mailed-to]"), "Your tickets are on their way to "+email)
	s.eventually("the ticket mail kept", `SELECT count(*) = 1 FROM dev_mailbox WHERE recipient = $1 AND subject LIKE 'Your tickets:%'`, email)

	phoneTab := s.openTab(t, browser, "mail-phone", phone)
	phoneTab.logIn(email)
	for _, tab := range []*tab{tb, phoneTab} {
		tab.open("/")
		tab.click(`footer a[href="/dev/mailbox"]`)
		tab.waitVisible("[data-mailbox]")
		wantText(t, "the mailbox", tab.Text("[data-mailbox]"), "Your tickets: ", "To "+email)
		tab.axe("the dev mailbox")
		tab.noSidewaysScroll("the dev mailbox")
		tab.click("[data-mailbox] a")
		tab.waitVisible("iframe[data-mail-html]")
		wantText(t, "the message's heading", tab.Text("h1"), "Your tickets: ")
		tab.click("details:has([data-mail-text]) summary")
		wantText(t, "the plain-text part", tab.Text("[data-mail-text]"), "Ticket code: "+code, "Seats: B3")
		// The framed HTML shows the QR code, the message's own PNG part
		// (the frame is sandboxed: the page cannot look inside, so the test
		// fetches what it shows, and the part apart).
		qr := run(tab, "fetch the QR code the message shows", chromedp.Evaluate[bool](`(async () => {
			const html = await (await fetch(document.querySelector("iframe[data-mail-html]").src)).text();
			// Read as text: parsed here, its inline styles would meet this
			// page's policy.
			const img = html.match(/<img src="data:image\/png;base64,([^"]+)"[^>]*alt="QR code of ticket/);
			const part = document.querySelector('a[href*="/parts/"][download$=".png"]');
			if (!img || !part) return false;
			const png = await fetch(part.href);
			const bytes = new Uint8Array(await png.arrayBuffer());
			return png.ok && png.headers.get("content-type") === "image/png" && btoa(String.fromCharCode(...bytes)) === img[1] &&
				html.includes(`+jsString(code)+`);
		})()`, chromedp.EvalAwaitPromise))
		if !qr {
			t.Fatalf("%s: the framed HTML does not show the QR code from the message's own part", tab.name)
		}
		tab.axe("a message of the dev mailbox")
		tab.noSidewaysScroll("a message of the dev mailbox")
		tab.shot("ticket-mail")
	}

	// Someone else's mailbox does not have it, nor can they open it.
	other := s.openTab(t, browser, "mail-other", desktop)
	other.signUp("Noor")
	other.open("/dev/mailbox")
	other.waitVisible("[data-mailbox-empty]")
	id := scalar[int64](s, `SELECT id FROM dev_mailbox WHERE recipient = $1`, email)
	other.open("/dev/mailbox/" + strconv.FormatInt(id, 10))
	wantText(t, "another's message", other.Text("main"), "There is no message")
}

// TestBrowserBookingMailsAdmin: a platform admin finds a booking by its
// ticket code, sees its ticket mail sent, resends it, and sees the jobs
// page; axe-core finds nothing wrong with these pages at 1280 and 390 px.
func TestBrowserBookingMailsAdmin(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s, admin := adminSite(t, siteConfig{})
	show := s.newShow(4, 6)
	buyer := s.openTab(t, browser, "mail-buyer", desktop)
	email := buyer.signUp("Ana")
	code := buyer.buy(email, show, "C2")
	s.eventually("the ticket mail sent", `SELECT count(*) = 1 FROM mails WHERE recipient = $1 AND status = 'SENT'`, email)

	ad := s.adminTab(t, browser, "mail-admin", admin, desktop)
	ad.open("/admin")
	ad.click(`nav[aria-label="Admin"] a[href="/admin/bookings"]`)
	ad.waitVisible("#booking-q")
	ad.lookLoaded("find a booking")
	ad.typeInto("booking-q", code)
	ad.press("\r")
	ad.waitVisible("[data-mails]")
	wantText(t, "the booking's mails", ad.Text(`[data-mail="sent"]`), "Ticket", "Sent", "To "+email)
	ad.lookLoaded("a booking with its mails")
	ad.click(`form[action$="/resend"] button`)
	ad.waitVisible(`[data-notice="success"]`)
	s.eventually("the ticket resent", `SELECT count(*) = 2 FROM dev_mailbox WHERE recipient = $1`, email)
	bookingID := scalar[string](s, `SELECT id::text FROM bookings WHERE code = $1`, code)
	ad.open("/admin/bookings/" + bookingID)
	wantText(t, "the booking's mails", ad.Text("[data-mails]"), "Ticket (resent)")
	ad.open("/admin/jobs?state=completed")
	ad.waitVisible("[data-jobs]")
	wantText(t, "the jobs done", ad.Text("[data-jobs]"), "mail", "sandbox_webhook")
	ad.lookLoaded("the jobs page")

	s.lookOnPhone(t, browser, "mail-admin-phone", admin, []string{"/admin/bookings", "/admin/bookings/" + bookingID, "/admin/jobs?state=completed"})
}

// buy holds seat of show as email (signed in here), pays at Sandbox Pay
// and waits for the booking; it returns the ticket's code.
func (tb *tab) buy(email string, show int64, seat string) string {
	tb.t.Helper()
	tb.holdAndCheckout(email, show, seat)
	tb.click(`#pay-form button[type=submit]`)
	tb.paymentState("booked", stepTimeout)
	return scalar[string](tb.site, `SELECT b.code FROM bookings b JOIN users u ON u.id = b.user_id WHERE u.email = $1 AND b.status = 'CONFIRMED'`, email)
}
