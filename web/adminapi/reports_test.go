package adminapi_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
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
			"12", "2", "0.167", "70000", "95000", "70000", "25000", "0", "0", "Asia/Kolkata"}
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
