package api_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"
)

// A moviegoer's whole purchase over HTTP: sign up, browse, hold, pay through
// the signed webhook, see the ticket, cancel it for a refund.
func TestPurchaseFlow(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	c := e.Guest()
	guest := e.Guest()
	userID, email := c.Signup(t)

	t.Run("signed-up user is signed in", func(t *testing.T) {
		r := c.Get("/api/v1/me")
		webtest.Want(t, r, http.StatusOK)
		if r.Str("user_id") != userID || r.Str("email") != email {
			t.Fatalf("me = %s, want %s %s", r, userID, email)
		}
	})

	t.Run("the show is listed", func(t *testing.T) {
		r := c.Get("/api/v1/shows")
		webtest.Want(t, r, http.StatusOK)
		shows := r.JSON["shows"].([]any)
		if len(shows) != 1 {
			t.Fatalf("shows = %s, want one", r)
		}
		sh := shows[0].(map[string]any)
		if int64(sh["id"].(float64)) != e.Show || sh["movie"].(map[string]any)["title"] != "The Last Algorithm" ||
			sh["theatre"].(map[string]any)["city"] != "Testville" || sh["screen"].(map[string]any)["name"] == "" {
			t.Fatalf("show = %v", sh)
		}
		if _, err := time.Parse(time.RFC3339, sh["starts_at"].(string)); err != nil || !strings.HasSuffix(sh["starts_at"].(string), "Z") {
			t.Fatalf("starts_at %v is not RFC 3339 UTC", sh["starts_at"])
		}
	})

	t.Run("every seat is available", func(t *testing.T) {
		r := guest.Get(fmt.Sprintf("/api/v1/shows/%d/seats", e.Show))
		webtest.Want(t, r, http.StatusOK)
		seats := r.JSON["seats"].([]any)
		if len(seats) != 100 {
			t.Fatalf("%d seats, want 100", len(seats))
		}
		a1 := seats[0].(map[string]any)
		if a1["id"] != "A1" || a1["row"] != "A" || a1["number"] != 1.0 || a1["category"] != "STANDARD" ||
			a1["price_minor"] != 25000.0 || a1["currency"] != "INR" || a1["status"] != "AVAILABLE" {
			t.Fatalf("A1 = %v", a1)
		}
	})

	var hold *webtest.Response
	t.Run("hold two seats", func(t *testing.T) {
		before := time.Now()
		hold = c.HoldKey("flow-1", "A2", "A1")
		webtest.Want(t, hold, http.StatusCreated)
		if hold.Str("state") != "HELD" || !slices.Equal(hold.Strs("seats"), []string{"A1", "A2"}) ||
			hold.Num("amount_minor") != 50000 || hold.Str("currency") != "INR" ||
			int64(hold.Num("show_id")) != e.Show {
			t.Fatalf("hold = %s", hold)
		}
		exp, err := time.Parse(time.RFC3339, hold.Str("expires_at"))
		if err != nil || !strings.HasSuffix(hold.Str("expires_at"), "Z") {
			t.Fatalf("expires_at %q is not RFC 3339 UTC", hold.Str("expires_at"))
		}
		if exp.Before(before.Add(webtest.HoldTTL-time.Minute)) || exp.After(time.Now().Add(webtest.HoldTTL+time.Minute)) {
			t.Fatalf("expires_at %v, want about now + %v", exp, webtest.HoldTTL)
		}
		if loc := hold.Header.Get("Location"); loc != "/api/v1/holds/"+hold.Str("hold_id") {
			t.Fatalf("Location = %q", loc)
		}
	})

	t.Run("a retry with the same key replays the hold", func(t *testing.T) {
		r := c.HoldKey("flow-1", "A1", "A2")
		webtest.Want(t, r, http.StatusOK)
		if r.Str("hold_id") != hold.Str("hold_id") || r.Str("expires_at") != hold.Str("expires_at") {
			t.Fatalf("replay = %s, first = %s", r, hold)
		}
	})

	t.Run("the seat map shows the hold, as mine to its owner only", func(t *testing.T) {
		status, mine := c.SeatStatus(t)
		if status["A1"] != "HELD" || status["A2"] != "HELD" || status["A3"] != "AVAILABLE" || !mine["A1"] || !mine["A2"] || len(mine) != 2 {
			t.Fatalf("owner sees %v, mine %v", status, mine)
		}
		status, mine = guest.SeatStatus(t)
		if status["A1"] != "HELD" || len(mine) != 0 {
			t.Fatalf("guest sees %v, mine %v", status, mine)
		}
	})

	t.Run("get the hold", func(t *testing.T) {
		r := c.Get("/api/v1/holds/" + hold.Str("hold_id"))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("state") != "HELD" || r.Str("hold_id") != hold.Str("hold_id") {
			t.Fatalf("hold = %s", r)
		}
	})

	t.Run("checkout gives the sandbox's address", func(t *testing.T) {
		r := c.Post("/api/v1/holds/"+hold.Str("hold_id")+"/checkout", nil)
		webtest.Want(t, r, http.StatusCreated)
		if got := r.Str("checkout_url"); !regexp.MustCompile(`^` + webtest.PublicURL + `/sandbox/checkout/cs_[0-9a-f]{32}$`).MatchString(got) {
			t.Fatalf("checkout_url = %q, want a sandbox checkout of %s", got, webtest.PublicURL)
		}
	})

	var paid *webtest.Response
	t.Run("a signed successful payment books the seats", func(t *testing.T) {
		paid = e.Pay(t, hold)
		if paid.Str("hold_id") != hold.Str("hold_id") || paid.Str("payment_id") == "" {
			t.Fatalf("payment = %s", paid)
		}
		status, _ := guest.SeatStatus(t)
		if status["A1"] != "BOOKED" || status["A2"] != "BOOKED" {
			t.Fatalf("seat map after payment: %v", status)
		}
		r := c.Get("/api/v1/holds/" + hold.Str("hold_id"))
		if r.Str("state") != "CONFIRMED" {
			t.Fatalf("hold after payment = %s", r)
		}
	})

	t.Run("a paid hold cannot be released", func(t *testing.T) {
		webtest.WantError(t, c.Delete("/api/v1/holds/"+hold.Str("hold_id")), http.StatusConflict, "hold_confirmed")
	})

	bookingPath := ""
	t.Run("the booking is listed and readable", func(t *testing.T) {
		r := c.Get("/api/v1/bookings")
		webtest.Want(t, r, http.StatusOK)
		list := r.JSON["bookings"].([]any)
		if len(list) != 1 {
			t.Fatalf("bookings = %s", r)
		}
		b := list[0].(map[string]any)
		if b["booking_id"] != paid.Str("booking_id") {
			t.Fatalf("listed booking %v, want %s", b["booking_id"], paid.Str("booking_id"))
		}
		bookingPath = "/api/v1/bookings/" + paid.Str("booking_id")
		r = c.Get(bookingPath)
		webtest.Want(t, r, http.StatusOK)
		if r.Str("status") != "CONFIRMED" || r.Str("hold_id") != hold.Str("hold_id") ||
			int64(r.Num("show_id")) != e.Show || !slices.Equal(r.Strs("seats"), []string{"A1", "A2"}) ||
			r.Num("amount_minor") != 50000 || r.Str("currency") != "INR" ||
			r.Str("payment_id") != paid.Str("payment_id") || len(r.Str("code")) < 8 || r.Str("created_at") == "" {
			t.Fatalf("booking = %s", r)
		}
		if _, ok := r.JSON["refund"]; ok {
			t.Fatalf("a confirmed booking has a refund: %s", r)
		}
	})

	var cancelled *webtest.Response
	t.Run("cancel the booking for a full refund", func(t *testing.T) {
		cancelled = c.Post(bookingPath+"/cancel", nil)
		webtest.Want(t, cancelled, http.StatusOK)
		refund, _ := cancelled.JSON["refund"].(map[string]any)
		if cancelled.Str("status") != "CANCELLED" || refund == nil ||
			refund["amount_minor"] != 50000.0 || refund["status"] != "PENDING" {
			t.Fatalf("cancelled = %s", cancelled)
		}
		status, _ := guest.SeatStatus(t)
		if status["A1"] != "AVAILABLE" || status["A2"] != "AVAILABLE" {
			t.Fatalf("seats after cancel: %v", status)
		}
	})

	t.Run("a second cancel answers the same", func(t *testing.T) {
		r := c.Post(bookingPath+"/cancel", "{}")
		webtest.Want(t, r, http.StatusOK)
		if r.Str("status") != "CANCELLED" || fmt.Sprint(r.JSON["refund"]) != fmt.Sprint(cancelled.JSON["refund"]) {
			t.Fatalf("second cancel = %s, first = %s", r, cancelled)
		}
		if n := e.Count(t, `SELECT count(*) FROM refunds`); n != 1 {
			t.Fatalf("%d refunds, want 1", n)
		}
	})
}
