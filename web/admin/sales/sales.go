// Package sales serves the admin pages of what was sold and done: the
// dashboard with the ledger check, the sales report with its chart and
// CSV, the payments to check, and the audit log.
package sales

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Handlers are the sales pages' handlers, on the shared server.
type Handlers struct{ *web.Server }

// The sales report: GET /admin/reports/sales?theatre_id=&from=&to=, a table
// of the SalesReport use case with a chart of revenue per day; with
// &format=csv the same report as a CSV download, served here (the JSON
// API's CSV needs an Accept header a link cannot send).

// A report without dates covers the last defaultPastDays days, today
// included, and the defaultAheadDays after it: tickets sell ahead.
const (
	defaultPastDays  = 30
	defaultAheadDays = 7
)

// SalesPage is the sales report.
func (h *Handlers) SalesPage(c echo.Context) error {
	ctx := c.Request().Context()
	a := web.Actor(c)
	theatres, err := h.Admin.Theatres(ctx, a)
	if err != nil {
		return err
	}
	v := adminview.SalesView{Errors: map[string]string{}}
	m := adminpage.Meta(h.Server, c, "Sales")
	nv := adminpage.Nav(c, adminview.SectionSales)
	if len(theatres) == 0 {
		return web.Render(c, http.StatusOK, adminview.SalesPage(m, nv, v))
	}
	q := c.QueryParams()
	var theatre catalog.AdminTheatre
	if raw := q.Get("theatre_id"); raw != "" {
		id, err := web.ParseID(raw)
		if err != nil {
			return problem.NotFound("theatre")
		}
		i := slices.IndexFunc(theatres, func(t catalog.AdminTheatre) bool { return t.ID == id })
		if i < 0 {
			// Another theatre's report: the use case answers (404 to a
			// theatre admin), as it would for the JSON API.
			if _, err := h.Admin.Theatre(ctx, a, id); err != nil {
				return problem.Lookup("theatre", err)
			}
			return problem.NotFound("theatre")
		}
		theatre = theatres[i]
	} else {
		theatre = theatres[0]
	}
	v.TheatreID = theatre.ID
	for _, t := range theatres {
		v.Theatres = append(v.Theatres, adminview.TheatreOption{ID: t.ID, Name: t.Name, Selected: t.ID == theatre.ID})
	}
	zone := format.Zone(theatre.TimeZone)
	now, err := h.Store.Now(ctx)
	if err != nil {
		return err
	}
	today := now.In(zone)
	v.From, v.To = q.Get("from"), q.Get("to")
	if v.From == "" && v.To == "" {
		v.To = today.AddDate(0, 0, defaultAheadDays).Format(time.DateOnly)
		v.From = today.AddDate(0, 0, 1-defaultPastDays).Format(time.DateOnly)
	}
	period, err := admin.ParsePeriod(v.From, v.To)
	var fe *catalog.FieldError
	if errors.As(err, &fe) {
		v.Errors[fe.Field] = problem.Sentence(fe.Message)
		return web.Render(c, http.StatusUnprocessableEntity, adminview.SalesPage(m, nv, v))
	}
	if err != nil {
		return err
	}
	r, err := h.Admin.Sales(ctx, a, theatre.ID, period)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	if q.Get("format") == "csv" {
		return web.DownloadCSV(c, r.CSV)
	}
	v.Ran = true
	v.CSVHref = "/admin/reports/sales?" + url.Values{"theatre_id": {strconv.FormatInt(theatre.ID, 10)},
		"from": {v.From}, "to": {v.To}, "format": {"csv"}}.Encode()
	for _, s := range r.Shows {
		v.Rows = append(v.Rows, adminview.SalesRow{
			ShowID: s.ShowID, Date: format.Date(s.StartsAt, theatre.TimeZone), Time: format.Clock(s.StartsAt, theatre.TimeZone),
			Movie: s.MovieTitle, Screen: s.Screen, Cancelled: s.Status == "CANCELLED", Tickets: s.Tickets, Seats: s.Seats,
			Occupancy: percent(s.Occupancy), Revenue: format.Total(s.Revenue, s.Currency),
			Taken: format.Total(s.Taken, s.Currency), Kept: format.Total(s.Kept, s.Currency),
			RefundsOwed: format.Total(s.RefundsOwed, s.Currency), RefundsPaid: format.Total(s.RefundsPaid, s.Currency),
			RefundsFailed: format.Total(s.RefundsFailed, s.Currency),
			Channels:      salesChannels(s.Channels, func(t money.Total) string { return format.Total(t, s.Currency) }),
		})
	}
	t := r.Totals
	v.Total = adminview.SalesRow{Tickets: t.Tickets, Seats: t.Seats, Occupancy: percent(t.Occupancy)}
	v.Total.Channels = salesChannels(t.Channels, func(m money.Total) string {
		if t.Money == nil {
			return several
		}
		return format.Total(m, r.Currency)
	})
	if m := t.Money; m != nil {
		v.Total.Revenue, v.Total.Taken, v.Total.Kept = format.Total(m.Revenue, r.Currency), format.Total(m.Taken, r.Currency), format.Total(m.Kept, r.Currency)
		v.Total.RefundsOwed, v.Total.RefundsPaid = format.Total(m.RefundsOwed, r.Currency), format.Total(m.RefundsPaid, r.Currency)
		v.Total.RefundsFailed = format.Total(m.RefundsFailed, r.Currency)
	} else {
		v.Total.Revenue, v.Total.Taken, v.Total.Kept, v.Total.RefundsOwed, v.Total.RefundsPaid, v.Total.RefundsFailed =
			several, several, several, several, several, several
	}
	v.Chart = salesChart(r, theatre)
	return web.Render(c, http.StatusOK, adminview.SalesPage(m, nv, v))
}

// several stands for a sum of money in several currencies.
const several = "several currencies"

// salesChannels is c as the page writes it, each revenue by written.
func salesChannels(c booking.ChannelSales, written func(money.Total) string) adminview.SalesChannels {
	one := func(s booking.Sold) adminview.SalesChannel {
		return adminview.SalesChannel{Tickets: s.Tickets, Revenue: written(s.Revenue)}
	}
	return adminview.SalesChannels{Online: one(c.Online), BoxOffice: one(c.BoxOffice()), Cash: one(c.Cash), Card: one(c.Card),
		Complimentary: one(c.Complimentary)}
}

func percent(share float64) string {
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}

// Chart geometry, in the SVG's user units.
const (
	chartWidth  = 720
	chartHeight = 240
	chartAxis   = 20 // below the bars: the day labels
	chartTop    = 20 // above the tallest bar: its value
	chartLeft   = 80 // left of the bars: the value axis's labels
	// chartValuesUpTo is the most days whose bars are each labelled with
	// their value; past it they would overlap (each bar's value is in its
	// tooltip and in the table of figures anyway).
	chartValuesUpTo = 14
)

// salesChart is the revenue of each day of r's period, a bar a day, each
// bar's label with the day's money taken and kept too; the tickets sold
// instead when its shows are sold in several currencies, or its revenue is
// too large to add up.
func salesChart(r admin.SalesReport, theatre catalog.AdminTheatre) adminview.SalesChart {
	days := int(r.Period.To.Sub(r.Period.From)/(24*time.Hour)) + 1
	perDay := make([]int64, days)
	taken, kept := make([]money.Total, days), make([]money.Total, days)
	// Every revenue is at least 0, so no day's sum overflows when the
	// period's does not.
	byRevenue := r.Totals.Money != nil && !r.Totals.Money.Revenue.Overflow
	for _, s := range r.Shows {
		local := s.StartsAt.In(format.Zone(theatre.TimeZone))
		d := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
		i := int(d.Sub(r.Period.From) / (24 * time.Hour))
		if i < 0 || i >= days {
			continue
		}
		if byRevenue {
			perDay[i] += s.Revenue.Minor
			taken[i], kept[i] = taken[i].Plus(s.Taken), kept[i].Plus(s.Kept)
		} else {
			perDay[i] += int64(s.Tickets)
		}
	}
	value := func(n int64) string {
		if byRevenue {
			return format.Money(n, r.Currency)
		}
		return format.Plural(int(n), "ticket")
	}
	top := slices.Max(perDay)
	var total int64
	best := 0
	for i, n := range perDay {
		total += n
		if n > perDay[best] {
			best = i
		}
	}
	from, to := format.Day(r.Period.From), format.Day(r.Period.To)
	ch := adminview.SalesChart{Width: chartWidth, Height: chartHeight}
	switch {
	case byRevenue:
		ch.Title = "Revenue per day at " + theatre.Name + ", " + from + " to " + to
	case r.Currency == "":
		ch.Title = "Tickets sold per day at " + theatre.Name + ", " + from + " to " + to + " (the shows are sold in several currencies)"
	default:
		ch.Title = "Tickets sold per day at " + theatre.Name + ", " + from + " to " + to + " (the revenue is too large to add up)"
	}
	if total == 0 {
		ch.Desc = "Nothing sold in these days."
	} else {
		ch.Desc = "In all " + value(total) + " over " + format.Plural(days, "day") + "; the best day was " +
			format.Day(r.Period.From.AddDate(0, 0, best)) + " with " + value(perDay[best]) + "."
	}
	ch.Left, ch.Base = chartLeft, chartHeight-chartAxis
	ch.Measure = "Tickets sold"
	if byRevenue {
		ch.Measure = "Revenue (" + r.Currency + ")"
	}
	slot := float64(chartWidth-chartLeft) / float64(days)
	plot := float64(chartHeight - chartAxis - chartTop)
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
	// The value axis: from 0 to a round value at or above the best day, in
	// up to 4 round steps; the bars are drawn to its scale.
	step := axisStep(top)
	axisTop := max(step, (top+step-1)/step*step)
	y := func(n int64) float64 { return float64(chartHeight-chartAxis) - plot*float64(n)/float64(axisTop) }
	for v := int64(0); v <= axisTop; v += step {
		ch.Grid = append(ch.Grid, adminview.SalesTick{X: num(y(v)), Label: value(v)})
	}
	for i, n := range perDay {
		day := r.Period.From.AddDate(0, 0, i)
		ch.Days = append(ch.Days, adminview.SalesDay{Day: format.Day(day), Value: value(n) + dayMoney(byRevenue, taken[i], kept[i], r.Currency)})
		if n <= 0 {
			continue
		}
		hgt := math.Max(1, float64(chartHeight-chartAxis)-y(n))
		bar := adminview.SalesBar{
			X: num(chartLeft + float64(i)*slot + slot*0.15), W: num(math.Max(slot*0.7, 0.5)),
			Y: num(float64(chartHeight-chartAxis) - hgt), H: num(hgt),
			Label: format.Day(day) + ": " + value(n) + dayMoney(byRevenue, taken[i], kept[i], r.Currency),
			Mid:   num(chartLeft + float64(i)*slot + slot/2),
		}
		if days <= chartValuesUpTo {
			bar.Value = value(n)
		}
		ch.Bars = append(ch.Bars, bar)
	}
	// About six day labels, whatever the period's length.
	every := max(1, (days+5)/6)
	for i := 0; i < days; i += every {
		ch.Ticks = append(ch.Ticks, adminview.SalesTick{X: num(chartLeft + float64(i)*slot + slot/2), Label: r.Period.From.AddDate(0, 0, i).Format("2 Jan")})
	}
	return ch
}

// axisStep is a round step (1, 2 or 5 times a power of ten) that divides
// 0 to top in at most 4 steps; 1 for nothing sold.
func axisStep(top int64) int64 {
	if top <= 0 {
		return 1
	}
	for mag := int64(1); ; mag *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if step := m * mag; step*4 >= top || mag > math.MaxInt64/100 {
				return step
			}
		}
	}
}

// dayMoney is what a day's bar adds to its revenue: the money taken for
// its shows and the money kept.
func dayMoney(byRevenue bool, taken, kept money.Total, currency string) string {
	if !byRevenue {
		return ""
	}
	return " revenue; " + format.Total(taken, currency) + " taken, " + format.Total(kept, currency) + " kept"
}
