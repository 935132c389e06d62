package admin

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
)

// MaxReportDays bounds a sales report's period: to - from, in days.
const MaxReportDays = 366

// Period is a span of a theatre's calendar days, From and To inclusive,
// each as ParseDate reads it.
type Period struct{ From, To time.Time }

// ParsePeriod reads a report's period: both days required, in order, at
// most MaxReportDays apart.
func ParsePeriod(from, to string) (Period, error) {
	var p Period
	var err error
	if p.From, err = ParseDate("from", from); err != nil {
		return p, err
	}
	if p.To, err = ParseDate("to", to); err != nil {
		return p, err
	}
	switch days := p.To.Sub(p.From) / (24 * time.Hour); {
	case days < 0:
		return p, &catalog.FieldError{Field: "to", Message: "the last day comes before the first"}
	case days > MaxReportDays:
		return p, &catalog.FieldError{Field: "to", Message: fmt.Sprintf("a report covers at most %d days", MaxReportDays)}
	}
	return p, nil
}

// SalesReport is a theatre's sales over a period, show by show.
type SalesReport struct {
	TheatreID int64
	// TimeZone is the theatre's (IANA): the CSV writes its times in it.
	TimeZone string
	Period   Period
	// Currency is the shows' currency; "" when they are sold in several,
	// and then Totals has no money figures.
	Currency string
	Shows    []ShowSales
	Totals   SalesTotals
}

// ShowSales is a show's line of the report.
type ShowSales struct {
	booking.ShowSales
	Occupancy float64 // Tickets / Seats, rounded to 3 decimals (0 for no seats)
}

// SalesTotals sums the report's lines. Money is nil when the shows are
// sold in more than one currency. A money total is Overflow when it
// cannot be represented (see money.Total): that figure is shown as too
// large, and the others stand.
type SalesTotals struct {
	Shows     int
	Seats     int
	Tickets   int
	Occupancy float64
	Money     *SalesMoney
	// Channels splits Tickets and the revenue by channel. Its revenues,
	// like Money, are only for shows sold in one currency: with Money nil
	// they are zero, and not to be shown.
	Channels booking.ChannelSales
}

// SalesMoney is the money of a report's lines, summed: Taken = Kept +
// RefundsOwed + RefundsPaid, line by line and so in total.
type SalesMoney struct {
	Revenue       money.Total
	Taken         money.Total
	Kept          money.Total
	RefundsOwed   money.Total
	RefundsPaid   money.Total
	RefundsFailed money.Total
}

// Sales is the sales report of theatreID's shows that start on the days of
// p, by the theatre's clock.
func (s *Service) Sales(ctx context.Context, a Actor, theatreID int64, p Period) (SalesReport, error) {
	if err := s.requireTheatre(ctx, a, theatreID); err != nil {
		return SalesReport{}, err
	}
	t, err := s.Store.Theatre(ctx, theatreID)
	if err != nil {
		return SalesReport{}, err
	}
	loc, err := time.LoadLocation(t.TimeZone)
	if err != nil {
		return SalesReport{}, fmt.Errorf("theatre %d: time zone %q: %w", theatreID, t.TimeZone, err)
	}
	rows, err := s.Store.SalesReport(ctx, theatreID, dayStart(p.From, loc), dayStart(p.To.AddDate(0, 0, 1), loc))
	if err != nil {
		return SalesReport{}, err
	}
	r := SalesReport{TheatreID: theatreID, TimeZone: t.TimeZone, Period: p, Shows: make([]ShowSales, len(rows))}
	for i, row := range rows {
		r.Shows[i] = ShowSales{ShowSales: row, Occupancy: occupancy(row.Tickets, row.Seats)}
	}
	r.Currency, r.Totals = totals(rows)
	return r, nil
}

// totals sums rows, and names their currency ("" for several).
func totals(rows []booking.ShowSales) (string, SalesTotals) {
	var t SalesTotals
	var m SalesMoney
	currency, mixed := "", false
	for _, row := range rows {
		t.Shows++
		t.Seats += row.Seats
		t.Tickets += row.Tickets
		t.Channels = t.Channels.Plus(row.Channels)
		m.Revenue = m.Revenue.Plus(row.Revenue)
		m.Taken = m.Taken.Plus(row.Taken)
		m.Kept = m.Kept.Plus(row.Kept)
		m.RefundsOwed = m.RefundsOwed.Plus(row.RefundsOwed)
		m.RefundsPaid = m.RefundsPaid.Plus(row.RefundsPaid)
		m.RefundsFailed = m.RefundsFailed.Plus(row.RefundsFailed)
		if currency != "" && row.Currency != currency {
			mixed = true
		}
		currency = row.Currency
	}
	t.Occupancy = occupancy(t.Tickets, t.Seats)
	if mixed {
		for _, s := range []*booking.Sold{&t.Channels.Online, &t.Channels.Cash, &t.Channels.Card, &t.Channels.Complimentary} {
			s.Revenue = money.Total{}
		}
		return "", t
	}
	t.Money = &m
	return currency, t
}

// occupancy is the share of seats sold, to 3 decimals.
func occupancy(tickets, seats int) float64 {
	if seats == 0 {
		return 0
	}
	return math.Round(float64(tickets)/float64(seats)*1000) / 1000
}

// salesCSVHeader names the CSV's columns: the JSON API's fields of a line,
// and the zone of its times. A spreadsheet shows a time as written, so
// starts_at is the theatre's wall clock with its offset from UTC
// (2026-12-02T21:00:00+00:00), and time_zone names the theatre's zone.
// The split by channel came later: its columns follow time_zone, so a
// sheet that reads the earlier columns by position reads them still.
var salesCSVHeader = []string{"show_id", "movie_title", "screen", "starts_at", "status", "currency", "seats", "tickets",
	"occupancy", "revenue_minor", "taken_minor", "kept_minor", "refunds_owed_minor", "refunds_paid_minor", "refunds_failed_minor",
	"time_zone",
	"online_tickets", "online_revenue_minor", "box_office_tickets", "box_office_revenue_minor",
	"box_office_cash_tickets", "box_office_cash_revenue_minor", "box_office_card_tickets", "box_office_card_revenue_minor",
	"complimentary_tickets", "complimentary_revenue_minor"}

// CSVTooLarge is a money cell whose sum cannot be represented: a word a
// spreadsheet keeps as text, never a wrong number.
const CSVTooLarge = "too_large"

func csvMinor(t money.Total) string {
	if t.Overflow {
		return CSVTooLarge
	}
	return strconv.FormatInt(t.Minor, 10)
}

// CSV is the report as the CSV an admin downloads, from the API or the
// sales page alike: a header row, then a row per show. Its name is the
// file name to offer.
func (r SalesReport) CSV() (data []byte, name string, err error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	records := make([][]string, 0, len(r.Shows)+1)
	records = append(records, salesCSVHeader)
	loc, err := time.LoadLocation(r.TimeZone)
	if err != nil {
		loc = time.UTC // a report made without its theatre: its times in UTC, and said so
		r.TimeZone = "UTC"
	}
	for _, s := range r.Shows {
		row := []string{
			strconv.FormatInt(s.ShowID, 10), spreadsheetText(s.MovieTitle), spreadsheetText(s.Screen),
			s.StartsAt.In(loc).Format("2006-01-02T15:04:05-07:00"), s.Status, s.Currency, strconv.Itoa(s.Seats), strconv.Itoa(s.Tickets),
			strconv.FormatFloat(s.Occupancy, 'f', 3, 64), csvMinor(s.Revenue), csvMinor(s.Taken), csvMinor(s.Kept),
			csvMinor(s.RefundsOwed), csvMinor(s.RefundsPaid), csvMinor(s.RefundsFailed), r.TimeZone,
		}
		ch := s.Channels
		for _, sold := range []booking.Sold{ch.Online, ch.BoxOffice(), ch.Cash, ch.Card, ch.Complimentary} {
			row = append(row, strconv.Itoa(sold.Tickets), csvMinor(sold.Revenue))
		}
		records = append(records, row)
	}
	if err := w.WriteAll(records); err != nil {
		return nil, "", fmt.Errorf("write sales csv: %w", err)
	}
	name = fmt.Sprintf("sales-%d-%s-%s.csv", r.TheatreID, r.Period.From.Format(time.DateOnly), r.Period.To.Format(time.DateOnly))
	return buf.Bytes(), name, nil
}
