package adminapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// callers are the env's show's theatre admin, a platform admin, the admin
// of another theatre and a moviegoer.
type callers struct {
	admin, platform, stranger, moviegoer *webtest.Client
}

func newCallers(t *testing.T, e *webtest.Env) callers {
	other := pgtest.NewVenue(t, e.Store)
	return callers{
		admin:     e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID),
		platform:  e.Admin(t, auth.RolePlatformAdmin),
		stranger:  e.Admin(t, auth.RoleTheatreAdmin, other.TheatreID),
		moviegoer: e.User(t),
	}
}

func showPath(show int64, tail string) string {
	return fmt.Sprintf("/api/v1/admin/shows/%d%s", show, tail)
}

func seatsBody(seats ...string) map[string][]string { return map[string][]string{"seats": seats} }

func block(c *webtest.Client, show int64, seats ...string) *webtest.Response {
	return c.Post(showPath(show, "/blocks"), seatsBody(seats...))
}

func unblock(c *webtest.Client, show int64, seats ...string) *webtest.Response {
	return c.Send(webtest.Req{Method: http.MethodDelete, Path: showPath(show, "/blocks"), Body: seatsBody(seats...)})
}

// wantRefusedByEveryoneElse checks that a guest (401), a moviegoer (403)
// and the admin of another theatre (404) are refused req, which changes
// nothing.
func wantRefusedByEveryoneElse(t *testing.T, e *webtest.Env, who callers, req webtest.Req) {
	t.Helper()
	before := e.Snapshot(t)
	webtest.WantError(t, e.Guest().Send(req), http.StatusUnauthorized, "unauthenticated")
	webtest.WantError(t, who.moviegoer.Send(req), http.StatusForbidden, "forbidden")
	webtest.WantError(t, who.stranger.Send(req), http.StatusNotFound, "not_found")
	if after := e.Snapshot(t); after != before {
		t.Fatalf("a refused %s %s changed %s -> %s", req.Method, req.Path, before, after)
	}
}

func TestBlockSeatsAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	who := newCallers(t, e)

	t.Run("the show's admin blocks seats; moviegoers see them not for sale", func(t *testing.T) {
		r := block(who.admin, e.Show, "A2", "A1")
		webtest.Want(t, r, http.StatusOK)
		if int64(r.Num("show_id")) != e.Show || !slices.Equal(r.Strs("blocked"), []string{"A1", "A2"}) {
			t.Fatalf("block = %s", r)
		}
		status, _ := who.moviegoer.SeatStatus(t)
		if status["A1"] != "BLOCKED" || status["A2"] != "BLOCKED" || status["A3"] != "AVAILABLE" {
			t.Fatalf("public seat map: A1 %s A2 %s A3 %s", status["A1"], status["A2"], status["A3"])
		}
		webtest.WantError(t, who.moviegoer.Hold("A1"), http.StatusConflict, "seats_unavailable")

		p := e.Browser().HtmxGet(t, fmt.Sprintf("/shows/%d/seatmap", e.Show))
		webtest.Want200(t, p)
		if p.Attr("#seat-A1", "data-status") != "blocked" || p.Attr("#seat-A1", "aria-disabled") != "true" || p.Has("#seat-A1[aria-pressed]") {
			t.Fatalf("A1 on the seat map: status %q disabled %q", p.Attr("#seat-A1", "data-status"), p.Attr("#seat-A1", "aria-disabled"))
		}
		if label := p.Attr("#seat-A1", "aria-label"); !strings.HasSuffix(label, ", not for sale") {
			t.Fatalf("A1 label = %q, want it to say not for sale", label)
		}
		if !strings.Contains(p.Text("[aria-label='Seat states']"), "Not for sale") {
			t.Fatalf("the legend does not explain blocked seats: %q", p.Text("[aria-label='Seat states']"))
		}
		if p.Attr("#seat-A3", "data-status") != "available" {
			t.Fatalf("A3 on the seat map = %q", p.Attr("#seat-A3", "data-status"))
		}
	})
	t.Run("blocking again is harmless; a platform admin may block too", func(t *testing.T) {
		r := block(who.platform, e.Show, "A1", "A5")
		webtest.Want(t, r, http.StatusOK)
		if !slices.Equal(r.Strs("blocked"), []string{"A1", "A5"}) {
			t.Fatalf("block = %s", r)
		}
	})
	t.Run("a held or sold seat is refused by name, and nothing changes", func(t *testing.T) {
		e.Pay(t, e.User(t).MustHold(t, "B1"))
		e.User(t).MustHold(t, "B2")
		before := e.Snapshot(t)
		r := block(who.admin, e.Show, "B1", "B2", "B3")
		webtest.WantError(t, r, http.StatusConflict, "seats_unavailable")
		if !slices.Equal(r.Strs("seats"), []string{"B1", "B2"}) {
			t.Fatalf("seats named = %v, want [B1 B2]", r.Strs("seats"))
		}
		if after := e.Snapshot(t); after != before {
			t.Fatalf("refused block changed %s -> %s", before, after)
		}
	})
	t.Run("bad input is refused and changes nothing", func(t *testing.T) {
		before := e.Snapshot(t)
		path := showPath(e.Show, "/blocks")
		for _, c := range []struct {
			name   string
			req    webtest.Req
			status int
			code   string
		}{
			{"unknown seats", webtest.Req{Method: "POST", Path: path, Body: seatsBody("C1", "Z99")}, 422, "unknown_seats"},
			{"no seats", webtest.Req{Method: "POST", Path: path, Body: seatsBody()}, 422, "no_seats"},
			{"duplicate seats", webtest.Req{Method: "POST", Path: path, Body: seatsBody("C1", "C1")}, 422, "duplicate_seats"},
			{"a bad seat id", webtest.Req{Method: "POST", Path: path, Body: seatsBody("C1; DROP")}, 422, "invalid_seat"},
			{"no body", webtest.Req{Method: "POST", Path: path}, 400, "body_required"},
			{"not JSON", webtest.Req{Method: "POST", Path: path, Body: "seats=C1"}, 400, "malformed_json"},
			{"an unknown field", webtest.Req{Method: "POST", Path: path, Body: `{"seats":["C1"],"all":true}`}, 400, "unknown_field"},
			{"seats not a list", webtest.Req{Method: "POST", Path: path, Body: `{"seats":"C1"}`}, 400, "invalid_field_type"},
			{"a text body", webtest.Req{Method: "POST", Path: path, Body: strings.NewReader(`{"seats":["C1"]}`), Header: map[string]string{"Content-Type": "text/plain"}}, 415, "unsupported_media_type"},
			{"a show id that is no number", webtest.Req{Method: "POST", Path: "/api/v1/admin/shows/abc/blocks", Body: seatsBody("C1")}, 404, "not_found"},
			{"a show that does not exist", webtest.Req{Method: "POST", Path: showPath(e.Show+1000, "/blocks"), Body: seatsBody("C1")}, 404, "not_found"},
			{"unblock unknown seats", webtest.Req{Method: "DELETE", Path: path, Body: seatsBody("Z99")}, 422, "unknown_seats"},
			{"unblock without a body", webtest.Req{Method: "DELETE", Path: path}, 400, "body_required"},
		} {
			webtest.WantError(t, who.admin.Send(c.req), c.status, c.code)
		}
		if after := e.Snapshot(t); after != before {
			t.Fatalf("bad input changed %s -> %s", before, after)
		}
		if status, _ := who.moviegoer.SeatStatus(t); status["C1"] != "AVAILABLE" {
			t.Fatalf("C1 = %s after refused requests", status["C1"])
		}
	})
	t.Run("only the show's admins may block or unblock", func(t *testing.T) {
		wantRefusedByEveryoneElse(t, e, who, webtest.Req{Method: "POST", Path: showPath(e.Show, "/blocks"), Body: seatsBody("D1")})
		wantRefusedByEveryoneElse(t, e, who, webtest.Req{Method: "DELETE", Path: showPath(e.Show, "/blocks"), Body: seatsBody("A1")})
	})
	t.Run("unblocking puts blocked seats back on sale and leaves others alone", func(t *testing.T) {
		r := unblock(who.admin, e.Show, "A1", "B1", "A9")
		webtest.Want(t, r, http.StatusOK)
		if !slices.Equal(r.Strs("unblocked"), []string{"A1"}) {
			t.Fatalf("unblock = %s, want [A1]", r)
		}
		status, _ := who.moviegoer.SeatStatus(t)
		if status["A1"] != "AVAILABLE" || status["A2"] != "BLOCKED" || status["B1"] != "BOOKED" {
			t.Fatalf("after unblock: A1 %s A2 %s B1 %s", status["A1"], status["A2"], status["B1"])
		}
		again := unblock(who.admin, e.Show, "A1")
		webtest.Want(t, again, http.StatusOK)
		if len(again.Strs("unblocked")) != 0 {
			t.Fatalf("second unblock = %s, want nothing unblocked", again)
		}
		webtest.Want(t, e.User(t).Hold("A1"), http.StatusCreated)
	})
	t.Run("every change is in the audit log", func(t *testing.T) {
		if n := e.Count(t, `SELECT count(*) FROM audit_log WHERE action IN ('show.block_seats', 'show.unblock_seats') AND theatre_id = $1`, e.Venue.TheatreID); n != 3 {
			t.Fatalf("%d audit entries, want 3 (two blocks, one unblock)", n)
		}
	})
}

func TestShowStatusAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	who := newCallers(t, e)
	e.Pay(t, e.User(t).MustHold(t, "J1", "J2")) // PREMIUM, 2 x 45000
	e.User(t).MustHold(t, "A1")
	webtest.Want(t, block(who.admin, e.Show, "E5"), http.StatusOK)

	for name, c := range map[string]*webtest.Client{"theatre admin": who.admin, "platform admin": who.platform} {
		r := c.Get(showPath(e.Show, ""))
		webtest.Want(t, r, http.StatusOK)
		counts, _ := r.JSON["counts"].(map[string]any)
		got := fmt.Sprintf("%v %v %v %v", counts["available"], counts["held"], counts["booked"], counts["blocked"])
		if got != "96 1 2 1" || int64(r.Num("show_id")) != e.Show || r.Str("status") != "SCHEDULED" ||
			r.Num("revenue_minor") != 90000 || r.Num("refunds_owed_minor") != 0 || r.Num("refunds_paid_minor") != 0 ||
			r.Str("currency") != "INR" || r.Str("movie_title") != "The Last Algorithm" {
			t.Fatalf("%s: occupancy = %s (counts %s)", name, r, got)
		}
		if _, err := time.Parse(time.RFC3339, r.Str("starts_at")); err != nil {
			t.Fatalf("starts_at %q: %v", r.Str("starts_at"), err)
		}
	}
	wantRefusedByEveryoneElse(t, e, who, webtest.Req{Method: "GET", Path: showPath(e.Show, "")})
	webtest.WantError(t, who.admin.Get("/api/v1/admin/shows/0"), http.StatusNotFound, "not_found")
	webtest.WantError(t, who.platform.Get(showPath(e.Show+1000, "")), http.StatusNotFound, "not_found")
}

func TestCancelShowAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	who := newCallers(t, e)
	buyer, bookingID := e.Booked(t, "C3", "C4")
	amount := 2 * 25000
	holder := e.User(t)
	late := holder.MustHold(t, "D1")

	t.Run("only the show's admins may cancel it", func(t *testing.T) {
		wantRefusedByEveryoneElse(t, e, who, webtest.Req{Method: "POST", Path: showPath(e.Show, "/cancel")})
		webtest.WantError(t, who.admin.Post(showPath(e.Show, "/cancel"), `{"now":true}`), http.StatusBadRequest, "unknown_field")
		webtest.WantError(t, who.admin.Post("/api/v1/admin/shows/-1/cancel", nil), http.StatusNotFound, "not_found")
	})
	t.Run("the show is cancelled: holds released, bookings refunded", func(t *testing.T) {
		r := who.admin.Post(showPath(e.Show, "/cancel"), nil)
		webtest.Want(t, r, http.StatusOK)
		want := fmt.Sprintf(`{"bookings_refunded":1,"holds_released":1,"show_id":%d,"status":"CANCELLED"}`, e.Show)
		if got := strings.TrimSpace(string(r.Body)); got != want {
			t.Fatalf("cancel = %s, want %s", got, want)
		}
		again := who.platform.Post(showPath(e.Show, "/cancel"), nil)
		webtest.Want(t, again, http.StatusOK)
		if string(again.Body) != string(r.Body) {
			t.Fatalf("cancel again = %s, want %s", again.Body, r.Body)
		}
	})
	t.Run("the moviegoer's booking reads cancelled by the theatre with a full refund", func(t *testing.T) {
		r := buyer.API().Get("/api/v1/bookings/" + bookingID)
		webtest.Want(t, r, http.StatusOK)
		refund, _ := r.JSON["refund"].(map[string]any)
		if r.Str("status") != "CANCELLED" || r.Str("cancelled_by") != "theatre" || refund == nil ||
			refund["amount_minor"] != float64(amount) || refund["status"] != "PENDING" {
			t.Fatalf("booking = %s", r)
		}
		list := buyer.Get(t, "/bookings")
		webtest.Want200(t, list)
		if !strings.Contains(list.Text("#booking-"+bookingID), "Cancelled by the theatre — full refund") {
			t.Fatalf("My bookings says %q", list.Text("#booking-"+bookingID))
		}
		ticket := buyer.Get(t, "/bookings/"+bookingID)
		webtest.Want200(t, ticket)
		if !strings.Contains(ticket.Text("[data-cancelled]"), "Cancelled by the theatre — full refund") {
			t.Fatalf("the ticket says %q", ticket.Text("[data-cancelled]"))
		}
	})
	t.Run("a payment arriving after the cancellation is refunded", func(t *testing.T) {
		r := e.Webhook(e.PaymentFor(late))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("outcome") != "REFUND_REQUIRED" {
			t.Fatalf("late payment = %s", r)
		}
	})
	t.Run("a cancelled show cannot be held, blocked or unblocked", func(t *testing.T) {
		webtest.WantError(t, holder.Hold("E1"), http.StatusNotFound, "not_found")
		webtest.WantError(t, block(who.admin, e.Show, "E1"), http.StatusConflict, "show_cancelled")
		webtest.WantError(t, unblock(who.admin, e.Show, "E1"), http.StatusConflict, "show_cancelled")
	})
	t.Run("its occupancy shows the refunds owed", func(t *testing.T) {
		r := who.admin.Get(showPath(e.Show, ""))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("status") != "CANCELLED" || r.Num("revenue_minor") != 0 || r.Num("refunds_owed_minor") != float64(amount+25000) {
			t.Fatalf("occupancy = %s", r)
		}
	})
}
