package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/seatmap"
)

// A show's page: its live occupancy, blocking and unblocking seats, and
// cancelling it. Each step posts a form and comes back to the page (303)
// with what it did in the address (?blocked=A1,A2, ?cancelled=1&holds=..);
// a refused step renders the page again, 422 or 409, saying why.

// ShowPage is a show's live occupancy: GET /admin/shows/{id}, or with
// ?part=counts (htmx's poll) the figures alone.
func (h *Handlers) ShowPage(c echo.Context) error {
	showID, err := pathID(c, "show_id")
	if err != nil {
		return web.NotFound("show")
	}
	if c.QueryParam("part") == "counts" {
		counts, err := h.occupancyCounts(c, showID)
		if err != nil {
			return web.Lookup("show", err)
		}
		c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		return web.Render(c, http.StatusOK, adminview.OccupancyCountsPanel(counts))
	}
	return h.renderShow(c, http.StatusOK, showID, showNoticeFromQuery(c.QueryParams()), "", "", nil)
}

// showNoticeFromQuery says what the step that came back here did.
func showNoticeFromQuery(q url.Values) *adminview.ShowNotice {
	switch {
	case q.Get("cancelled") == "1":
		return &adminview.ShowNotice{Kind: "success", Title: "The show is cancelled",
			Text: format.Plural(queryCount(q.Get("holds")), "hold") + " released, " +
				format.Plural(queryCount(q.Get("bookings")), "booking") + " refunded in full."}
	case q.Has("blocked"):
		seats := parseSeatIDs(q.Get("blocked"))
		if len(seats) == 0 {
			return &adminview.ShowNotice{Kind: "info", Title: "Those seats were already blocked"}
		}
		return &adminview.ShowNotice{Kind: "success", Title: format.Plural(len(seats), "seat") + " blocked: " + strings.Join(seats, ", "),
			Text: "They are off sale until you unblock them."}
	case q.Has("unblocked"):
		seats := parseSeatIDs(q.Get("unblocked"))
		if len(seats) == 0 {
			return &adminview.ShowNotice{Kind: "info", Title: "None of those seats was blocked", Text: "Nothing changed."}
		}
		return &adminview.ShowNotice{Kind: "success", Title: format.Plural(len(seats), "seat") + " unblocked: " + strings.Join(seats, ", "),
			Text: "They are on sale again."}
	}
	return nil
}

func queryCount(s string) int {
	n, _ := strconv.Atoi(s)
	return max(n, 0)
}

// seatIDs reads seat ids typed or posted: separated by commas or spaces,
// upper-cased, each once, in the order given.
func parseSeatIDs(raw ...string) []string {
	var out []string
	for _, r := range raw {
		for _, f := range strings.FieldsFunc(r, func(c rune) bool { return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' }) {
			if id := strings.ToUpper(f); !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

func (h *Handlers) occupancyCounts(c echo.Context, showID int64) (adminview.OccupancyCounts, error) {
	ctx := c.Request().Context()
	o, err := h.Admin.ShowOccupancy(ctx, actor(c), showID)
	if err != nil {
		return adminview.OccupancyCounts{}, err
	}
	now, err := h.Store.Now(ctx)
	if err != nil {
		return adminview.OccupancyCounts{}, err
	}
	return occupancyCounts(o, o.Status != "CANCELLED" && now.Before(o.StartsAt)), nil
}

func occupancyCounts(o booking.Occupancy, poll bool) adminview.OccupancyCounts {
	return adminview.OccupancyCounts{
		ShowID: o.ShowID, Poll: poll,
		Available: o.Seats.Available, Held: o.Seats.Held, Booked: o.Seats.Booked, Blocked: o.Seats.Blocked,
		Revenue:     format.Total(o.Revenue, o.Currency),
		RefundsOwed: format.Total(o.RefundsOwed, o.Currency),
		RefundsPaid: format.Total(o.RefundsPaid, o.Currency),
	}
}

// renderShow renders the show's page with status, notice, and the seats
// typed with their error when a change was refused.
func (h *Handlers) renderShow(c echo.Context, status int, showID int64, notice *adminview.ShowNotice, seats, seatsError string, room *adminview.RoomView) error {
	ctx := c.Request().Context()
	a := actor(c)
	sh, err := h.Admin.AdminShow(ctx, a, showID)
	if err != nil {
		return web.Lookup("show", err)
	}
	o, err := h.Admin.ShowOccupancy(ctx, a, showID)
	if err != nil {
		return web.Lookup("show", err)
	}
	cancelled := o.Status == "CANCELLED"
	// A cancelled show has no seat map: nothing of it is for sale.
	var seatMap []booking.Seat
	if !cancelled {
		if seatMap, err = h.Store.SeatMap(ctx, showID, a.UserID); err != nil {
			return web.Lookup("show", err)
		}
	}
	now, err := h.Store.Now(ctx)
	if err != nil {
		return err
	}
	started := !now.Before(sh.StartsAt)
	zone := format.Zone(sh.TimeZone)
	v := adminview.OccupancyView{
		ShowID: showID, Movie: sh.MovieTitle, Theatre: sh.TheatreName,
		TheatreHref: "/admin/theatres/" + strconv.FormatInt(sh.TheatreID, 10), Screen: sh.ScreenName,
		When: format.LongDate(sh.StartsAt, sh.TimeZone) + ", " + format.Clock(sh.StartsAt, sh.TimeZone),
		Zone: format.ZoneAbbrev(sh.StartsAt, sh.TimeZone), StartsAt: sh.StartsAt.In(zone).Format(time.RFC3339),
		Cancelled: cancelled, Started: started,
		Counts: occupancyCounts(o, !cancelled && !started),
		Map:    adminSeatMap(showID, sh.Currency, seatMap),
		Live:   h.Config.Live != nil && !cancelled,
		CSRF:   web.CSRFToken(c), Notice: notice, Seats: seats, SeatsError: seatsError,
	}
	if v.Room, err = h.roomView(c, showID, sh.TimeZone, room); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return web.Render(c, status, adminview.OccupancyPage(h.meta(c, sh.MovieTitle+" · show"), nav(c, adminview.SectionTheatres), v))
}

// adminSeatMap is the show's seat map as moviegoers see it (seatmap.View),
// for the admin: nothing is picked by the map's own script; admin-show.js
// picks available and blocked seats.
func adminSeatMap(showID int64, currency string, seats []booking.Seat) components.SeatMapView {
	v := seatmap.View(seats, currency, nil, nil)
	v.ShowID = showID
	return v
}

// BlockSubmit takes the seats posted off sale: POST /admin/shows/{id}/blocks.
func (h *Handlers) BlockSubmit(c echo.Context) error { return h.seatChange(c, true) }

// UnblockSubmit puts the seats posted back on sale: POST
// /admin/shows/{id}/unblock.
func (h *Handlers) UnblockSubmit(c echo.Context) error { return h.seatChange(c, false) }

func (h *Handlers) seatChange(c echo.Context, block bool) error {
	showID, err := pathID(c, "show_id")
	if err != nil {
		return web.NotFound("show")
	}
	form, err := c.FormParams()
	if err != nil {
		return web.NewError(http.StatusBadRequest, "bad_form", "The form could not be read.")
	}
	typed := strings.TrimSpace(form.Get("seats"))
	seats := parseSeatIDs(append([]string{typed}, form["seat"]...)...)
	ctx := c.Request().Context()
	var changed []string
	if block {
		changed, err = h.Admin.BlockSeats(ctx, actor(c), showID, seats)
	} else {
		changed, err = h.Admin.UnblockSeats(ctx, actor(c), showID, seats)
	}
	if err != nil {
		return h.seatChangeRefused(c, showID, err, block, strings.Join(seats, ", "))
	}
	key := "unblocked"
	if block {
		key = "blocked"
	}
	return web.SeeOther(c, occupancyPath(showID)+"?"+key+"="+url.QueryEscape(strings.Join(changed, ",")))
}

func occupancyPath(id int64) string { return "/admin/shows/" + strconv.FormatInt(id, 10) }

// seatChangeRefused renders the page again saying why the seats were not
// changed; an error that is not the request's (not found, forbidden, ours)
// is returned as it is.
func (h *Handlers) seatChangeRefused(c echo.Context, showID int64, err error, block bool, typed string) error {
	var taken *booking.SeatsUnavailableError
	var unknown *booking.UnknownSeatsError
	what := "unblocked"
	if block {
		what = "blocked"
	}
	var msg string
	status := http.StatusUnprocessableEntity
	switch {
	case errors.As(err, &taken):
		status = http.StatusConflict
		msg = "Held or sold, so they cannot be blocked: " + strings.Join(taken.Seats, ", ") + ". Nothing was changed."
	case errors.As(err, &unknown):
		msg = "This show has no seats " + strings.Join(unknown.Seats, ", ") + "."
	case errors.Is(err, catalog.ErrShowCancelled):
		status = http.StatusConflict
		msg = "The show is cancelled: its seats can no longer change."
	default:
		ae, internal := web.ErrorFor(err)
		if internal || ae.Status != http.StatusUnprocessableEntity {
			return web.Lookup("show", err)
		}
		msg = ae.Message
	}
	notice := &adminview.ShowNotice{Kind: "error", Title: "No seats were " + what, Text: msg}
	return h.renderShow(c, status, showID, notice, typed, msg, nil)
}

// CancelShowSubmit cancels the show: POST /admin/shows/{id}/cancel.
func (h *Handlers) CancelShowSubmit(c echo.Context) error {
	showID, err := pathID(c, "show_id")
	if err != nil {
		return web.NotFound("show")
	}
	res, err := h.Admin.CancelShow(c.Request().Context(), actor(c), showID)
	if err != nil {
		return web.Lookup("show", err)
	}
	return web.SeeOther(c, occupancyPath(showID)+"?cancelled=1&holds="+strconv.Itoa(res.HoldsReleased)+
		"&bookings="+strconv.Itoa(res.BookingsRefunded))
}

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
	a := actor(c)
	theatres, err := h.Admin.Theatres(ctx, a)
	if err != nil {
		return err
	}
	v := adminview.SalesView{Errors: map[string]string{}}
	m := h.meta(c, "Sales")
	nv := nav(c, adminview.SectionSales)
	if len(theatres) == 0 {
		return web.Render(c, http.StatusOK, adminview.SalesPage(m, nv, v))
	}
	q := c.QueryParams()
	var theatre catalog.AdminTheatre
	if raw := q.Get("theatre_id"); raw != "" {
		id, err := web.ParseID(raw)
		if err != nil {
			return web.NotFound("theatre")
		}
		i := slices.IndexFunc(theatres, func(t catalog.AdminTheatre) bool { return t.ID == id })
		if i < 0 {
			// Another theatre's report: the use case answers (404 to a
			// theatre admin), as it would for the JSON API.
			if _, err := h.Admin.Theatre(ctx, a, id); err != nil {
				return web.Lookup("theatre", err)
			}
			return web.NotFound("theatre")
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
		v.Errors[fe.Field] = web.Sentence(fe.Message)
		return web.Render(c, http.StatusUnprocessableEntity, adminview.SalesPage(m, nv, v))
	}
	if err != nil {
		return err
	}
	r, err := h.Admin.Sales(ctx, a, theatre.ID, period)
	if err != nil {
		return web.Lookup("theatre", err)
	}
	if q.Get("format") == "csv" {
		return web.DownloadCSV(c, r.CSV)
	}
	v.Ran = true
	v.CSVHref = "/admin/reports/sales?" + url.Values{"theatre_id": {strconv.FormatInt(theatre.ID, 10)},
		"from": {v.From}, "to": {v.To}, "format": {"csv"}}.Encode()
	for _, s := range r.Shows {
		v.Rows = append(v.Rows, adminview.SalesRow{
			ShowID: s.ShowID, Date: format.ShortDate(s.StartsAt, theatre.TimeZone), Time: format.Clock(s.StartsAt, theatre.TimeZone),
			Movie: s.MovieTitle, Screen: s.Screen, Cancelled: s.Status == "CANCELLED", Tickets: s.Tickets, Seats: s.Seats,
			Occupancy: percent(s.Occupancy), Revenue: format.Total(s.Revenue, s.Currency),
			Taken: format.Total(s.Taken, s.Currency), Kept: format.Total(s.Kept, s.Currency),
			RefundsOwed: format.Total(s.RefundsOwed, s.Currency), RefundsPaid: format.Total(s.RefundsPaid, s.Currency),
			RefundsFailed: format.Total(s.RefundsFailed, s.Currency),
		})
	}
	t := r.Totals
	v.Total = adminview.SalesRow{Tickets: t.Tickets, Seats: t.Seats, Occupancy: percent(t.Occupancy)}
	if m := t.Money; m != nil {
		v.Total.Revenue, v.Total.Taken, v.Total.Kept = format.Total(m.Revenue, r.Currency), format.Total(m.Taken, r.Currency), format.Total(m.Kept, r.Currency)
		v.Total.RefundsOwed, v.Total.RefundsPaid = format.Total(m.RefundsOwed, r.Currency), format.Total(m.RefundsPaid, r.Currency)
		v.Total.RefundsFailed = format.Total(m.RefundsFailed, r.Currency)
	} else {
		const several = "several currencies"
		v.Total.Revenue, v.Total.Taken, v.Total.Kept, v.Total.RefundsOwed, v.Total.RefundsPaid, v.Total.RefundsFailed =
			several, several, several, several, several, several
	}
	v.Chart = salesChart(r, theatre)
	return web.Render(c, http.StatusOK, adminview.SalesPage(m, nv, v))
}

func percent(share float64) string {
	return strconv.FormatFloat(share*100, 'f', 1, 64) + "%"
}

// Chart geometry, in the SVG's user units.
const (
	chartWidth  = 720
	chartHeight = 220
	chartAxis   = 20 // below the bars: the day labels
	chartTop    = 8
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
	from, to := r.Period.From.Format("2 Jan 2006"), r.Period.To.Format("2 Jan 2006")
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
			r.Period.From.AddDate(0, 0, best).Format("2 Jan") + " with " + value(perDay[best]) + "."
	}
	slot := float64(chartWidth) / float64(days)
	plot := float64(chartHeight - chartAxis - chartTop)
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
	for i, n := range perDay {
		day := r.Period.From.AddDate(0, 0, i)
		if top > 0 && n > 0 {
			hgt := math.Max(1, plot*float64(n)/float64(top))
			ch.Bars = append(ch.Bars, adminview.SalesBar{
				X: num(float64(i)*slot + slot*0.15), W: num(math.Max(slot*0.7, 0.5)),
				Y: num(float64(chartHeight-chartAxis) - hgt), H: num(hgt),
				Label: day.Format("2 Jan") + ": " + value(n) + dayMoney(byRevenue, taken[i], kept[i], r.Currency),
			})
		}
	}
	// About six day labels, whatever the period's length.
	step := max(1, (days+5)/6)
	for i := 0; i < days; i += step {
		ch.Ticks = append(ch.Ticks, adminview.SalesTick{X: num(float64(i)*slot + slot/2), Label: r.Period.From.AddDate(0, 0, i).Format("2 Jan")})
	}
	return ch
}

// dayMoney is what a day's bar adds to its revenue: the money taken for
// its shows and the money kept.
func dayMoney(byRevenue bool, taken, kept money.Total, currency string) string {
	if !byRevenue {
		return ""
	}
	return " revenue; " + format.Total(taken, currency) + " taken, " + format.Total(kept, currency) + " kept"
}

// Payments to check: GET /admin/reconciliation lists them; POST
// /admin/reconciliation with action=retry or action=resolve (and a note)
// acts on one, named by the form field payment_id, or hold_id for a
// checkout the provider never answered about. The id travels in the form,
// never in the address: a payment id is the provider's text.

// ReconciliationPage is the queue of payments to check.
func (h *Handlers) ReconciliationPage(c echo.Context) error {
	var notice *adminview.ShowNotice
	switch c.QueryParam("done") {
	case "retry":
		notice = &adminview.ShowNotice{Kind: "success", Title: "Retry scheduled",
			Text: "It is due now: the worker tries again within moments. It comes back here if it keeps failing."}
	case "resolve":
		notice = &adminview.ShowNotice{Kind: "success", Title: "Marked resolved", Text: "It left the queue; the note is in the audit log."}
	}
	return h.renderReconciliation(c, http.StatusOK, notice, "", "", "")
}

// renderReconciliation renders the queue; key's note form shows noteError
// and keeps note.
func (h *Handlers) renderReconciliation(c echo.Context, status int, notice *adminview.ShowNotice, key, note, noteError string) error {
	items, err := h.Admin.Reconciliation(c.Request().Context(), actor(c))
	if err != nil {
		return err
	}
	v := adminview.ReconcileView{CSRF: web.CSRFToken(c), Notice: notice}
	for _, it := range items {
		r := adminview.ReconcileRow{
			Key: it.PaymentID, Payment: it.PaymentID, Paid: format.Money(it.AmountMinor, it.Currency),
			Customer: it.CustomerName, CustomerEmail: it.CustomerEmail,
			Since:    format.ShortDate(it.Since, "UTC") + " " + format.Clock(it.Since, "UTC") + " UTC",
			SinceISO: it.Since.UTC().Format(time.RFC3339),
		}
		if it.RefundStatus != "" {
			r.Refund = format.Money(it.RefundMinor, it.Currency)
		}
		switch it.Kind {
		case booking.ReconcileRefundFailed:
			r.Kind = "Refund failing"
			r.CanRetry = true
			r.Detail = "refund failed " + format.Plural(it.RefundAttempts, "time")
		case booking.ReconcileAmountMismatch:
			r.Kind = "Amount did not match the hold"
			if it.RefundStatus != "" {
				r.Detail = "refund " + strings.ToLower(it.RefundStatus)
			}
			r.CanRetry = it.RefundStatus == "FAILED"
		case booking.ReconcileUnsettledCheck:
			r.Kind = "No outcome from the payment provider"
			r.Key, r.Check, r.CanRetry = it.HoldID, true, true
			r.Payment = ""
			r.Detail = "checkout of hold " + it.HoldID + ", provider asked " + format.Plural(it.Checks, "time")
		}
		if it.LastError != "" {
			r.Detail += "; last error: " + it.LastError
		}
		if it.ShowID != 0 {
			r.Show = it.MovieTitle + ", " + it.TheatreName + ", " + format.ShortDate(it.StartsAt, "UTC")
			r.ShowHref = occupancyPath(it.ShowID)
		} else {
			r.Show = "no known show"
		}
		if r.Key == key {
			r.Note, r.NoteError = note, noteError
		}
		v.Rows = append(v.Rows, r)
	}
	return web.Render(c, status, adminview.ReconciliationPage(h.meta(c, "Payments to check"), nav(c, adminview.SectionReconciliation), v))
}

// ReconcileSubmit retries or resolves one payment to check.
func (h *Handlers) ReconcileSubmit(c echo.Context) error {
	id, check := c.FormValue("payment_id"), false
	if id == "" {
		id, check = c.FormValue("hold_id"), true
	}
	if id == "" || len(id) > 255 {
		return web.NotFound("payment")
	}
	action, note := c.FormValue("action"), c.FormValue("note")
	err := h.Admin.Reconcile(c.Request().Context(), actor(c), check, id, action, note)
	var fe *catalog.FieldError
	switch {
	case errors.As(err, &fe) && fe.Field == "note":
		return h.renderReconciliation(c, http.StatusUnprocessableEntity,
			&adminview.ShowNotice{Kind: "error", Title: "Not marked resolved", Text: web.Sentence(fe.Message)}, id, note, web.Sentence(fe.Message))
	case errors.As(err, &fe):
		return h.renderReconciliation(c, http.StatusUnprocessableEntity,
			&adminview.ShowNotice{Kind: "error", Title: "Nothing was changed", Text: web.Sentence(fe.Message)}, "", "", "")
	case err != nil:
		return web.Lookup("payment", err)
	}
	return web.SeeOther(c, "/admin/reconciliation?done="+url.QueryEscape(action))
}

// auditPageLimit is how many entries the audit page shows.
const auditPageLimit = 200

// AuditPage is the audit log, newest first, for platform admins: GET
// /admin/audit?theatre_id=&actor=&from=&to=.
func (h *Handlers) AuditPage(c echo.Context) error {
	ctx := c.Request().Context()
	a := actor(c)
	if !a.Platform() {
		return admin.ErrPlatformOnly
	}
	q := c.QueryParams()
	v := adminview.AuditView{Email: strings.TrimSpace(q.Get("actor")), From: q.Get("from"), To: q.Get("to"),
		Errors: map[string]string{}, Limit: auditPageLimit}
	f := audit.Filter{ActorEmail: v.Email, Limit: auditPageLimit}
	if raw := q.Get("theatre_id"); raw != "" {
		id, err := web.ParseID(raw)
		if err != nil {
			v.Errors["theatre_id"] = "Pick a theatre from the list."
		}
		f.TheatreID = id
	}
	if len(v.Email) > 254 || strings.ContainsFunc(v.Email, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		v.Errors["actor"] = "Type an admin's email address."
	}
	for _, d := range []struct {
		field string
		into  *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if raw := q.Get(d.field); raw != "" {
			t, err := time.Parse(time.DateOnly, raw)
			if err != nil {
				v.Errors[d.field] = "Type a date as YYYY-MM-DD."
				continue
			}
			*d.into = t
		}
	}
	if v.Errors["from"] == "" && v.Errors["to"] == "" && !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		v.Errors["to"] = "The last day comes before the first."
	}
	theatres, err := h.Admin.Theatres(ctx, a)
	if err != nil {
		return err
	}
	names := map[int64]string{}
	for _, t := range theatres {
		names[t.ID] = t.Name
		v.Theatres = append(v.Theatres, adminview.TheatreOption{ID: t.ID, Name: t.Name, Selected: t.ID == f.TheatreID})
	}
	m, nv := h.meta(c, "Audit log"), nav(c, adminview.SectionAudit)
	if len(v.Errors) > 0 {
		return web.Render(c, http.StatusUnprocessableEntity, adminview.AuditPage(m, nv, v))
	}
	records, err := h.Admin.AuditLog(ctx, a, f)
	if err != nil {
		return err
	}
	for _, r := range records {
		row := adminview.AuditRow{
			When: format.ShortDate(r.At, "UTC") + " " + r.At.UTC().Format("15:04:05") + " UTC", WhenISO: r.At.UTC().Format(time.RFC3339),
			Who: r.ActorEmail, Action: r.Action, Object: r.Object, Before: compactJSON(r.Before), After: compactJSON(r.After),
		}
		if r.TheatreID != 0 {
			row.Theatre = names[r.TheatreID]
			if row.Theatre == "" {
				row.Theatre = "theatre " + strconv.FormatInt(r.TheatreID, 10)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return web.Render(c, http.StatusOK, adminview.AuditPage(m, nv, v))
}

// compactJSON is an entry's before or after as one line of JSON ("" for
// none).
func compactJSON(v any) string {
	raw, ok := v.(json.RawMessage)
	if !ok || raw == nil || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
