package web_test

import (
	"bytes"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// booked is a signed-in browser with one confirmed booking, and its id.
func (e *env) booked(t *testing.T, seats ...string) (*browser, string) {
	t.Helper()
	b := e.pageUser(t)
	h := b.api().mustHold(t, seats...)
	return b, e.pay(t, h).str("booking_id")
}

func TestBookingsPages(t *testing.T) {
	e := newEnv(t)
	b, id := e.booked(t, "A1", "A2")
	stranger := e.pageUser(t)

	t.Run("My bookings lists the upcoming booking", func(t *testing.T) {
		p := b.get(t, "/bookings")
		want200(t, p)
		card := "#booking-" + id
		if !p.has("#upcoming-title") || !p.has(card) {
			t.Fatalf("no upcoming booking: %s", p.text("main"))
		}
		text := p.text(card)
		for _, s := range []string{"The Last Algorithm", "Test Cinema", "A1, A2", "₹500", "Confirmed", "IST"} {
			if !strings.Contains(text, s) {
				t.Errorf("card lacks %q: %s", s, text)
			}
		}
		if p.attr(card+` a[href="/bookings/`+id+`"]`, "href") == "" || p.attr(card+` a[hx-get="/bookings/`+id+`/cancel"]`, "hx-target") != "#cancel-"+id {
			t.Error("no ticket link or cancel button")
		}
	})

	t.Run("the e-ticket shows the show, seats, amount and QR code", func(t *testing.T) {
		p := b.get(t, "/bookings/"+id)
		want200(t, p)
		text := p.text("article")
		for _, s := range []string{"The Last Algorithm", "Test Cinema", "A1, A2", "₹500", "IST"} {
			if !strings.Contains(text, s) {
				t.Errorf("ticket lacks %q: %s", s, text)
			}
		}
		var code string
		if err := e.store.Pool().QueryRow(t.Context(), `SELECT code FROM bookings WHERE id = $1`, id).Scan(&code); err != nil {
			t.Fatal(err)
		}
		if p.text("#ticket-code") != code || p.attr("img[alt^='QR code']", "src") != "/bookings/"+id+"/qr.png" {
			t.Fatalf("code %q img %q", p.text("#ticket-code"), p.attr("img[alt^='QR code']", "src"))
		}
		if !p.has("button[data-print]") {
			t.Error("no print button")
		}
		qr := b.send(t, "GET", "/bookings/"+id+"/qr.png", nil, nil)
		if qr.Status != 200 || qr.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("qr: %d %s", qr.Status, qr.Header.Get("Content-Type"))
		}
		img, err := png.Decode(bytes.NewReader([]byte(qr.Body)))
		if err != nil || img.Bounds().Dx() < 200 {
			t.Fatalf("qr image: %v", err)
		}
	})

	t.Run("another user's booking is not found, on every page", func(t *testing.T) {
		for _, path := range []string{"/bookings/" + id, "/bookings/" + id + "/qr.png", "/bookings/" + id + "/cancel", "/bookings/not-an-id"} {
			wantFriendly(t, stranger.get(t, path), http.StatusNotFound)
		}
		p := stranger.htmxPost(t, "/bookings/"+id+"/cancel", nil)
		wantFriendly(t, p, http.StatusNotFound)
		if e.count(t, `SELECT count(*) FROM bookings WHERE id = $1 AND status = 'CONFIRMED'`, id) != 1 {
			t.Fatal("a stranger cancelled the booking")
		}
		if p := stranger.get(t, "/bookings"); strings.Contains(p.Body, id) {
			t.Fatal("a stranger's list shows the booking")
		}
	})

	t.Run("guests are sent to log in", func(t *testing.T) {
		for _, path := range []string{"/bookings", "/bookings/" + id} {
			wantSeeOther(t, e.browser().get(t, path), "/login?next="+url.QueryEscape(path))
		}
	})

	t.Run("cancelling shows the refund first, then cancels", func(t *testing.T) {
		p := b.htmxGet(t, "/bookings/"+id+"/cancel")
		want200(t, p)
		if strings.Contains(p.Body, "<html") || !strings.Contains(p.text("[data-cancel-preview]"), "refunds ₹500") {
			t.Fatalf("preview: %s", p)
		}
		if e.count(t, `SELECT count(*) FROM bookings WHERE id = $1 AND status = 'CONFIRMED'`, id) != 1 {
			t.Fatal("the preview cancelled the booking")
		}
		page := b.get(t, "/bookings/"+id+"/cancel")
		want200(t, page)
		if !page.has("h1") || page.attr(`form[action="/bookings/`+id+`/cancel"]`, "method") != "post" {
			t.Fatal("no cancel page without htmx")
		}
		wantFriendly(t, b.send(t, "POST", "/bookings/"+id+"/cancel", url.Values{}, map[string]string{"HX-Request": "true"}), http.StatusForbidden)
		p = b.htmxPost(t, "/bookings/"+id+"/cancel", nil)
		want200(t, p)
		if !strings.Contains(p.text("#booking-"+id), "Cancelled") || !strings.Contains(p.text("#booking-"+id), "Refund of ₹500") {
			t.Fatalf("after cancel: %s", p.text("#booking-"+id))
		}
		again := b.htmxPost(t, "/bookings/"+id+"/cancel", nil)
		want200(t, again)
		if e.count(t, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id) != 1 {
			t.Fatal("cancelling twice refunded twice")
		}
		list := b.get(t, "/bookings")
		if !strings.Contains(list.text("#past-title"), "Past") || !list.has("#booking-"+id) {
			t.Fatalf("the cancelled booking is not under past: %s", list.text("main"))
		}
		ticket := b.get(t, "/bookings/"+id)
		if !strings.Contains(ticket.text("article"), "cancelled") || ticket.has("img[alt^='QR code']") {
			t.Fatal("a cancelled ticket still shows its QR code")
		}
		if qr := b.get(t, "/bookings/"+id+"/qr.png"); qr.Status != http.StatusNotFound {
			t.Fatalf("qr of a cancelled booking: %d", qr.Status)
		}
	})
}
