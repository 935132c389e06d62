package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// TestCustomerServicePages: the box office finds bookings by name, refunds
// one by the policy after being told a reason is needed, records a counter
// refund handed back, and moves a booking to another show, first onto a
// taken seat.
func TestCustomerServicePages(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	api, u := e.Staff(t, auth.StaffBoxOffice, e.Venue.TheatreID)
	desk := e.Browser()
	desk.Token(t)
	webtest.Want(t, desk.API().Login(u.Email), http.StatusOK)
	sell := func(seat, name string) string {
		r := api.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/sales", e.Show),
			Header: map[string]string{"Idempotency-Key": "sell-" + seat},
			Body:   map[string]any{"seats": []string{seat}, "paid_by": "cash", "customer": map[string]any{"name": name}}})
		webtest.Want(t, r, http.StatusCreated)
		return r.Str("booking_id")
	}
	hopper, kelly := sell("E1", "Grace Hopper"), sell("E2", "Grace Kelly")

	t.Run("a name found twice lists both; once, opens the booking", func(t *testing.T) {
		p := desk.Get(t, "/admin/bookings?q=grace")
		webtest.Want200(t, p)
		if n := p.Doc.Find("[data-found-booking]").Length(); n != 2 || !strings.Contains(p.Text("[data-found]"), "Grace Kelly") {
			t.Fatalf("found %d: %q", n, p.Text("[data-found]"))
		}
		webtest.WantSeeOther(t, desk.Get(t, "/admin/bookings?q=hopper"), "/admin/bookings/"+hopper)
		p = desk.Get(t, "/admin/bookings?q=x")
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text("#booking-q-error"), "at least 2 letters") {
			t.Fatalf("one letter: %q", p.Text("#booking-q-error"))
		}
	})

	t.Run("refund by the policy: a reason first", func(t *testing.T) {
		_, id := e.Booked(t, "C3")
		path := "/admin/bookings/" + id
		p := desk.Get(t, path)
		if !strings.Contains(p.Text("[data-policy-refund]"), "(100%)") {
			t.Fatalf("policy refund %q", p.Text("[data-policy-refund]"))
		}
		p = desk.Submit(t, path+"/refund", url.Values{"full": {"false"}, "reason": {" "}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text("#refund-reason-error"), "Say why") || e.Count(t, `SELECT count(*) FROM refunds WHERE booking_id = $1`, id) != 0 {
			t.Fatalf("no reason: %q", p.Text("#refund-reason-error"))
		}
		webtest.WantSeeOther(t, desk.Submit(t, path+"/refund", url.Values{"full": {"false"}, "reason": {"Double booked by mistake"}}), path+"?done=refund")
		p = desk.Get(t, path+"?done=refund")
		if p.Text("[data-booking-status]") != "Cancelled by the theatre" || !strings.Contains(p.Text(`[data-notice="success"]`), "Booking refunded") ||
			p.Has(`form[action="`+path+`/refund"]`) {
			t.Fatalf("after the refund: %q / %q", p.Text("[data-booking-status]"), p.Text("[data-notice]"))
		}
	})

	t.Run("a counter refund is owed until recorded as handed back", func(t *testing.T) {
		path := "/admin/bookings/" + kelly
		webtest.WantSeeOther(t, desk.Submit(t, path+"/refund", url.Values{"full": {"true"}, "reason": {"Wrong day"}}), path+"?done=refund")
		p := desk.Get(t, path)
		if !p.Has("[data-counter-refund]") {
			t.Fatal("no refund owed at the counter")
		}
		webtest.WantSeeOther(t, desk.Submit(t, path+"/refund/paid", url.Values{}), path+"?done=handed-back")
		if p := desk.Get(t, path); p.Has("[data-counter-refund]") {
			t.Fatal("still owed after it was handed back")
		}
		// Again: nothing owed, nothing changes.
		p = desk.Submit(t, "/admin/bookings/"+hopper+"/refund/paid", url.Values{})
		webtest.WantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.Text(`[data-notice="error"]`), "owes no refund") {
			t.Fatalf("nothing owed: %q", p.Text("[data-notice]"))
		}
	})

	t.Run("move to another show, first onto a taken seat", func(t *testing.T) {
		to := e.NewShow(t)
		e.Book(t, to, "C5")
		_, id := e.Booked(t, "C4")
		path := "/admin/bookings/" + id
		if p := desk.Get(t, path); !p.Has(fmt.Sprintf(`#move-show_id option[value="%d"]`, to)) {
			t.Fatal("the other show is not offered")
		}
		p := desk.Submit(t, path+"/move", url.Values{"show_id": {fmt.Sprint(to)}, "seats": {"c5"}})
		webtest.WantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.Text("#move-seats-error"), "Taken: C5") || p.Attr("#move-seats", "value") != "c5" {
			t.Fatalf("taken seat: %q (field %q)", p.Text("#move-seats-error"), p.Attr("#move-seats", "value"))
		}
		webtest.WantSeeOther(t, desk.Submit(t, path+"/move", url.Values{"show_id": {fmt.Sprint(to)}, "seats": {"c6"}}), path+"?done=move")
		if show := e.Count(t, `SELECT show_id FROM bookings WHERE id = $1`, id); show != to {
			t.Fatalf("the booking is for show %d, want %d", show, to)
		}
	})
}
