package adminapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// TestCustomerServiceAPI: find bookings by e-mail and name, refund one
// (again: the same answer), record a counter refund handed back, move one.
func TestCustomerServiceAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	desk, _ := e.Staff(t, auth.StaffBoxOffice, e.Venue.TheatreID)
	online := e.Book(t, e.Show, "B1", "B2")
	me := online.Owner.Get("/api/v1/me")
	email := me.Str("email")

	t.Run("find by e-mail and by name, with the customer", func(t *testing.T) {
		r := desk.Get(fmt.Sprintf("/api/v1/admin/bookings?theatre_id=%d&q=%s", e.Venue.TheatreID, strings.ToUpper(email)))
		webtest.Want(t, r, http.StatusOK)
		list := bookings(r)
		if len(list) != 1 {
			t.Fatalf("found %d: %s", len(list), r)
		}
		b := list[0].(map[string]any)
		customer, _ := b["customer"].(map[string]any)
		if b["booking_id"] != online.ID || b["channel"] != "online" || b["code"] != online.Code || customer["email"] != email {
			t.Fatalf("found %v", b)
		}
		sold := desk.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/sales", e.Show),
			Header: map[string]string{"Idempotency-Key": "api-cs"},
			Body:   map[string]any{"seats": []string{"B3"}, "paid_by": "card", "customer": map[string]any{"name": "Alan Turing"}}})
		webtest.Want(t, sold, http.StatusCreated)
		r = desk.Get("/api/v1/admin/bookings?q=turing")
		if list := bookings(r); len(list) != 1 || list[0].(map[string]any)["booking_id"] != sold.Str("booking_id") {
			t.Fatalf("by name: %s", r)
		}
		webtest.WantError(t, desk.Get("/api/v1/admin/bookings?q=a"), http.StatusUnprocessableEntity, "invalid_q")
		webtest.WantError(t, desk.Get("/api/v1/admin/bookings?theatre_id=x&q=turing"), http.StatusBadRequest, "invalid_theatre_id")
	})

	t.Run("refund in full, with a reason; again, the same answer", func(t *testing.T) {
		path := "/api/v1/admin/bookings/" + online.ID + "/refund"
		webtest.WantError(t, desk.Send(webtest.Req{Method: "POST", Path: path, Body: map[string]any{"reason": "r"}}),
			http.StatusUnprocessableEntity, "invalid_full")
		webtest.WantError(t, desk.Send(webtest.Req{Method: "POST", Path: path, Body: map[string]any{"full": true}}),
			http.StatusUnprocessableEntity, "invalid_reason")
		r := desk.Send(webtest.Req{Method: "POST", Path: path, Body: map[string]any{"full": true, "reason": "Show clash"}})
		webtest.Want(t, r, http.StatusOK)
		refund, _ := r.JSON["refund"].(map[string]any)
		if r.Str("status") != "CANCELLED" || r.Str("cancelled_by") != "theatre" || refund["amount_minor"] != r.JSON["amount_minor"] || refund["status"] != "PENDING" {
			t.Fatalf("refund = %s", r)
		}
		again := desk.Send(webtest.Req{Method: "POST", Path: path, Body: map[string]any{"full": false, "reason": "again"}})
		webtest.Want(t, again, http.StatusOK)
		if again2, _ := again.JSON["refund"].(map[string]any); again2["amount_minor"] != refund["amount_minor"] {
			t.Fatalf("again = %s", again)
		}
		// The moviegoer sees it cancelled by the theatre, refunded in full.
		mine := online.Owner.Get("/api/v1/bookings/" + online.ID)
		if mine.Str("status") != "CANCELLED" || mine.Str("cancelled_by") != "theatre" {
			t.Fatalf("the moviegoer's booking: %s", mine)
		}
		webtest.WantError(t, desk.Send(webtest.Req{Method: "POST", Path: path + "/paid"}), http.StatusConflict, "no_counter_refund")
	})

	t.Run("move to another show: seats of the same price only", func(t *testing.T) {
		to := e.NewShow(t)
		b := e.Book(t, e.Show, "C1")
		path := "/api/v1/admin/bookings/" + b.ID + "/move"
		webtest.WantError(t, desk.Send(webtest.Req{Method: "POST", Path: path, Body: map[string]any{"seats": []string{"C1"}}}),
			http.StatusUnprocessableEntity, "invalid_show_id")
		webtest.WantError(t, desk.Send(webtest.Req{Method: "POST", Path: path, Body: map[string]any{"show_id": e.Show, "seats": []string{"C2"}}}),
			http.StatusUnprocessableEntity, "same_show")
		// Row J of the 10x10 hall is its dearer category.
		webtest.WantError(t, desk.Send(webtest.Req{Method: "POST", Path: path, Body: map[string]any{"show_id": to, "seats": []string{"J1"}}}),
			http.StatusConflict, "price_differs")
		r := desk.Send(webtest.Req{Method: "POST", Path: path, Body: map[string]any{"show_id": to, "seats": []string{"C9"}}})
		webtest.Want(t, r, http.StatusOK)
		if int64(r.Num("show_id")) != to || r.Str("status") != "CONFIRMED" {
			t.Fatalf("moved = %s", r)
		}
		// The ticket's code names the new show; the owner sees the move.
		if mine := b.Owner.Get("/api/v1/bookings/" + b.ID); int64(mine.Num("show_id")) != to || mine.Str("code") == b.Code {
			t.Fatalf("the moviegoer's booking after the move: %s", mine)
		}
	})
}

func bookings(r *webtest.Response) []any {
	list, _ := r.JSON["bookings"].([]any)
	return list
}
