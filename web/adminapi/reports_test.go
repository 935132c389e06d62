package adminapi_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestSalesReportAPI(t *testing.T) {
	s := newSite(t)
	// Two days after the env's own show (72 h from now): no time zone
	// puts the two on one local day, which the day filter below tells apart.
	at := s.Now().Add(120 * time.Hour).Truncate(time.Hour)
	id := s.createShow(t, at)
	buyer := s.User(t)
	h := buyer.HoldOn(id, "k", "A1", "C1")
	webtest.Want(t, h, http.StatusCreated)
	s.Pay(t, h)
	// A second moviegoer books B1 and cancels it: all of it is owed back.
	canceller := s.User(t)
	h2 := canceller.HoldOn(id, "k", "B1")
	webtest.Want(t, h2, http.StatusCreated)
	booking := s.Pay(t, h2).Str("booking_id")
	webtest.Want(t, canceller.Post("/api/v1/bookings/"+booking+"/cancel", nil), http.StatusOK)
	day := at.In(s.loc).Format(time.DateOnly)
	path := fmt.Sprintf("/api/v1/admin/reports/sales?theatre_id=%d&from=%s&to=%s", s.Venue.TheatreID, day, day)

	rep := s.local.Get(path)
	webtest.Want(t, rep, http.StatusOK)
	shows, _ := rep.JSON["shows"].([]any)
	if len(shows) != 1 {
		t.Fatalf("report = %s, want the one show of %s", rep, day)
	}
	row := shows[0].(map[string]any)
	want := map[string]any{"show_id": float64(id), "movie_title": "The Last Algorithm", "screen": "Hall 2",
		"starts_at": at.UTC().Format(time.RFC3339), "status": "SCHEDULED", "seats": 12.0, "tickets": 2.0,
		"occupancy": 0.167, "revenue_minor": 70000.0, "taken_minor": 95000.0, "kept_minor": 70000.0,
		"refunds_owed_minor": 25000.0, "refunds_paid_minor": 0.0, "refunds_failed_minor": 0.0}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("%s = %v, want %v", k, row[k], v)
		}
	}
	totals, _ := rep.JSON["totals"].(map[string]any)
	if rep.Str("currency") != "INR" || rep.Str("from") != day || rep.Str("to") != day || rep.Num("theatre_id") != float64(s.Venue.TheatreID) ||
		totals["tickets"] != 2.0 || totals["revenue_minor"] != 70000.0 || totals["refunds_owed_minor"] != 25000.0 || totals["seats"] != 12.0 {
		t.Fatalf("report = %s", rep)
	}

	t.Run("as CSV", func(t *testing.T) {
		r := s.local.Send(webtest.Req{Method: "GET", Path: path, Header: map[string]string{"Accept": "text/csv"}})
		webtest.Want(t, r, http.StatusOK)
		if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
			t.Fatalf("Content-Type = %q", ct)
		}
		if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, ".csv") {
			t.Fatalf("Content-Disposition = %q", cd)
		}
		records, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 2 || records[0][0] != "show_id" || records[0][8] != "occupancy" || records[0][15] != "time_zone" {
			t.Fatalf("csv = %q", records)
		}
		// Its time is the theatre's wall clock with its offset, and says
		// the theatre's zone.
		kolkata, _ := time.LoadLocation("Asia/Kolkata")
		wantRow := []string{fmt.Sprint(id), "The Last Algorithm", "Hall 2", at.In(kolkata).Format("2006-01-02T15:04:05-07:00"), "SCHEDULED", "INR",
			"12", "2", "0.167", "70000", "95000", "70000", "25000", "0", "0", "Asia/Kolkata",
			// by channel: all online
			"2", "70000", "0", "0", "0", "0", "0", "0", "0", "0"}
		if strings.Join(records[1], "|") != strings.Join(wantRow, "|") {
			t.Fatalf("csv row = %q, want %q", records[1], wantRow)
		}
	})

	t.Run("bad queries", func(t *testing.T) {
		base := fmt.Sprintf("/api/v1/admin/reports/sales?theatre_id=%d", s.Venue.TheatreID)
		for _, q := range []string{"", "&from=" + day, "&to=" + day, "&from=2027-13-01&to=2027-13-02",
			"&from=2027-03-02&to=2027-03-01", "&from=2027-01-01&to=2028-06-01"} {
			webtest.WantError(t, s.local.Get(base+q), http.StatusBadRequest, "invalid_query")
		}
		webtest.WantError(t, s.local.Get("/api/v1/admin/reports/sales?from="+day+"&to="+day), http.StatusBadRequest, "invalid_query")
	})

	t.Run("another theatre's report does not exist", func(t *testing.T) {
		other := s.otherTheatre(t)
		q := fmt.Sprintf("/api/v1/admin/reports/sales?theatre_id=%d&from=%s&to=%s", other, day, day)
		webtest.WantError(t, s.local.Get(q), http.StatusNotFound, "not_found")
		webtest.Want(t, s.platform.Get(q), http.StatusOK)
		webtest.WantError(t, s.User(t).Get(q), http.StatusForbidden, "forbidden")
		webtest.WantError(t, s.admin(t, auth.RoleTheatreAdmin, other).Get(path), http.StatusNotFound, "not_found")
	})
}

// TestSalesReportByChannel: an online booking, a cash sale, a card sale
// and a complimentary ticket, each of the env's show, split in the
// report's channels, line and totals, as JSON and as CSV.
func TestSalesReportByChannel(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	manager, _ := e.Staff(t, auth.StaffManager, e.Venue.TheatreID)
	desk, _ := e.Staff(t, auth.StaffBoxOffice, e.Venue.TheatreID)
	sell := func(key, paidBy, reason string, seats ...string) int64 {
		t.Helper()
		body := map[string]any{"seats": seats, "paid_by": paidBy, "customer": map[string]any{"name": "Walk-in"}}
		if reason != "" {
			body["reason"] = reason
		}
		r := desk.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/sales", e.Show), Body: body,
			Header: map[string]string{"Idempotency-Key": key}})
		webtest.Want(t, r, http.StatusCreated)
		return int64(r.Num("amount_minor"))
	}
	price := pgtest.Prices["STANDARD"]
	e.Book(t, e.Show, "A1", "A2")
	cash := sell("cash", "cash", "", "B1")
	card := sell("card", "card", "", "B2", "B3", "B4")
	comp := sell("comp", "complimentary", "Press screening", "C1")
	if cash != price || card != 3*price || comp != 0 {
		t.Fatalf("sold for cash %d, card %d, complimentary %d", cash, card, comp)
	}
	// What the JSON must say of each channel: tickets, then revenue.
	want := map[string][2]float64{
		"online":          {2, float64(2 * price)},
		"box_office":      {4, float64(4 * price)},
		"box_office.cash": {1, float64(price)},
		"box_office.card": {3, float64(3 * price)},
		"complimentary":   {1, 0},
	}
	channel := func(channels map[string]any, name string) map[string]any {
		for _, part := range strings.Split(name, ".") {
			channels, _ = channels[part].(map[string]any)
		}
		return channels
	}
	wantChannels := func(t *testing.T, of string, m map[string]any) {
		t.Helper()
		channels, _ := m["channels"].(map[string]any)
		for name, w := range want {
			c := channel(channels, name)
			if c == nil || c["tickets"] != w[0] || c["revenue_minor"] != w[1] {
				t.Errorf("%s: channels.%s = %v, want %v tickets for %v", of, name, c, w[0], w[1])
			}
		}
		if m["tickets"] != 7.0 || m["revenue_minor"] != float64(6*price) {
			t.Errorf("%s: %v tickets for %v, want 7 for %d", of, m["tickets"], m["revenue_minor"], 6*price)
		}
	}

	rep := manager.Get(salesPath(e))
	webtest.Want(t, rep, http.StatusOK)
	shows, _ := rep.JSON["shows"].([]any)
	if len(shows) != 1 {
		t.Fatalf("report = %s, want the env's show", rep)
	}
	wantChannels(t, "the show", shows[0].(map[string]any))
	wantChannels(t, "the totals", rep.JSON["totals"].(map[string]any))

	t.Run("as CSV", func(t *testing.T) {
		r := manager.Send(webtest.Req{Method: "GET", Path: salesPath(e), Header: map[string]string{"Accept": "text/csv"}})
		webtest.Want(t, r, http.StatusOK)
		records, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
		if err != nil || len(records) != 2 {
			t.Fatalf("csv = %q, %v", records, err)
		}
		row := map[string]string{}
		for i, name := range records[0] {
			row[name] = records[1][i]
		}
		for name, w := range want {
			col := strings.ReplaceAll(name, ".", "_")
			if row[col+"_tickets"] != fmt.Sprint(w[0]) || row[col+"_revenue_minor"] != fmt.Sprint(w[1]) {
				t.Errorf("%s: %q tickets for %q, want %v for %v", col, row[col+"_tickets"], row[col+"_revenue_minor"], w[0], w[1])
			}
		}
	})

	t.Run("shows in several currencies: the totals' channels count tickets, and their revenue is null", func(t *testing.T) {
		other := e.NewShow(t)
		pgtest.Exec(t, e.Store.Pool(), `UPDATE shows SET currency = 'USD' WHERE id = $1`, other)
		rep := manager.Get(salesPath(e))
		webtest.Want(t, rep, http.StatusOK)
		totals := rep.JSON["totals"].(map[string]any)
		online := channel(totals["channels"].(map[string]any), "online")
		if online["tickets"] != 2.0 || online["revenue_minor"] != nil || totals["revenue_minor"] != nil {
			t.Fatalf("totals = %v", totals)
		}
	})
}
