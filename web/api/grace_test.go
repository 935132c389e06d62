package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// A payment the provider captured before its hold's deadline books it
// when its webhook arrives in the hold's payment grace; one captured after
// the deadline, or one that does not say when, is refunded then, and the
// seats stay held for the rest of the grace.
func TestWebhookInThePaymentGrace(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	start := e.Clock.Now()
	deadline := start.Add(webtest.HoldTTL)
	heldWithCheckout := func(seat string) (*webtest.Client, *webtest.Response) {
		t.Helper()
		c := e.User(t)
		h := c.MustHold(t, seat)
		webtest.Want(t, c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil), http.StatusCreated)
		return c, h
	}
	paid, late, unsaid := "D1", "D2", "D3"
	cPaid, hPaid := heldWithCheckout(paid)
	cLate, hLate := heldWithCheckout(late)
	_, hUnsaid := heldWithCheckout(unsaid)
	e.Clock.Set(deadline.Add(time.Minute))

	t.Run("captured 1 s before the deadline: BOOKED", func(t *testing.T) {
		body := e.PaymentFor(hPaid)
		captured := deadline.Add(-time.Second)
		body.CapturedAt = &captured
		r := e.Webhook(body)
		webtest.Want(t, r, http.StatusOK)
		if r.Str("outcome") != "BOOKED" || r.Str("booking_id") == "" {
			t.Fatalf("webhook in the grace = %s, want BOOKED", r)
		}
		if status, _ := cPaid.SeatStatus(t); status[paid] != "BOOKED" {
			t.Fatalf("%s = %s", paid, status[paid])
		}
	})
	t.Run("captured at the deadline: refunded, the seat held to the grace's end", func(t *testing.T) {
		body := e.PaymentFor(hLate)
		captured := deadline
		body.CapturedAt = &captured
		r := e.Webhook(body)
		webtest.Want(t, r, http.StatusOK)
		if r.Str("outcome") != "REFUND_REQUIRED" || r.Str("reason") != booking.ReasonHoldExpired {
			t.Fatalf("webhook of a late capture = %s, want REFUND_REQUIRED hold_expired", r)
		}
		if status, mine := cLate.SeatStatus(t); status[late] != "HELD" || !mine[late] {
			t.Fatalf("%s = %s (mine %v) in the grace", late, status[late], mine[late])
		}
	})
	t.Run("no capture time, received after the deadline: refunded", func(t *testing.T) {
		r := e.Webhook(e.PaymentFor(hUnsaid))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("outcome") != "REFUND_REQUIRED" {
			t.Fatalf("webhook without captured_at after the deadline = %s", r)
		}
	})
	t.Run("a captured_at that is not a time is refused and records nothing", func(t *testing.T) {
		raw := []byte(`{"payment_id":"pay_bad_time","hold_id":"` + hPaid.Str("hold_id") + `","amount_minor":1,"currency":"INR","status":"succeeded","captured_at":"yesterday"}`)
		if r := e.Webhook(raw); r.Status != http.StatusBadRequest {
			t.Fatalf("webhook with captured_at yesterday = %s, want 400", r)
		}
		if n := e.Count(t, `SELECT count(*) FROM payments WHERE payment_id = 'pay_bad_time'`); n != 0 {
			t.Fatal("recorded")
		}
	})

	e.Clock.Set(deadline.Add(booking.DefaultPaymentGrace))
	if status, _ := cLate.SeatStatus(t); status[late] != "AVAILABLE" || status[unsaid] != "AVAILABLE" {
		t.Fatalf("after the grace %s = %s, %s = %s; want AVAILABLE", late, status[late], unsaid, status[unsaid])
	}
}
