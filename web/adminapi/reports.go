package adminapi

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

type salesRowJSON struct {
	ShowID     int64     `json:"show_id"`
	MovieTitle string    `json:"movie_title"`
	Screen     string    `json:"screen"`
	StartsAt   time.Time `json:"starts_at"`
	Status     string    `json:"status"`
	Currency   string    `json:"currency"`
	Seats      int       `json:"seats"`
	Tickets    int       `json:"tickets"`
	Occupancy  float64   `json:"occupancy"` // tickets / seats, 0..1 to 3 decimals
	salesMoneyJSON
	Channels channelsJSON `json:"channels"`
}

// salesMoneyJSON is a line's or the totals' money: taken = kept +
// refunds_owed + refunds_paid. A figure whose sum cannot be represented is
// null, and too_large names it.
type salesMoneyJSON struct {
	Revenue       *int64   `json:"revenue_minor"`
	Taken         *int64   `json:"taken_minor"`
	Kept          *int64   `json:"kept_minor"`
	RefundsOwed   *int64   `json:"refunds_owed_minor"`
	RefundsPaid   *int64   `json:"refunds_paid_minor"`
	RefundsFailed *int64   `json:"refunds_failed_minor"`
	TooLarge      []string `json:"too_large,omitempty"`
}

func salesMoney(revenue, taken, kept, owed, paid, failed money.Total) salesMoneyJSON {
	return salesMoneyJSON{
		Revenue: revenue.Int64(), Taken: taken.Int64(), Kept: kept.Int64(),
		RefundsOwed: owed.Int64(), RefundsPaid: paid.Int64(), RefundsFailed: failed.Int64(),
		TooLarge: tooLarge(map[string]money.Total{"revenue_minor": revenue, "taken_minor": taken, "kept_minor": kept,
			"refunds_owed_minor": owed, "refunds_paid_minor": paid, "refunds_failed_minor": failed}),
	}
}

// tooLarge names, in order, the money fields whose sum cannot be
// represented; nil when every figure stands.
func tooLarge(fields map[string]money.Total) []string {
	var names []string
	for name, t := range fields {
		if t.Overflow {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// salesTotalsJSON: the money fields are null when the shows are sold in
// more than one currency.
type salesTotalsJSON struct {
	Shows     int     `json:"shows"`
	Seats     int     `json:"seats"`
	Tickets   int     `json:"tickets"`
	Occupancy float64 `json:"occupancy"`
	salesMoneyJSON
	Channels channelsJSON `json:"channels"`
}

// channelJSON is what one channel sold: its tickets (seats) and what they
// were paid. The revenue is null when it cannot be represented, and in the
// totals of shows sold in several currencies.
type channelJSON struct {
	Tickets int    `json:"tickets"`
	Revenue *int64 `json:"revenue_minor"`
}

// boxOfficeJSON is the counter's money sales, and the same split by how
// they were paid.
type boxOfficeJSON struct {
	channelJSON
	Cash channelJSON `json:"cash"`
	Card channelJSON `json:"card"`
}

// channelsJSON splits a line's (or the totals') tickets and revenue_minor
// by how the bookings were sold; the three channels add up to them.
type channelsJSON struct {
	Online        channelJSON   `json:"online"`
	BoxOffice     boxOfficeJSON `json:"box_office"`
	Complimentary channelJSON   `json:"complimentary"`
}

// channels is c as JSON, its revenues null unless withRevenue, and the
// names of its revenues too large to represent (for too_large).
func channels(c booking.ChannelSales, withRevenue bool) (channelsJSON, []string) {
	var tooBig []string
	one := func(name string, s booking.Sold) channelJSON {
		j := channelJSON{Tickets: s.Tickets}
		if withRevenue {
			j.Revenue = s.Revenue.Int64()
			if s.Revenue.Overflow {
				tooBig = append(tooBig, "channels."+name+".revenue_minor")
			}
		}
		return j
	}
	out := channelsJSON{
		Online: one("online", c.Online),
		BoxOffice: boxOfficeJSON{channelJSON: one("box_office", c.BoxOffice()),
			Cash: one("box_office.cash", c.Cash), Card: one("box_office.card", c.Card)},
		Complimentary: one("complimentary", c.Complimentary),
	}
	return out, tooBig
}

// SalesReport answers a theatre's sales, show by show, for the days from
// through to (the theatre's, inclusive): JSON, or CSV for Accept: text/csv.
func (h *Handlers) SalesReport(c echo.Context) error {
	theatreID, err := web.ParseID(c.QueryParam("theatre_id"))
	if err != nil {
		return problem.BadQuery("theatre_id", "Name the theatre with theatre_id, a theatre's id.")
	}
	period, err := admin.ParsePeriod(c.QueryParam("from"), c.QueryParam("to"))
	if err != nil {
		return queryError(err)
	}
	r, err := h.Admin.Sales(c.Request().Context(), actor(c), theatreID, period)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	rows := make([]salesRowJSON, len(r.Shows))
	for i, s := range r.Shows {
		rows[i] = salesRowJSON{
			ShowID: s.ShowID, MovieTitle: s.MovieTitle, Screen: s.Screen, StartsAt: s.StartsAt.UTC(),
			Status: s.Status, Currency: s.Currency, Seats: s.Seats, Tickets: s.Tickets, Occupancy: s.Occupancy,
			salesMoneyJSON: salesMoney(s.Revenue, s.Taken, s.Kept, s.RefundsOwed, s.RefundsPaid, s.RefundsFailed),
		}
		var tooBig []string
		rows[i].Channels, tooBig = channels(s.Channels, true)
		rows[i].TooLarge = append(rows[i].TooLarge, tooBig...)
		slices.Sort(rows[i].TooLarge)
	}
	from, to := r.Period.From.Format(time.DateOnly), r.Period.To.Format(time.DateOnly)
	if wantsCSV(c) {
		return web.DownloadCSV(c, r.CSV)
	}
	t := r.Totals
	var currency *string
	if r.Currency != "" {
		currency = &r.Currency
	}
	totals := salesTotalsJSON{Shows: t.Shows, Seats: t.Seats, Tickets: t.Tickets, Occupancy: t.Occupancy}
	if m := t.Money; m != nil {
		totals.salesMoneyJSON = salesMoney(m.Revenue, m.Taken, m.Kept, m.RefundsOwed, m.RefundsPaid, m.RefundsFailed)
	}
	var tooBig []string
	totals.Channels, tooBig = channels(t.Channels, t.Money != nil)
	totals.TooLarge = append(totals.TooLarge, tooBig...)
	slices.Sort(totals.TooLarge)
	return c.JSON(http.StatusOK, map[string]any{
		"theatre_id": theatreID, "from": from, "to": to, "currency": currency, "shows": rows, "totals": totals,
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
