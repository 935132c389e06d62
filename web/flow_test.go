package web_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// A moviegoer's whole purchase over HTTP: sign up, browse, hold, pay through
// the signed webhook, see the ticket, cancel it for a refund.
func TestPurchaseFlow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.guest()
	guest := e.guest()
	userID, email := c.signup(t)

	t.Run("signed-up user is signed in", func(t *testing.T) {
		r := c.get("/api/v1/me")
		want(t, r, http.StatusOK)
		if r.str("user_id") != userID || r.str("email") != email {
			t.Fatalf("me = %s, want %s %s", r, userID, email)
		}
	})

	t.Run("the show is listed", func(t *testing.T) {
		r := c.get("/api/v1/shows")
		want(t, r, http.StatusOK)
		shows := r.JSON["shows"].([]any)
		if len(shows) != 1 {
			t.Fatalf("shows = %s, want one", r)
		}
		sh := shows[0].(map[string]any)
		if int64(sh["id"].(float64)) != e.show || sh["movie"].(map[string]any)["title"] != "The Last Algorithm" ||
			sh["theatre"].(map[string]any)["city"] != "Testville" || sh["screen"].(map[string]any)["name"] == "" {
			t.Fatalf("show = %v", sh)
		}
		if _, err := time.Parse(time.RFC3339, sh["starts_at"].(string)); err != nil || !strings.HasSuffix(sh["starts_at"].(string), "Z") {
			t.Fatalf("starts_at %v is not RFC 3339 UTC", sh["starts_at"])
		}
	})

	t.Run("every seat is available", func(t *testing.T) {
		r := guest.get(fmt.Sprintf("/api/v1/shows/%d/seats", e.show))
		want(t, r, http.StatusOK)
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

	var hold *response
	t.Run("hold two seats", func(t *testing.T) {
		before := time.Now()
		hold = c.holdKey("flow-1", "A2", "A1")
		want(t, hold, http.StatusCreated)
		if hold.str("state") != "HELD" || !slices.Equal(hold.strs("seats"), []string{"A1", "A2"}) ||
			hold.num("amount_minor") != 50000 || hold.str("currency") != "INR" ||
			int64(hold.num("show_id")) != e.show {
			t.Fatalf("hold = %s", hold)
		}
		exp, err := time.Parse(time.RFC3339, hold.str("expires_at"))
		if err != nil || !strings.HasSuffix(hold.str("expires_at"), "Z") {
			t.Fatalf("expires_at %q is not RFC 3339 UTC", hold.str("expires_at"))
		}
		if exp.Before(before.Add(holdTTL-time.Minute)) || exp.After(time.Now().Add(holdTTL+time.Minute)) {
			t.Fatalf("expires_at %v, want about now + %v", exp, holdTTL)
		}
		if loc := hold.Header.Get("Location"); loc != "/api/v1/holds/"+hold.str("hold_id") {
			t.Fatalf("Location = %q", loc)
		}
	})

	t.Run("a retry with the same key replays the hold", func(t *testing.T) {
		r := c.holdKey("flow-1", "A1", "A2")
		want(t, r, http.StatusOK)
		if r.str("hold_id") != hold.str("hold_id") || r.str("expires_at") != hold.str("expires_at") {
			t.Fatalf("replay = %s, first = %s", r, hold)
		}
	})

	t.Run("the seat map shows the hold, as mine to its owner only", func(t *testing.T) {
		status, mine := c.seatStatus(t)
		if status["A1"] != "HELD" || status["A2"] != "HELD" || status["A3"] != "AVAILABLE" || !mine["A1"] || !mine["A2"] || len(mine) != 2 {
			t.Fatalf("owner sees %v, mine %v", status, mine)
		}
		status, mine = guest.seatStatus(t)
		if status["A1"] != "HELD" || len(mine) != 0 {
			t.Fatalf("guest sees %v, mine %v", status, mine)
		}
	})

	t.Run("get the hold", func(t *testing.T) {
		r := c.get("/api/v1/holds/" + hold.str("hold_id"))
		want(t, r, http.StatusOK)
		if r.str("state") != "HELD" || r.str("hold_id") != hold.str("hold_id") {
			t.Fatalf("hold = %s", r)
		}
	})

	t.Run("checkout gives the sandbox's address", func(t *testing.T) {
		r := c.post("/api/v1/holds/"+hold.str("hold_id")+"/checkout", nil)
		want(t, r, http.StatusCreated)
		if got := r.str("checkout_url"); !regexp.MustCompile(`^` + publicURL + `/sandbox/checkout/cs_[0-9a-f]{32}$`).MatchString(got) {
			t.Fatalf("checkout_url = %q, want a sandbox checkout of %s", got, publicURL)
		}
	})

	var paid *response
	t.Run("a signed successful payment books the seats", func(t *testing.T) {
		paid = e.pay(t, hold)
		if paid.str("hold_id") != hold.str("hold_id") || paid.str("payment_id") == "" {
			t.Fatalf("payment = %s", paid)
		}
		status, _ := guest.seatStatus(t)
		if status["A1"] != "BOOKED" || status["A2"] != "BOOKED" {
			t.Fatalf("seat map after payment: %v", status)
		}
		r := c.get("/api/v1/holds/" + hold.str("hold_id"))
		if r.str("state") != "CONFIRMED" {
			t.Fatalf("hold after payment = %s", r)
		}
	})

	t.Run("a paid hold cannot be released", func(t *testing.T) {
		wantError(t, c.delete("/api/v1/holds/"+hold.str("hold_id")), http.StatusConflict, "hold_confirmed")
	})

	bookingPath := ""
	t.Run("the booking is listed and readable", func(t *testing.T) {
		r := c.get("/api/v1/bookings")
		want(t, r, http.StatusOK)
		list := r.JSON["bookings"].([]any)
		if len(list) != 1 {
			t.Fatalf("bookings = %s", r)
		}
		b := list[0].(map[string]any)
		if b["booking_id"] != paid.str("booking_id") {
			t.Fatalf("listed booking %v, want %s", b["booking_id"], paid.str("booking_id"))
		}
		bookingPath = "/api/v1/bookings/" + paid.str("booking_id")
		r = c.get(bookingPath)
		want(t, r, http.StatusOK)
		if r.str("status") != "CONFIRMED" || r.str("hold_id") != hold.str("hold_id") ||
			int64(r.num("show_id")) != e.show || !slices.Equal(r.strs("seats"), []string{"A1", "A2"}) ||
			r.num("amount_minor") != 50000 || r.str("currency") != "INR" ||
			r.str("payment_id") != paid.str("payment_id") || len(r.str("code")) < 8 || r.str("created_at") == "" {
			t.Fatalf("booking = %s", r)
		}
		if _, ok := r.JSON["refund"]; ok {
			t.Fatalf("a confirmed booking has a refund: %s", r)
		}
	})

	var cancelled *response
	t.Run("cancel the booking for a full refund", func(t *testing.T) {
		cancelled = c.post(bookingPath+"/cancel", nil)
		want(t, cancelled, http.StatusOK)
		refund, _ := cancelled.JSON["refund"].(map[string]any)
		if cancelled.str("status") != "CANCELLED" || refund == nil ||
			refund["amount_minor"] != 50000.0 || refund["status"] != "PENDING" {
			t.Fatalf("cancelled = %s", cancelled)
		}
		status, _ := guest.seatStatus(t)
		if status["A1"] != "AVAILABLE" || status["A2"] != "AVAILABLE" {
			t.Fatalf("seats after cancel: %v", status)
		}
	})

	t.Run("a second cancel answers the same", func(t *testing.T) {
		r := c.post(bookingPath+"/cancel", "{}")
		want(t, r, http.StatusOK)
		if r.str("status") != "CANCELLED" || fmt.Sprint(r.JSON["refund"]) != fmt.Sprint(cancelled.JSON["refund"]) {
			t.Fatalf("second cancel = %s, first = %s", r, cancelled)
		}
		if n := e.count(t, `SELECT count(*) FROM refunds`); n != 1 {
			t.Fatalf("%d refunds, want 1", n)
		}
	})
}
