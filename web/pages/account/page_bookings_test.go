package account_test

import (
	"bytes"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestBookingsPages(t *testing.T) {
	e := webtest.NewEnv(t)
	b, id := e.Booked(t, "A1", "A2")
	stranger := e.PageUser(t)

	t.Run("My bookings lists the upcoming booking", func(t *testing.T) {
		p := b.Get(t, "/bookings")
		webtest.Want200(t, p)
		card := "#booking-" + id
		if !p.Has("#upcoming-title") || !p.Has(card) {
			t.Fatalf("no upcoming booking: %s", p.Text("main"))
		}
		text := p.Text(card)
		for _, s := range []string{"The Last Algorithm", "Test Cinema", "A1, A2", "₹500", "Confirmed", "IST"} {
			if !strings.Contains(text, s) {
				t.Errorf("card lacks %q: %s", s, text)
			}
		}
		if p.Attr(card+` a[href="/bookings/`+id+`"]`, "href") == "" || p.Attr(card+` a[hx-get="/bookings/`+id+`/cancel"]`, "hx-target") != "#cancel-"+id {
			t.Error("no ticket link or cancel button")
		}
	})

	t.Run("the e-ticket shows the show, seats, amount and QR code", func(t *testing.T) {
		p := b.Get(t, "/bookings/"+id)
		webtest.Want200(t, p)
		text := p.Text("article")
		for _, s := range []string{"The Last Algorithm", "Test Cinema", "A1, A2", "₹500", "IST"} {
			if !strings.Contains(text, s) {
				t.Errorf("ticket lacks %q: %s", s, text)
			}
		}
		var code string
		if err := e.Store.Pool().QueryRow(t.Context(), `SELECT code FROM bookings WHERE id = $1`, id).Scan(&code); err != nil {
			t.Fatal(err)
		}
		if p.Text("#ticket-code") != code || p.Attr("img[alt^='QR code']", "src") != "/bookings/"+id+"/qr.png" {
			t.Fatalf("code %q img %q", p.Text("#ticket-code"), p.Attr("img[alt^='QR code']", "src"))
		}
		if !p.Has("button[data-print]") {
			t.Error("no print button")
		}
		qr := b.Send(t, "GET", "/bookings/"+id+"/qr.png", nil, nil)
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
			webtest.WantFriendly(t, stranger.Get(t, path), http.StatusNotFound)
		}
		p := stranger.HtmxPost(t, "/bookings/"+id+"/cancel", nil)
		webtest.WantFriendly(t, p, http.StatusNotFound)
		if e.Count(t, `SELECT count(*) FROM bookings WHERE id = $1 AND status = 'CONFIRMED'`, id) != 1 {
			t.Fatal("a stranger cancelled the booking")
		}
		if p := stranger.Get(t, "/bookings"); strings.Contains(p.Body, id) {
			t.Fatal("a stranger's list shows the booking")
		}
	})

	t.Run("guests are sent to log in", func(t *testing.T) {
		for _, path := range []string{"/bookings", "/bookings/" + id} {
			webtest.WantSeeOther(t, e.Browser().Get(t, path), "/login?next="+url.QueryEscape(path))
		}
	})

	t.Run("cancelling shows the refund first, then cancels", func(t *testing.T) {
		p := b.HtmxGet(t, "/bookings/"+id+"/cancel")
		webtest.Want200(t, p)
		if strings.Contains(p.Body, "<html") || !strings.Contains(p.Text("[data-cancel-preview]"), "refunds ₹500") {
			t.Fatalf("preview: %s", p)
		}
		if e.Count(t, `SELECT count(*) FROM bookings WHERE id = $1 AND status = 'CONFIRMED'`, id) != 1 {
			t.Fatal("the preview cancelled the booking")
		}
		page := b.Get(t, "/bookings/"+id+"/cancel")
		webtest.Want200(t, page)
		if !page.Has("h1") || page.Attr(`form[action="/bookings/`+id+`/cancel"]`, "method") != "post" {
			t.Fatal("no cancel page without htmx")
		}
		webtest.WantFriendly(t, b.Send(t, "POST", "/bookings/"+id+"/cancel", url.Values{}, map[string]string{"HX-Request": "true"}), http.StatusForbidden)
		p = b.HtmxPost(t, "/bookings/"+id+"/cancel", nil)
		webtest.Want200(t, p)
		if !strings.Contains(p.Text("#booking-"+id), "Cancelled") || !strings.Contains(p.Text("#booking-"+id), "Refund of ₹500") {
			t.Fatalf("after cancel: %s", p.Text("#booking-"+id))
		}
		again := b.HtmxPost(t, "/bookings/"+id+"/cancel", nil)
		webtest.Want200(t, again)
		if e.Count(t, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id) != 1 {
			t.Fatal("cancelling twice refunded twice")
		}
		list := b.Get(t, "/bookings")
		if !strings.Contains(list.Text("#past-title"), "Past") || !list.Has("#booking-"+id) {
			t.Fatalf("the cancelled booking is not under past: %s", list.Text("main"))
		}
		ticket := b.Get(t, "/bookings/"+id)
		if !strings.Contains(ticket.Text("article"), "cancelled") || ticket.Has("img[alt^='QR code']") {
			t.Fatal("a cancelled ticket still shows its QR code")
		}
		if qr := b.Get(t, "/bookings/"+id+"/qr.png"); qr.Status != http.StatusNotFound {
			t.Fatalf("qr of a cancelled booking: %d", qr.Status)
		}
	})
}
