package sales

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

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
	items, err := h.Admin.Reconciliation(c.Request().Context(), web.Actor(c))
	if err != nil {
		return err
	}
	v := adminview.ReconcileView{CSRF: web.CSRFToken(c), Notice: notice}
	for _, it := range items {
		r := adminview.ReconcileRow{
			Key: it.PaymentID, Payment: it.PaymentID, Paid: format.Money(it.AmountMinor, it.Currency),
			Customer: it.CustomerName, CustomerEmail: it.CustomerEmail,
			Since:    format.When(it.Since, it.TimeZone),
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
			r.Show = it.MovieTitle + ", " + it.TheatreName + ", " + format.When(it.StartsAt, it.TimeZone)
			r.ShowHref = adminpage.ShowPath(it.ShowID)
		} else {
			r.Show = "no known show"
		}
		if r.Key == key {
			r.Note, r.NoteError = note, noteError
		}
		v.Rows = append(v.Rows, r)
	}
	return web.Render(c, status, adminview.ReconciliationPage(adminpage.Meta(h.Server, c, "Payments to check"), adminpage.Nav(c, adminview.SectionReconciliation), v))
}

// ReconcileSubmit retries or resolves one payment to check.
func (h *Handlers) ReconcileSubmit(c echo.Context) error {
	id, check := c.FormValue("payment_id"), false
	if id == "" {
		id, check = c.FormValue("hold_id"), true
	}
	if id == "" || len(id) > 255 {
		return problem.NotFound("payment")
	}
	action, note := c.FormValue("action"), c.FormValue("note")
	err := h.Admin.Reconcile(c.Request().Context(), web.Actor(c), check, id, action, note)
	var fe *catalog.FieldError
	switch {
	case errors.As(err, &fe) && fe.Field == "note":
		return h.renderReconciliation(c, http.StatusUnprocessableEntity,
			&adminview.ShowNotice{Kind: "error", Title: "Not marked resolved", Text: problem.Sentence(fe.Message)}, id, note, problem.Sentence(fe.Message))
	case errors.As(err, &fe):
		return h.renderReconciliation(c, http.StatusUnprocessableEntity,
			&adminview.ShowNotice{Kind: "error", Title: "Nothing was changed", Text: problem.Sentence(fe.Message)}, "", "", "")
	case err != nil:
		return problem.Lookup("payment", err)
	}
	return web.SeeOther(c, "/admin/reconciliation?done="+url.QueryEscape(action))
}
