package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components/sandbox"
	"github.com/marquee-tickets/marquee/internal/payment"
)

// The pages of Sandbox Pay, the test payment provider this binary serves
// under /sandbox/ when it is the configured provider. They stand for a
// provider's own site: they know nothing of Marquee's sessions or holds
// beyond what the checkout recorded, and a checkout id is the capability
// to pay it (long and random). Their forms are CSRF-protected like ours.

var errInvalidBehaviour = newError(http.StatusUnprocessableEntity, "invalid_behaviour",
	"Pick one of the test behaviours offered.")

// sandboxCheckout shows a hosted checkout: merchant, amount, hold, the time
// left to pay, and Pay and Decline while it is open; once its hold has
// expired, a refusal with the way back to the show.
func (s *server) sandboxCheckout(c echo.Context) error {
	return s.renderCheckout(c, http.StatusOK, c.Param("checkout_id"))
}

// renderCheckout renders checkout id's page with status.
func (s *server) renderCheckout(c echo.Context, status int, id string) error {
	ctx := c.Request().Context()
	co, err := s.sandbox.Checkout(ctx, id)
	if err != nil {
		return lookup("checkout", err)
	}
	settings, err := s.sandbox.Settings(ctx)
	if err != nil {
		return err
	}
	now, err := s.sandbox.Now(ctx)
	if err != nil {
		return err
	}
	expired := co.Expired(now)
	v := sandbox.Checkout{
		ID: co.ID, Merchant: co.Merchant, Amount: money(co.AmountMinor, co.Currency), HoldID: co.HoldID,
		Open: co.Status == payment.CheckoutOpen && !expired, Behaviour: string(co.Behaviour), ReturnURL: co.ReturnURL,
		BackURL: co.BackURL, CSRF: csrfToken(c), FailRefunds: settings.FailRefunds,
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
	case expired:
		v.Outcome = "expired"
	case co.Status == payment.CheckoutOpen:
		for _, b := range payment.Behaviours {
			v.Behaviours = append(v.Behaviours, sandbox.Option{Value: string(b.Behaviour), Label: b.Description})
		}
	case co.Status == payment.CheckoutPaid:
		v.Outcome = "paid"
	default:
		v.Outcome = "declined"
	}
	if !v.Open && !expired {
		list, err := s.sandbox.Deliveries(ctx, co.ID, 20)
		if err != nil {
			return err
		}
		v.Deliveries = deliveryViews(list)
	}
	return render(c, status, sandbox.CheckoutPage(v))
}

// timeLeft formats a positive duration as the countdown shows it: 4:59,
// rounded up to the second.
func timeLeft(d time.Duration) string {
	secs := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(secs/60, 10) + ":" + fmt.Sprintf("%02d", secs%60)
}

// sandboxPay charges the checkout with the chosen test behaviour and sends
// the shopper back to the merchant. Paying twice charges once.
func (s *server) sandboxPay(c echo.Context) error {
	b, err := payment.ParseBehaviour(c.FormValue("behaviour"))
	if err != nil {
		return errInvalidBehaviour
	}
	co, err := s.sandbox.Pay(c.Request().Context(), c.Param("checkout_id"), b)
	if errors.Is(err, payment.ErrCheckoutExpired) {
		// Too late: no money taken; the page says so and leads back.
		return s.renderCheckout(c, http.StatusConflict, c.Param("checkout_id"))
	}
	if err != nil {
		return lookup("checkout", err)
	}
	return seeOther(c, co.ReturnURL)
}

// sandboxDecline declines the checkout and sends the shopper back.
func (s *server) sandboxDecline(c echo.Context) error {
	co, err := s.sandbox.Decline(c.Request().Context(), c.Param("checkout_id"))
	if errors.Is(err, payment.ErrCheckoutExpired) {
		return s.renderCheckout(c, http.StatusConflict, c.Param("checkout_id"))
	}
	if err != nil {
		return lookup("checkout", err)
	}
	return seeOther(c, co.ReturnURL)
}

// sandboxDashboard shows the developer switches and the latest webhooks.
func (s *server) sandboxDashboard(c echo.Context) error {
	ctx := c.Request().Context()
	settings, err := s.sandbox.Settings(ctx)
	if err != nil {
		return err
	}
	list, err := s.sandbox.Deliveries(ctx, "", 30)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, sandbox.DashboardPage(sandbox.Dashboard{
		CSRF: csrfToken(c), FailRefunds: settings.FailRefunds, Deliveries: deliveryViews(list),
	}))
}

// sandboxSettings switches refund failures on or off.
func (s *server) sandboxSettings(c echo.Context) error {
	var on bool
	switch c.FormValue("fail_refunds") {
	case "on":
		on = true
	case "off":
	default:
		return newError(http.StatusUnprocessableEntity, "invalid_setting", `fail_refunds must be "on" or "off".`)
	}
	if err := s.sandbox.SetFailRefunds(c.Request().Context(), on); err != nil {
		return err
	}
	return seeOther(c, "/sandbox")
}

func deliveryViews(list []payment.Delivery) []sandbox.Delivery {
	out := make([]sandbox.Delivery, 0, len(list))
	for _, d := range list {
		v := sandbox.Delivery{PaymentID: d.PaymentID, Event: d.Event, Status: d.Status, Attempts: d.Attempts}
		switch {
		case d.LastError != "":
			v.Last = d.LastError
		case d.LastStatus != nil:
			v.Last = "HTTP " + strconv.Itoa(*d.LastStatus)
		default:
			v.Last = "not sent yet"
		}
		when := d.NextAttemptAt
		if d.DeliveredAt != nil {
			when = *d.DeliveredAt
		}
		v.When = when.UTC().Format(time.TimeOnly) + " UTC"
		out = append(out, v)
	}
	return out
}
