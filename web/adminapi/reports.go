package adminapi

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/web"
)

type salesRowJSON struct {
	ShowID        int64     `json:"show_id"`
	MovieTitle    string    `json:"movie_title"`
	Screen        string    `json:"screen"`
	StartsAt      time.Time `json:"starts_at"`
	Status        string    `json:"status"`
	Currency      string    `json:"currency"`
	Seats         int       `json:"seats"`
	Tickets       int       `json:"tickets"`
	Occupancy     float64   `json:"occupancy"` // tickets / seats, 0..1 to 3 decimals
	Revenue       int64     `json:"revenue_minor"`
	RefundsOwed   int64     `json:"refunds_owed_minor"`
	RefundsPaid   int64     `json:"refunds_paid_minor"`
	RefundsFailed int64     `json:"refunds_failed_minor"`
}

// salesTotalsJSON: the money fields are null when the shows are sold in
// more than one currency.
type salesTotalsJSON struct {
	Shows         int     `json:"shows"`
	Seats         int     `json:"seats"`
	Tickets       int     `json:"tickets"`
	Occupancy     float64 `json:"occupancy"`
	Revenue       *int64  `json:"revenue_minor"`
	RefundsOwed   *int64  `json:"refunds_owed_minor"`
	RefundsPaid   *int64  `json:"refunds_paid_minor"`
	RefundsFailed *int64  `json:"refunds_failed_minor"`
}

// SalesReport answers a theatre's sales, show by show, for the days from
// through to (the theatre's, inclusive): JSON, or CSV for Accept: text/csv.
func (h *Handlers) SalesReport(c echo.Context) error {
	theatreID, err := web.ParseID(c.QueryParam("theatre_id"))
	if err != nil {
		return web.BadQuery("theatre_id", "Name the theatre with theatre_id, a theatre's id.")
	}
	period, err := admin.ParsePeriod(c.QueryParam("from"), c.QueryParam("to"))
	if err != nil {
		return queryError(err)
	}
	r, err := h.Admin.Sales(c.Request().Context(), actor(c), theatreID, period)
	if err != nil {
		return web.Lookup("theatre", err)
	}
	rows := make([]salesRowJSON, len(r.Shows))
	for i, s := range r.Shows {
		rows[i] = salesRowJSON{
			ShowID: s.ShowID, MovieTitle: s.MovieTitle, Screen: s.Screen, StartsAt: s.StartsAt.UTC(),
			Status: s.Status, Currency: s.Currency, Seats: s.Seats, Tickets: s.Tickets, Occupancy: s.Occupancy,
			Revenue: s.Revenue, RefundsOwed: s.RefundsOwed, RefundsPaid: s.RefundsPaid, RefundsFailed: s.RefundsFailed,
		}
	}
	from, to := r.Period.From.Format(time.DateOnly), r.Period.To.Format(time.DateOnly)
	if wantsCSV(c) {
		return salesCSV(c, fmt.Sprintf("sales-%d-%s-%s.csv", theatreID, from, to), rows)
	}
	t := r.Totals
	var currency *string
	if r.Currency != "" {
		currency = &r.Currency
	}
	return c.JSON(http.StatusOK, map[string]any{
		"theatre_id": theatreID, "from": from, "to": to, "currency": currency, "shows": rows,
		"totals": salesTotalsJSON{
			Shows: t.Shows, Seats: t.Seats, Tickets: t.Tickets, Occupancy: t.Occupancy, Revenue: t.Revenue,
			RefundsOwed: t.RefundsOwed, RefundsPaid: t.RefundsPaid, RefundsFailed: t.RefundsFailed,
		},
	})
}

// wantsCSV reports whether the client asked for CSV rather than JSON.
func wantsCSV(c echo.Context) bool {
	for _, part := range strings.Split(c.Request().Header.Get(echo.HeaderAccept), ",") {
		mt, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(mt), "text/csv") {
			return true
		}
	}
	return false
}

var salesHeader = []string{"show_id", "movie_title", "screen", "starts_at", "status", "currency", "seats", "tickets",
	"occupancy", "revenue_minor", "refunds_owed_minor", "refunds_paid_minor", "refunds_failed_minor"}

// salesCSV answers rows as a CSV download: a header row, then one row per
// show.
func salesCSV(c echo.Context, filename string, rows []salesRowJSON) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	records := make([][]string, 0, len(rows)+1)
	records = append(records, salesHeader)
	for _, r := range rows {
		records = append(records, []string{
			strconv.FormatInt(r.ShowID, 10), spreadsheetText(r.MovieTitle), spreadsheetText(r.Screen),
			r.StartsAt.Format(time.RFC3339), r.Status, r.Currency, strconv.Itoa(r.Seats), strconv.Itoa(r.Tickets),
			strconv.FormatFloat(r.Occupancy, 'f', 3, 64), strconv.FormatInt(r.Revenue, 10),
			strconv.FormatInt(r.RefundsOwed, 10), strconv.FormatInt(r.RefundsPaid, 10), strconv.FormatInt(r.RefundsFailed, 10),
		})
	}
	if err := w.WriteAll(records); err != nil {
		return fmt.Errorf("write sales csv: %w", err)
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", filename))
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// spreadsheetText keeps a name a spreadsheet would read as a formula (a
// movie called "=HYPERLINK(...)") text.
func spreadsheetText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
