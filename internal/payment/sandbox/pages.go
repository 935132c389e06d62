package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/money"
)

// The pages of Sandbox Pay, the test payment provider this binary serves
// under /sandbox/ when it is the configured provider. They stand for a
// provider's own site: they know nothing of Marquee's sessions or holds
// beyond what the checkout recorded, and a checkout id is the capability
// to pay it (long and random). Their forms are CSRF-protected like ours.
// Their errors are *echo.HTTPError with a message for a person, answered
// by the host's error handler like any other.

// Routes serves the sandbox's pages on e, each behind page (the host's page
// middleware: security headers, CSRF protection); csrf is the token their
// forms carry. The developer dashboard and its switch are also behind
// operator, the host's check of who may see every payment's webhooks and
// make refunds fail for everyone (its platform admins). A hosted checkout
// is for whoever has its link, the shopper it was opened for: its id is
// long and random.
//
//	GET  /sandbox                                 the developer dashboard: switches, latest webhooks
//	POST /sandbox/settings                        refunds fail, or not
//	GET  /sandbox/checkout/:checkout_id           a hosted checkout
//	POST /sandbox/checkout/:checkout_id/pay       pay it, with a test behaviour
//	POST /sandbox/checkout/:checkout_id/decline   decline it
func (s *Sandbox) Routes(e *echo.Echo, csrf func(echo.Context) string, page []echo.MiddlewareFunc, operator ...echo.MiddlewareFunc) {
	if len(operator) == 0 {
		panic("sandbox: Routes without a check of who may use the dashboard") // a wiring mistake
	}
	p := &pages{sb: s, csrf: csrf}
	dashboard := append(slices.Clip(page), operator...)
	e.GET(Prefix, p.dashboard, dashboard...)
	e.POST(Prefix+"/settings", p.settings, dashboard...)
	e.GET(Prefix+"/checkout/:checkout_id", p.checkout, page...)
	e.POST(Prefix+"/checkout/:checkout_id/pay", p.pay, page...)
	e.POST(Prefix+"/checkout/:checkout_id/decline", p.decline, page...)
}

// pages are the sandbox's handlers.
type pages struct {
	sb   *Sandbox
	csrf func(echo.Context) string
}

var (
	errInvalidBehaviour = echo.NewHTTPError(http.StatusUnprocessableEntity, "Pick one of the test behaviours offered.")
	errInvalidSetting   = echo.NewHTTPError(http.StatusUnprocessableEntity, `fail_refunds must be "on" or "off".`)
	errNoCheckout       = echo.NewHTTPError(http.StatusNotFound, "There is no checkout with this id.")
)

// lookup turns booking.ErrNotFound into a 404 of the checkout.
func lookup(err error) error {
	if errors.Is(err, booking.ErrNotFound) {
		return errNoCheckout
	}
	return err
}

// render writes comp with status, rendered into a buffer first, so a
// failing component still becomes a proper error answer.
func render(c echo.Context, status int, comp templ.Component) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// sandboxCheckout shows a hosted checkout: merchant, amount, hold, the time
// left to pay, and Pay and Decline while it is open; once its hold has
// expired, a refusal with the way back to the show.
func (p *pages) checkout(c echo.Context) error {
	return p.renderCheckout(c, http.StatusOK, c.Param("checkout_id"), false)
}

// renderCheckout renders checkout id's page with status; refusedPaid says
// the page answers a Pay or Decline refused because the hold is paid.
func (p *pages) renderCheckout(c echo.Context, status int, id string, refusedPaid bool) error {
	ctx := c.Request().Context()
	co, err := p.sb.Checkout(ctx, id)
	if err != nil {
		return lookup(err)
	}
	settings, err := p.sb.Settings(ctx)
	if err != nil {
		return err
	}
	now, err := p.sb.Now(ctx)
	if err != nil {
		return err
	}
	// A checkout of a hold another checkout paid takes no money, whatever
	// its own state; nor does one asked again to pay once paid.
	alreadyPaid := refusedPaid || (co.HoldPaid && co.Status != CheckoutPaid)
	expired := co.Expired(now) && !alreadyPaid
	v := checkoutView{
		ID: co.ID, Merchant: co.Merchant, Amount: money.Format(co.AmountMinor, co.Currency), HoldID: co.HoldID,
		Open: co.Status == CheckoutOpen && !expired && !alreadyPaid, Behaviour: string(co.Behaviour), ReturnURL: co.ReturnURL,
		BackURL: co.BackURL, CSRF: p.csrf(c), FailRefunds: settings.FailRefunds,
	}
	if v.BackURL == "" {
		v.BackURL = co.ReturnURL
	}
	if co.ExpiresAt != nil {
		v.Deadline = co.ExpiresAt.UTC().Format("15:04:05") + " UTC"
		if v.Open {
			v.ExpiresAt, v.ServerNow = co.ExpiresAt.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano)
			v.TimeLeft = timeLeft(co.ExpiresAt.Sub(now))
		}
	}
	switch {
	case alreadyPaid:
		v.Outcome = "already_paid"
	case expired:
		v.Outcome = "expired"
	case co.Status == CheckoutOpen:
		for _, b := range Behaviours {
			v.Behaviours = append(v.Behaviours, behaviourOption{Value: string(b.Behaviour), Label: b.Description})
		}
	case co.Status == CheckoutPaid:
		v.Outcome = "paid"
	default:
		v.Outcome = "declined"
	}
	if !v.Open && !expired && !refusedPaid {
		list, err := p.sb.Deliveries(ctx, co.ID, 20)
		if err != nil {
			return err
		}
		v.Deliveries = deliveryViews(list)
	}
	return render(c, status, checkoutPage(v))
}

// timeLeft formats a positive duration as the countdown shows it: 4:59,
// rounded up to the second.
func timeLeft(d time.Duration) string {
	secs := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(secs/60, 10) + ":" + fmt.Sprintf("%02d", secs%60)
}

// sandboxPay charges the checkout with the chosen test behaviour and sends
// the shopper back to the merchant. Paying twice charges once: a checkout
// whose hold is paid (by it, or another checkout) refuses, and says so.
func (p *pages) pay(c echo.Context) error {
	b, err := ParseBehaviour(c.FormValue("behaviour"))
	if err != nil {
		return errInvalidBehaviour
	}
	co, err := p.sb.Pay(c.Request().Context(), c.Param("checkout_id"), b)
	if errors.Is(err, ErrCheckoutExpired) || errors.Is(err, ErrHoldPaid) {
		// Too late, or paid already: no money taken; the page says so and
		// leads back.
		return p.renderCheckout(c, http.StatusConflict, c.Param("checkout_id"), errors.Is(err, ErrHoldPaid))
	}
	if err != nil {
		return lookup(err)
	}
	return c.Redirect(http.StatusSeeOther, co.ReturnURL)
}

// sandboxDecline declines the checkout and sends the shopper back.
func (p *pages) decline(c echo.Context) error {
	co, err := p.sb.Decline(c.Request().Context(), c.Param("checkout_id"))
	if errors.Is(err, ErrCheckoutExpired) || errors.Is(err, ErrHoldPaid) {
		return p.renderCheckout(c, http.StatusConflict, c.Param("checkout_id"), errors.Is(err, ErrHoldPaid))
	}
	if err != nil {
		return lookup(err)
	}
	return c.Redirect(http.StatusSeeOther, co.ReturnURL)
}

// sandboxDashboard shows the developer switches and the latest webhooks.
func (p *pages) dashboard(c echo.Context) error {
	ctx := c.Request().Context()
	settings, err := p.sb.Settings(ctx)
	if err != nil {
		return err
	}
	list, err := p.sb.Deliveries(ctx, "", 30)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, dashboardPage(dashboardView{
		CSRF: p.csrf(c), FailRefunds: settings.FailRefunds, Deliveries: deliveryViews(list),
	}))
}

// sandboxSettings switches refund failures on or off.
func (p *pages) settings(c echo.Context) error {
	var on bool
	switch c.FormValue("fail_refunds") {
	case "on":
		on = true
	case "off":
	default:
		return errInvalidSetting
	}
	if err := p.sb.SetFailRefunds(c.Request().Context(), on); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, Prefix)
}

func deliveryViews(list []Delivery) []deliveryView {
	out := make([]deliveryView, 0, len(list))
	for _, d := range list {
		v := deliveryView{PaymentID: d.PaymentID, Event: d.Event, Status: d.Status, Attempts: d.Attempts}
		switch {
		case d.LastError != "":
			v.Last = d.LastError
		case d.LastStatus != nil:
			v.Last = "HTTP " + strconv.Itoa(*d.LastStatus)
		default:
			v.Last = "not sent yet"
		}
		// A job River no longer keeps (removed some days after it
		// ended) leaves a delivery without its time.
		v.When = "—"
		for _, when := range []*time.Time{d.DeliveredAt, d.NextAttemptAt, d.GaveUpAt} {
			if when != nil {
				v.When = when.UTC().Format(time.TimeOnly) + " UTC"
				break
			}
		}
		out = append(out, v)
	}
	return out
}
