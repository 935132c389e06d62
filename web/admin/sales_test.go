package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// salesPeople are the browsers of the env's show's theatre admin, a
// platform admin, the admin of another theatre and a moviegoer, each
// signed in.
type salesPeople struct {
	admin, platform, stranger, moviegoer *webtest.Browser
	adminEmail                           string
}

func salesBrowser(t *testing.T, e *webtest.Env, role auth.Role, theatres ...int64) (*webtest.Browser, string) {
	t.Helper()
	_, u := e.Account(t, role, theatres...)
	b := e.Browser()
	b.Token(t) // the CSRF cookie, while still a guest
	webtest.Want(t, b.API().Login(u.Email), http.StatusOK)
	return b, u.Email
}

func newSalesPeople(t *testing.T, e *webtest.Env) salesPeople {
	t.Helper()
	other := pgtest.NewVenue(t, e.Store)
	var p salesPeople
	p.admin, p.adminEmail = salesBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	p.platform, _ = salesBrowser(t, e, auth.RolePlatformAdmin)
	p.stranger, _ = salesBrowser(t, e, auth.RoleTheatreAdmin, other.TheatreID)
	p.moviegoer = e.PageUser(t)
	return p
}

func seatState(t *testing.T, e *webtest.Env, seat string) string {
	t.Helper()
	return pgtest.Scalar[string](t, e.Store.Pool(), `SELECT status FROM show_seats WHERE show_id = $1 AND seat_id = $2`, e.Show, seat)
}

// wantPageRefused checks a guest is sent to log in, a moviegoer gets 403
// and the admin of another theatre 404, for a GET of path.
func wantPageRefused(t *testing.T, e *webtest.Env, who salesPeople, path string) {
	t.Helper()
	p := e.Browser().Get(t, path)
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/login") {
		t.Fatalf("guest: %d to %q, want 303 to /login", p.Status, p.Header.Get("Location"))
	}
	webtest.WantFriendly(t, who.moviegoer.Get(t, path), http.StatusForbidden)
	if who.stranger != nil {
		webtest.WantFriendly(t, who.stranger.Get(t, path), http.StatusNotFound)
	}
}

func TestShowOccupancyPage(t *testing.T) {
	e := webtest.NewEnv(t)
	who := newSalesPeople(t, e)
	path := fmt.Sprintf("/admin/shows/%d", e.Show)

	buyer := e.PageUser(t)
	bought := buyer.API().MustHold(t, "J1", "J2")
	e.Pay(t, bought)
	holder := e.PageUser(t)
	holder.API().MustHold(t, "H5")

	t.Run("the show's admin and a platform admin see its occupancy and seats", func(t *testing.T) {
		for _, b := range []*webtest.Browser{who.admin, who.platform} {
			p := b.Get(t, path)
			webtest.Want200(t, p)
			if !strings.Contains(p.Text("h1"), "On sale") || p.Text(`[data-count="booked"]`) != "2" ||
				p.Text(`[data-count="held"]`) != "1" || p.Text(`[data-count="available"]`) != "97" || p.Text(`[data-count="blocked"]`) != "0" {
				t.Fatalf("header %q counts %q", p.Text("h1"), p.Text("#occupancy"))
			}
			if want := format.Money(int64(bought.Num("amount_minor")), "INR"); p.Text(`[data-count="revenue"]`) != want {
				t.Fatalf("revenue %q, want %q", p.Text(`[data-count="revenue"]`), want)
			}
			if p.Attr("#seat-J1", "data-status") != "booked" || p.Attr("#seat-H5", "data-status") != "held" || p.Attr("#seat-A1", "data-status") != "available" {
				t.Fatal("the seat map does not show the seats' states")
			}
			if p.Attr("[ws-connect]", "ws-connect") != fmt.Sprintf("/shows/%d/live?diff=1", e.Show) && p.Has("[ws-connect]") {
				t.Fatalf("live: %q", p.Attr("[ws-connect]", "ws-connect"))
			}
			if !p.Has(`form[action="`+path+`/blocks"] input[name="_csrf"]`) || !p.Has(`button[formaction="`+path+`/unblock"]`) ||
				!p.Has(`form[action="`+path+`/cancel"]`) || !p.Has(`label[for="block-seats"]`) {
				t.Fatal("the block, unblock and cancel forms are missing")
			}
		}
		p := who.admin.HtmxGet(t, path+"?part=counts")
		webtest.Want200(t, p)
		if p.Text(`[data-count="booked"]`) != "2" || p.Has("header") || p.Attr("#occupancy", "hx-trigger") != "every 5s" {
			t.Fatalf("counts fragment: %s", p)
		}
	})

	t.Run("others are refused", func(t *testing.T) {
		wantPageRefused(t, e, who, path)
		webtest.WantFriendly(t, who.admin.Get(t, "/admin/shows/999999"), http.StatusNotFound)
		before := e.Snapshot(t)
		webtest.WantFriendly(t, who.stranger.Submit(t, path+"/blocks", url.Values{"seats": {"A1"}}), http.StatusNotFound)
		webtest.WantFriendly(t, who.moviegoer.Submit(t, path+"/cancel", nil), http.StatusForbidden)
		webtest.WantFriendly(t, who.stranger.Submit(t, path+"/cancel", nil), http.StatusNotFound)
		if after := e.Snapshot(t); after != before {
			t.Fatalf("refused changes changed %s -> %s", before, after)
		}
	})

	t.Run("block and unblock seats", func(t *testing.T) {
		p := who.admin.Submit(t, path+"/blocks", url.Values{"seats": {"a2, A1"}})
		webtest.WantSeeOther(t, p, path+"?blocked=A1%2CA2")
		if seatState(t, e, "A1") != "BLOCKED" || seatState(t, e, "A2") != "BLOCKED" {
			t.Fatal("the seats are not blocked")
		}
		p = who.admin.Get(t, path+"?blocked=A1%2CA2")
		if !strings.Contains(p.Text(`[data-notice="success"]`), "2 seats blocked: A1, A2") || p.Text(`[data-count="blocked"]`) != "1" && p.Text(`[data-count="blocked"]`) != "2" {
			t.Fatalf("notice %q blocked %q", p.Text("[data-notice]"), p.Text(`[data-count="blocked"]`))
		}
		p = who.admin.Submit(t, path+"/unblock", url.Values{"seat": {"A1"}})
		webtest.WantSeeOther(t, p, path+"?unblocked=A1")
		if seatState(t, e, "A1") != "AVAILABLE" || seatState(t, e, "A2") != "BLOCKED" {
			t.Fatal("A1 is not back on sale, or A2 left")
		}
	})

	t.Run("a block of held or sold seats is refused, naming them, changing nothing", func(t *testing.T) {
		before := e.Snapshot(t)
		p := who.admin.Submit(t, path+"/blocks", url.Values{"seats": {"A5 H5 J1"}})
		webtest.WantStatus(t, p, http.StatusConflict)
		if msg := p.Text("#block-seats-error"); !strings.Contains(msg, "H5") || !strings.Contains(msg, "J1") || strings.Contains(msg, "A5") {
			t.Fatalf("error %q", msg)
		}
		if p.Attr("#block-seats", "aria-invalid") != "true" || !strings.Contains(p.Attr("#block-seats", "aria-describedby"), "block-seats-error") ||
			p.Attr("#block-seats", "value") != "A5, H5, J1" || p.Attr("[data-notice]", "role") != "alert" {
			t.Fatal("the field does not carry its error, or lost what was typed")
		}
		p = who.admin.Submit(t, path+"/blocks", url.Values{"seats": {"Z99"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text("#block-seats-error"), "Z99") {
			t.Fatalf("error %q", p.Text("#block-seats-error"))
		}
		webtest.WantStatus(t, who.admin.Submit(t, path+"/blocks", url.Values{"seats": {""}}), http.StatusUnprocessableEntity)
		if after := e.Snapshot(t); after != before || seatState(t, e, "A5") != "AVAILABLE" {
			t.Fatalf("a refused block changed %s -> %s", before, after)
		}
	})

	t.Run("cancel the show: holds released, bookings refunded", func(t *testing.T) {
		p := who.admin.Get(t, path)
		if !strings.Contains(p.Text("[data-cancel-show]"), "refunds every booking in full") {
			t.Fatalf("the cancellation does not explain itself: %q", p.Text("[data-cancel-show]"))
		}
		p = who.admin.Submit(t, path+"/cancel", nil)
		webtest.WantSeeOther(t, p, path+"?cancelled=1&holds=1&bookings=1")
		if st := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT status FROM shows WHERE id = $1`, e.Show); st != "CANCELLED" {
			t.Fatalf("show status %s", st)
		}
		if n := e.Count(t, `SELECT count(*) FROM refunds`); n != 1 {
			t.Fatalf("%d refunds, want 1", n)
		}
		p = who.admin.Get(t, path+"?cancelled=1&holds=1&bookings=1")
		webtest.Want200(t, p)
		if p.Text("[data-show-status]") != "Cancelled" || !strings.Contains(p.Text(`[data-notice="success"]`), "1 hold released, 1 booking refunded") {
			t.Fatalf("status %q notice %q", p.Text("[data-show-status]"), p.Text("[data-notice]"))
		}
		if p.Has("[data-cancel-show]") || p.Has("[data-block-form]") || p.Has("[ws-connect]") || p.Has("#occupancy[hx-trigger]") {
			t.Fatal("a cancelled show still offers changes")
		}
		if want := format.Money(int64(bought.Num("amount_minor")), "INR"); p.Text(`[data-count="refunds-owed"]`) != want {
			t.Fatalf("refunds owed %q, want %q", p.Text(`[data-count="refunds-owed"]`), want)
		}
		// Its free seats are not said to be available: nothing is on sale.
		if p.Has(`[data-count="available"]`) || !strings.Contains(p.Text("[data-counts]"), "Not on sale (show cancelled)") {
			t.Fatalf("a cancelled show's counts: %q", p.Text("[data-counts]"))
		}
		p = who.admin.Submit(t, path+"/blocks", url.Values{"seats": {"A7"}})
		webtest.WantStatus(t, p, http.StatusConflict)
	})
}

func TestSalesReportPage(t *testing.T) {
	e := webtest.NewEnv(t)
	who := newSalesPeople(t, e)
	buyer := e.PageUser(t)
	h := buyer.API().MustHold(t, "C3", "C4")
	e.Pay(t, h)
	amount := int64(h.Num("amount_minor"))
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	today := e.Now().In(kolkata)
	from, to := today.Format(time.DateOnly), today.AddDate(0, 0, 6).Format(time.DateOnly)
	query := url.Values{"theatre_id": {fmt.Sprint(e.Venue.TheatreID)}, "from": {from}, "to": {to}}
	path := "/admin/reports/sales?" + query.Encode()

	t.Run("the table, totals and chart show the booking", func(t *testing.T) {
		for _, b := range []*webtest.Browser{who.admin, who.platform} {
			p := b.Get(t, path)
			webtest.Want200(t, p)
			row := fmt.Sprintf(`[data-show-row="%d"]`, e.Show)
			if !p.Has(row) || !strings.HasPrefix(p.Text(row+" [data-tickets]"), "2 / 100") || p.Text(row+" [data-revenue]") != format.Money(amount, "INR") {
				t.Fatalf("row: %q", p.Text(row))
			}
			if p.Text("[data-totals] [data-revenue]") != format.Money(amount, "INR") || !strings.Contains(p.Text("[data-totals]"), "2.0%") {
				t.Fatalf("totals: %q", p.Text("[data-totals]"))
			}
			if p.Attr("svg[data-sales-chart]", "role") != "img" || p.Doc.Find("svg[data-sales-chart] rect[data-bar]").Length() != 1 ||
				!strings.Contains(p.Text("svg[data-sales-chart] rect[data-bar] title"), format.Money(amount, "INR")) ||
				!strings.Contains(p.Text("#sales-chart-desc"), format.Money(amount, "INR")) {
				t.Fatalf("chart: %q", p.Text("svg[data-sales-chart]"))
			}
			// Its axis is labelled, from nothing to a round value at least
			// the best day's; the bar says its value; and the figures are a
			// table too, a row a day.
			axis := p.Doc.Find("svg[data-sales-chart] [data-axis-value]")
			if axis.Length() < 2 || axis.First().Text() != format.Money(0, "INR") || !strings.Contains(p.Text("[data-chart-measure]"), "Revenue (INR)") {
				t.Fatalf("the value axis: %d labels from %q, measure %q", axis.Length(), axis.First().Text(), p.Text("[data-chart-measure]"))
			}
			if got := p.Text("svg[data-sales-chart] [data-bar-value]"); got != format.Money(amount, "INR") {
				t.Fatalf("the bar's value = %q, want %s", got, format.Money(amount, "INR"))
			}
			figures := p.Doc.Find("[data-chart-figures] tbody tr")
			if figures.Length() != 7 || !strings.Contains(p.Text("[data-chart-figures] tbody"), format.Money(amount, "INR")) {
				t.Fatalf("the chart's table: %d rows: %q", figures.Length(), p.Text("[data-chart-figures]"))
			}
			if !p.Has(`th[scope="col"]`) || !p.Has(`label[for="sales-from"]`) || p.Attr("#sales-from", "value") != from {
				t.Fatal("the table or the form lacks its headers or labels")
			}
			csvHref := p.Attr(`a[download]`, "href")
			if !strings.Contains(csvHref, "format=csv") {
				t.Fatalf("CSV link %q", csvHref)
			}
		}
		// Only the admin of two theatres gets a theatre select.
		if !who.platform.Get(t, path).Has("select#sales-theatre") || who.admin.Get(t, path).Has("select#sales-theatre") {
			t.Fatal("the theatre select is shown to the wrong admin")
		}
	})

	t.Run("the CSV download", func(t *testing.T) {
		p := who.admin.Get(t, path+"&format=csv")
		if p.Status != http.StatusOK || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/csv") ||
			!strings.Contains(p.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("csv: %d %q %q", p.Status, p.Header.Get("Content-Type"), p.Header.Get("Content-Disposition"))
		}
		lines := strings.Split(strings.TrimSpace(p.Body), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "show_id,movie_title") ||
			!strings.HasPrefix(lines[1], fmt.Sprint(e.Show)+",") || !strings.Contains(lines[1], fmt.Sprintf(",2,0.020,%d,", amount)) {
			t.Fatalf("csv body %q", p.Body)
		}
	})

	t.Run("a bad period is explained next to its field", func(t *testing.T) {
		bad := url.Values{"theatre_id": {fmt.Sprint(e.Venue.TheatreID)}, "from": {to}, "to": {from}}
		p := who.admin.Get(t, "/admin/reports/sales?"+bad.Encode())
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if p.Attr("#sales-to", "aria-invalid") != "true" || p.Attr("#sales-to", "aria-describedby") != "sales-to-error" || p.Text("#sales-to-error") == "" {
			t.Fatal("the error is not tied to its field")
		}
		p = who.admin.Get(t, "/admin/reports/sales?from=yesterday&to="+to)
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if p.Text("#sales-from-error") == "" {
			t.Fatal("no error for from")
		}
	})

	t.Run("without dates, the last 30 days and the next 7", func(t *testing.T) {
		p := who.admin.Get(t, "/admin/reports/sales")
		webtest.Want200(t, p)
		if p.Attr("#sales-to", "value") != today.AddDate(0, 0, 7).Format(time.DateOnly) || !p.Has(fmt.Sprintf(`[data-show-row="%d"]`, e.Show)) || p.Attr("#sales-from", "value") != today.AddDate(0, 0, -29).Format(time.DateOnly) {
			t.Fatalf("period %q to %q", p.Attr("#sales-from", "value"), p.Attr("#sales-to", "value"))
		}
	})

	t.Run("others are refused", func(t *testing.T) {
		wantPageRefused(t, e, who, path)
	})
}

// TestSalesReportPageByChannel: an online booking, a cash sale, a card
// sale and a complimentary ticket, in the page's table of channels (its
// columns headed, a row per show, the totals last) and its figures for the
// period.
func TestSalesReportPageByChannel(t *testing.T) {
	e := webtest.NewEnv(t)
	manager, _ := salesBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	desk, _ := e.Staff(t, auth.StaffBoxOffice, e.Venue.TheatreID)
	sell := func(paidBy, reason string, seats ...string) {
		t.Helper()
		body := map[string]any{"seats": seats, "paid_by": paidBy, "customer": map[string]any{"name": "Walk-in"}, "reason": reason}
		webtest.Want(t, desk.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/sales", e.Show), Body: body,
			Header: map[string]string{"Idempotency-Key": paidBy}}), http.StatusCreated)
	}
	e.Book(t, e.Show, "A1", "A2")
	sell("cash", "", "B1")
	sell("card", "", "B2", "B3", "B4")
	sell("complimentary", "Press screening", "C1")
	price := pgtest.Prices["STANDARD"]
	inr := func(n int64) string { return format.Money(n*price, "INR") }
	want := map[string][2]string{
		"online": {"2 tickets", inr(2)}, "box-office": {"4 tickets", inr(4)}, "cash": {"1 ticket", inr(1)},
		"card": {"3 tickets", inr(3)}, "complimentary": {"1 ticket", inr(0)},
	}

	p := manager.Get(t, "/admin/reports/sales?"+e.SalesWeek().Encode())
	webtest.Want200(t, p)
	if p.Text(`[data-show-row] [data-revenue]`) != inr(6) {
		t.Fatalf("the show's revenue is %q, want %s", p.Text(`[data-show-row] [data-revenue]`), inr(6))
	}
	for _, row := range []string{fmt.Sprintf(`[data-channel-row="%d"]`, e.Show), "[data-channel-totals-row]"} {
		for key, w := range want {
			cell := fmt.Sprintf(`%s [data-channel="%s"]`, row, key)
			if p.Text(cell+" [data-channel-tickets]") != w[0] || p.Text(cell+" [data-channel-revenue]") != w[1] {
				t.Errorf("%s: %q, want %s for %s", cell, p.Text(cell), w[0], w[1])
			}
		}
	}
	// A phone's table of the show: a row per channel.
	phoneRows := map[string][2]string{
		"online": {"2", inr(2)}, "box-office": {"4", inr(4)}, "cash": {"1", inr(1)}, "card": {"3", inr(3)}, "complimentary": {"1", inr(0)},
	}
	for key, w := range phoneRows {
		row := fmt.Sprintf(`[data-channel-card="%d"] tr[data-channel="%s"]`, e.Show, key)
		if p.Text(row+" [data-channel-tickets]") != w[0] || p.Text(row+" [data-channel-revenue]") != w[1] || !p.Has(row+` th[scope="row"]`) {
			t.Errorf("%s: %q, want %s tickets for %s", row, p.Text(row), w[0], w[1])
		}
	}
	if !p.Has(fmt.Sprintf(`[data-channel-card="%d"] caption`, e.Show)) || p.Doc.Find(`[data-channel-card] thead th[scope="col"]`).Length() != 3 {
		t.Error("a phone's table of the show lacks its caption or its headers")
	}
	heads := p.Doc.Find(`[data-channels-table] thead th[scope="col"]`).Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	if strings.Join(heads, "|") != "Show|Online|Box office|Of which cash|Of which card|Complimentary" ||
		!p.Has(`[data-channels-table] caption`) || !p.Has(`[data-channel-row] th[scope="row"]`) {
		t.Fatalf("the table of channels is headed %q", heads)
	}
	// The period's figures, above the table.
	for key, w := range map[string][2]string{"online": want["online"], "box-office": want["box-office"], "complimentary": want["complimentary"]} {
		total := fmt.Sprintf(`[data-channel-total="%s"]`, key)
		if p.Text(total+" [data-channel-tickets]") != w[0] || p.Text(total+" [data-channel-revenue]") != w[1] {
			t.Errorf("%s: %q, want %s for %s", total, p.Text(total), w[0], w[1])
		}
	}
	if d := p.Text(`[data-channel-total="box-office"] [data-channel-detail]`); d != "cash 1 ticket, "+inr(1)+"; card 3 tickets, "+inr(3) {
		t.Errorf("the box office's detail = %q", d)
	}
}

func TestReconciliationPage(t *testing.T) {
	e := webtest.NewEnv(t)
	who := newSalesPeople(t, e)

	// A booking cancelled with the show: its refund then failed again and
	// again.
	buyer := e.PageUser(t)
	h := buyer.API().MustHold(t, "B1")
	e.Pay(t, h)
	payment := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT payment_id FROM payments WHERE hold_id = $1`, h.Str("hold_id"))
	webtest.WantSeeOther(t, who.admin.Submit(t, fmt.Sprintf("/admin/shows/%d/cancel", e.Show), nil),
		fmt.Sprintf("/admin/shows/%d?cancelled=1&holds=0&bookings=1", e.Show))
	pgtest.Exec(t, e.Store.Pool(), `UPDATE refunds SET status = 'FAILED', attempts = 7, last_error = 'provider said no'
		WHERE payment_id = $1`, payment)

	// A charge of the wrong amount, for a hold of a show of another theatre.
	other := pgtest.NewVenue(t, e.Store)
	otherShow := pgtest.NewShow(t, e.Store, other, 3, 3, e.Now().Add(48*time.Hour))
	h2 := buyer.API().HoldOn(otherShow, "mismatch-key", "A1")
	webtest.Want(t, h2, http.StatusCreated)
	wrong := e.PaymentFor(h2)
	wrong.AmountMinor++
	webtest.Want(t, e.Webhook(wrong), http.StatusUnprocessableEntity)

	t.Run("the queue lists the failed refund to its theatre's admin", func(t *testing.T) {
		p := who.admin.Get(t, "/admin/reconciliation")
		webtest.Want200(t, p)
		item := fmt.Sprintf(`[data-item="%s"]`, payment)
		if !p.Has(item) || !strings.Contains(p.Text(item), "Refund failing") || !strings.Contains(p.Text(item), "provider said no") ||
			!p.Has(item+` input[name="action"][value="retry"]`) {
			t.Fatalf("queue: %q", p.Text("main"))
		}
		if p.Has(fmt.Sprintf(`[data-item="%s"]`, wrong.PaymentID)) {
			t.Fatal("another theatre's payment is listed")
		}
		p = who.platform.Get(t, "/admin/reconciliation")
		if !p.Has(item) || !strings.Contains(p.Text(fmt.Sprintf(`[data-item="%s"]`, wrong.PaymentID)), "Amount did not match") {
			t.Fatalf("platform queue: %q", p.Text("main"))
		}
		if p := who.stranger.Get(t, "/admin/reconciliation"); p.Has(item) || p.Has(fmt.Sprintf(`[data-item="%s"]`, wrong.PaymentID)) {
			t.Fatal("the other theatre's admin sees the wrong payments")
		}
		webtest.WantFriendly(t, who.moviegoer.Get(t, "/admin/reconciliation"), http.StatusForbidden)
	})

	t.Run("retry refund makes it due again", func(t *testing.T) {
		before := e.Snapshot(t)
		webtest.WantFriendly(t, who.stranger.Submit(t, "/admin/reconciliation", url.Values{"payment_id": {payment}, "action": {"retry"}}), http.StatusNotFound)
		webtest.WantFriendly(t, who.moviegoer.Submit(t, "/admin/reconciliation", url.Values{"payment_id": {payment}, "action": {"retry"}}), http.StatusForbidden)
		if after := e.Snapshot(t); after != before {
			t.Fatal("a refused retry changed something")
		}
		p := who.admin.Submit(t, "/admin/reconciliation", url.Values{"payment_id": {payment}, "action": {"retry"}})
		webtest.WantSeeOther(t, p, "/admin/reconciliation?done=retry")
		if n := e.Count(t, `SELECT count(*) FROM refunds r JOIN river_job j ON j.kind = 'refund' AND j.args->>'refund_id' = r.id::text
			WHERE r.payment_id = $1 AND r.status = 'FAILED' AND r.attempts = 0
			  AND j.state = 'available' AND j.scheduled_at <= clock_timestamp()`, payment); n != 1 {
			t.Fatal("the refund is not due again")
		}
		if n := e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'refund.retry' AND object = $1`, "payment "+payment); n != 1 {
			t.Fatal("the retry is not audited")
		}
		if p := who.admin.Get(t, "/admin/reconciliation?done=retry"); p.Has(fmt.Sprintf(`[data-item="%s"]`, payment)) || !p.Has(`[data-notice="success"]`) {
			t.Fatal("a refund due again is still listed")
		}
		// The mismatched charge's refund is not failing: nothing to retry.
		p = who.platform.Submit(t, "/admin/reconciliation", url.Values{"payment_id": {wrong.PaymentID}, "action": {"retry"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text(`[data-notice="error"]`), "nothing to retry") {
			t.Fatalf("notice %q", p.Text("[data-notice]"))
		}
	})

	t.Run("mark resolved needs a note, then leaves the queue", func(t *testing.T) {
		path, id := "/admin/reconciliation", []string{wrong.PaymentID}
		p := who.platform.Submit(t, path, url.Values{"payment_id": id, "action": {"resolve"}, "note": {"  "}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		item := fmt.Sprintf(`[data-item="%s"]`, wrong.PaymentID)
		if p.Attr(item+" textarea", "aria-invalid") != "true" || !p.Has("#"+p.Attr(item+" textarea", "aria-describedby")) {
			t.Fatal("the note's error is not tied to it")
		}
		webtest.WantFriendly(t, who.admin.Submit(t, path, url.Values{"payment_id": id, "action": {"resolve"}, "note": {"mine"}}), http.StatusNotFound)
		p = who.platform.Submit(t, path, url.Values{"payment_id": id, "action": {"resolve"}, "note": {"Refunded by hand, ticket 42"}})
		webtest.WantSeeOther(t, p, "/admin/reconciliation?done=resolve")
		if who.platform.Get(t, "/admin/reconciliation").Has(item) {
			t.Fatal("a resolved payment is still listed")
		}
		if n := e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'payment.resolve' AND after->>'note' = 'Refunded by hand, ticket 42'`); n != 1 {
			t.Fatal("the resolution is not audited")
		}
	})
}

func TestAuditPage(t *testing.T) {
	e := webtest.NewEnv(t)
	who := newSalesPeople(t, e)
	webtest.WantSeeOther(t, who.admin.Submit(t, fmt.Sprintf("/admin/shows/%d/blocks", e.Show), url.Values{"seats": {"D4"}}),
		fmt.Sprintf("/admin/shows/%d?blocked=D4", e.Show))

	t.Run("platform admins read it, filtered", func(t *testing.T) {
		p := who.platform.Get(t, "/admin/audit?actor="+url.QueryEscape(who.adminEmail))
		webtest.Want200(t, p)
		if p.Doc.Find("[data-audit-row]").Length() != 1 || p.Text("[data-audit-row] [data-action-words]") != "Blocked seats" ||
			p.Attr("[data-audit-row] [data-action]", "data-action") != "show.block_seats" || !strings.Contains(p.Text("[data-audit-row] [data-action]"), "show.block_seats") ||
			p.Text("[data-audit-row] [data-who]") != who.adminEmail || !strings.Contains(p.Text("[data-audit-row] details"), `"D4"`) {
			t.Fatalf("audit: %q", p.Text("[data-audit-table]"))
		}
		if p.Attr("#audit-actor", "value") != who.adminEmail || !p.Has(`th[scope="row"]`) {
			t.Fatal("the filter is not kept, or rows lack headers")
		}
		theatre := fmt.Sprint(e.Venue.TheatreID)
		if p := who.platform.Get(t, "/admin/audit?theatre_id="+theatre); p.Doc.Find("[data-audit-row]").Length() != 1 ||
			p.Attr(`#audit-theatre option[selected]`, "value") != theatre {
			t.Fatal("the theatre filter does not narrow")
		}
		if p := who.platform.Get(t, "/admin/audit?actor=nobody%40example.com"); !p.Has("[data-audit-empty]") {
			t.Fatal("another person's filter lists entries")
		}
		tomorrow := e.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
		if p := who.platform.Get(t, "/admin/audit?from="+tomorrow); !p.Has("[data-audit-empty]") {
			t.Fatal("the date filter does not narrow")
		}
		p = who.platform.Get(t, "/admin/audit?from=soon")
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if p.Attr("#audit-from", "aria-describedby") != "audit-from-error" {
			t.Fatal("the date error is not tied to its field")
		}
	})

	t.Run("only platform admins", func(t *testing.T) {
		webtest.WantFriendly(t, who.admin.Get(t, "/admin/audit"), http.StatusForbidden)
		webtest.WantFriendly(t, who.moviegoer.Get(t, "/admin/audit"), http.StatusForbidden)
		p := e.Browser().Get(t, "/admin/audit")
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/login") {
			t.Fatalf("guest: %d", p.Status)
		}
	})
}

func TestReconciliationUnsettledCheckout(t *testing.T) {
	e := webtest.NewEnv(t, webtest.WithClock)
	admin, _ := salesBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	buyer := e.PageUser(t)
	h := buyer.API().MustHold(t, "E5")
	hold := h.Str("hold_id")
	if err := e.Store.WatchPayments(t.Context(), hold); err != nil {
		t.Fatal(err)
	}
	item := fmt.Sprintf(`[data-item="%s"]`, hold)
	if admin.Get(t, "/admin/reconciliation").Has(item) {
		t.Fatal("a checkout under way is listed")
	}
	// The provider never answered: long after the hold's deadline the
	// check is still open.
	e.Clock.Advance(webtest.HoldTTL + 30*time.Minute)
	p := admin.Get(t, "/admin/reconciliation")
	if !strings.Contains(p.Text(item), "No outcome from the payment provider") || !p.Has(item+` input[name="hold_id"][value="`+hold+`"]`) {
		t.Fatalf("queue: %q", p.Text("main"))
	}
	p = admin.Submit(t, "/admin/reconciliation", url.Values{"hold_id": {hold}, "action": {"retry"}})
	webtest.WantSeeOther(t, p, "/admin/reconciliation?done=retry")
	if n := e.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'payment_check' AND args->>'hold_id' = $1
		AND state = 'available' AND scheduled_at <= clock_timestamp()`, hold); n != 1 {
		t.Fatal("the check is not due now")
	}
	p = admin.Submit(t, "/admin/reconciliation", url.Values{"hold_id": {hold}, "action": {"resolve"}, "note": {"Provider confirmed no charge"}})
	webtest.WantSeeOther(t, p, "/admin/reconciliation?done=resolve")
	if admin.Get(t, "/admin/reconciliation").Has(item) {
		t.Fatal("a resolved check is still listed")
	}
}

// postForm submits the form sel of page p as a browser would: to its
// action, with its fields as the page wrote them, plus extra (typed in).
func postForm(t *testing.T, b *webtest.Browser, p *webtest.HTMLDoc, sel string, extra url.Values) *webtest.HTMLDoc {
	t.Helper()
	form := p.Doc.Find(sel)
	if form.Length() != 1 {
		t.Fatalf("%d forms match %s", form.Length(), sel)
	}
	action, _ := form.Attr("action")
	values := url.Values{}
	form.Find("input[name]").Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		value, _ := in.Attr("value")
		values.Add(name, value)
	})
	for k, v := range extra {
		values[k] = v
	}
	return b.Send(t, "POST", action, values, nil)
}

// A payment's id is the provider's text: the queue's forms post it in a
// field to one fixed address, so no id can aim them anywhere else. The
// queue shows the amount in question (a failing refund's, which may be
// part of the charge) and who paid.
func TestReconciliationQueueFormsAndAmounts(t *testing.T) {
	e := webtest.NewEnv(t)
	admin, _ := salesBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	platform, _ := salesBrowser(t, e, auth.RolePlatformAdmin)

	t.Run("a failing partial refund shows its own amount, the charge and the customer", func(t *testing.T) {
		// Cancelled 10 hours before the show: the default policy gives back half.
		soon := pgtest.NewShow(t, e.Store, e.Venue, 3, 3, e.Now().Add(10*time.Hour))
		buyer := e.User(t)
		h := buyer.HoldOn(soon, "partial", "A1")
		webtest.Want(t, h, http.StatusCreated)
		booked := e.Pay(t, h)
		webtest.Want(t, buyer.Post("/api/v1/bookings/"+booked.Str("booking_id")+"/cancel", nil), http.StatusOK)
		paid := pgtest.Prices["STANDARD"]
		pay := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT payment_id FROM payments WHERE hold_id = $1`, h.Str("hold_id"))
		pgtest.Exec(t, e.Store.Pool(), `UPDATE refunds SET status = 'FAILED', attempts = 7, last_error = 'card closed'
			WHERE payment_id = $1 AND amount_minor = $2`, pay, paid/2)
		var name, email string
		if err := e.Store.Pool().QueryRow(t.Context(), `SELECT u.name, u.email FROM users u JOIN payments p ON p.user_id = u.id
			WHERE p.payment_id = $1`, pay).Scan(&name, &email); err != nil {
			t.Fatal(err)
		}

		p := admin.Get(t, "/admin/reconciliation")
		webtest.Want200(t, p)
		item := fmt.Sprintf(`[data-item="%s"]`, pay)
		if got, want := p.Text(item+" [data-refund-amount]"), format.Money(paid/2, "INR"); got != want {
			t.Fatalf("refund amount %q, want %q; item %q", got, want, p.Text(item))
		}
		if got, want := p.Text(item+" [data-paid-amount]"), format.Money(paid, "INR"); got != want {
			t.Fatalf("paid %q, want %q", got, want)
		}
		if c := p.Text(item + " [data-customer]"); !strings.Contains(c, name) || !strings.Contains(c, email) {
			t.Fatalf("customer %q, want %s (%s)", c, name, email)
		}
	})

	// resolve marks the item of payment id resolved through its own form
	// on the page, and checks the show it names stays on sale.
	resolve := func(t *testing.T, id string) {
		t.Helper()
		item := fmt.Sprintf(`[data-item="%s"]`, id)
		p := platform.Get(t, "/admin/reconciliation")
		if !p.Has(item) {
			t.Fatalf("%s is not listed: %q", id, p.Text("main"))
		}
		for _, f := range []string{"form:has(input[value=resolve])", "form:has(input[value=retry])"} {
			if action := p.Attr(item+" "+f, "action"); p.Has(item+" "+f) && action != "/admin/reconciliation" {
				t.Fatalf("a form of %s posts to %q", id, action)
			}
		}
		if got := p.Attr(item+` input[name="payment_id"]`, "value"); got != id {
			t.Fatalf("the form names payment %q, want %q", got, id)
		}
		r := postForm(t, platform, p, item+" form:has(input[value=resolve])", url.Values{"note": {"Refunded by the bank"}})
		webtest.WantSeeOther(t, r, "/admin/reconciliation?done=resolve")
		if platform.Get(t, "/admin/reconciliation").Has(item) {
			t.Fatalf("%s is still listed", id)
		}
		if n := e.Count(t, `SELECT count(*) FROM reconciliation_resolutions WHERE item = $1`, "payment:"+id); n != 1 {
			t.Fatalf("%s: %d resolutions", id, n)
		}
		if st := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT status FROM shows WHERE id = $1`, e.Show); st != "SCHEDULED" {
			t.Fatalf("show %d is %s after resolving %s", e.Show, st, id)
		}
	}

	t.Run("an unusual payment id is resolved through its form", func(t *testing.T) {
		h := e.User(t).MustHold(t, "C1")
		wrong := e.PaymentFor(h)
		wrong.PaymentID = "a:b.c-d_e"
		wrong.AmountMinor++
		webtest.Want(t, e.Webhook(wrong), http.StatusUnprocessableEntity)
		resolve(t, wrong.PaymentID)
	})

	t.Run("a payment id recorded before ids were bounded cannot aim the form at a show", func(t *testing.T) {
		// As a database from before migration 000011 may hold: an id that
		// reads as a path, for a hold of the show.
		h := e.User(t).MustHold(t, "C2")
		id := fmt.Sprintf("../shows/%d/cancel", e.Show)
		pgtest.Exec(t, e.Store.Pool(), `ALTER TABLE payments DROP CONSTRAINT payments_id_chars`)
		pgtest.Exec(t, e.Store.Pool(), `
			INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, reason, received_at)
			SELECT $1, id::text, id, user_id, amount_minor + 1, currency, 'REFUND_REQUIRED', 'amount_mismatch', now() FROM holds WHERE id = $2`,
			id, h.Str("hold_id"))
		pgtest.Exec(t, e.Store.Pool(), `
			INSERT INTO refunds (payment_id, amount_minor, currency, reason, created_at, updated_at)
			SELECT payment_id, amount_minor, currency, reason, now(), now() FROM payments WHERE payment_id = $1`, id)
		resolve(t, id)
		if n := e.Count(t, `SELECT count(*) FROM holds WHERE id = $1 AND state = 'HELD'`, h.Str("hold_id")); n != 1 {
			t.Fatal("the show's hold was released")
		}
	})
}
