package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The payment provider's webhook: believed only when signed, recorded once
// per payment id, and never able to sell a seat twice.
func TestPaymentWebhook(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	payments := func(t *testing.T) int64 { return e.Count(t, `SELECT count(*) FROM payments`) }

	t.Run("unsigned, mis-signed or stale reports are refused and nothing is recorded", func(t *testing.T) {
		h := e.User(t).MustHold(t, "A1")
		raw, _ := json.Marshal(e.PaymentFor(h))
		now := time.Now()
		cases := []struct {
			name, signature, code string
		}{
			{"missing header", "", "signature_missing"},
			{"garbage header", "nonsense", "signature_malformed"},
			{"wrong secret", payment.Sign([]byte("whsec_attacker"), now, raw), "signature_invalid"},
			{"signed for another body", payment.Sign(webtest.WebhookSecret, now, []byte(`{}`)), "signature_invalid"},
			// A few seconds past the tolerance: the header carries whole
			// seconds, and the request reaches the server a moment after now.
			{"too old", payment.Sign(webtest.WebhookSecret, now.Add(-payment.DefaultTolerance-5*time.Second), raw), "signature_stale"},
			{"from the future", payment.Sign(webtest.WebhookSecret, now.Add(payment.DefaultTolerance+5*time.Second), raw), "signature_stale"},
		}
		before, snap := payments(t), e.Snapshot(t)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				webtest.WantError(t, e.WebhookSigned(raw, tc.signature), http.StatusBadRequest, tc.code)
				if n := payments(t); n != before {
					t.Fatalf("payments = %d, want %d", n, before)
				}
			})
		}
		if got := e.Snapshot(t); got != snap {
			t.Fatalf("database changed:\n%s\n%s", snap, got)
		}
	})

	t.Run("a failed payment is ignored and its id stays free", func(t *testing.T) {
		h := e.User(t).MustHold(t, "A2")
		p := e.PaymentFor(h)
		p.Status = "failed"
		before := payments(t)
		r := e.Webhook(p)
		webtest.Want(t, r, http.StatusOK)
		if r.Str("outcome") != "IGNORED" || payments(t) != before {
			t.Fatalf("failed payment = %s, payments %d -> %d", r, before, payments(t))
		}
		p.Status = "succeeded"
		r = e.Webhook(p)
		webtest.Want(t, r, http.StatusOK)
		if r.Str("outcome") != "BOOKED" {
			t.Fatalf("the same id succeeding later = %s, want BOOKED", r)
		}
	})

	t.Run("a duplicate delivery gets the same outcome", func(t *testing.T) {
		h := e.User(t).MustHold(t, "A3")
		p := e.PaymentFor(h)
		first := e.Webhook(p)
		webtest.Want(t, first, http.StatusOK)
		second := e.Webhook(p)
		webtest.Want(t, second, http.StatusOK)
		if string(first.Body) != string(second.Body) || first.Str("outcome") != "BOOKED" {
			t.Fatalf("first %s, second %s", first, second)
		}
		if n := e.Count(t, `SELECT count(*) FROM payments WHERE payment_id = $1`, p.PaymentID); n != 1 {
			t.Fatalf("%d payment rows", n)
		}
	})

	t.Run("the same payment id with another amount is a conflict", func(t *testing.T) {
		h := e.User(t).MustHold(t, "A4")
		paid := e.PaymentFor(h)
		webtest.Want(t, e.Webhook(paid), http.StatusOK)
		changed := paid
		changed.AmountMinor++
		before := e.Snapshot(t)
		webtest.WantError(t, e.Webhook(changed), http.StatusConflict, "payment_conflict")
		changed = paid
		changed.HoldID = "00000000-0000-4000-8000-000000000000"
		webtest.WantError(t, e.Webhook(changed), http.StatusConflict, "payment_conflict")
		if after := e.Snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
	})

	t.Run("a payment of the wrong amount is refused and owed back", func(t *testing.T) {
		c := e.User(t)
		h := c.MustHold(t, "A5")
		p := e.PaymentFor(h)
		p.AmountMinor--
		r := e.Webhook(p)
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "amount_mismatch")
		if r.Str("payment_id") != p.PaymentID || r.Str("outcome") != "REFUND_REQUIRED" {
			t.Fatalf("mismatch answer = %s", r)
		}
		if n := e.Count(t, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND amount_minor = $2`, p.PaymentID, p.AmountMinor); n != 1 {
			t.Fatalf("%d refunds for the mismatched payment, want 1", n)
		}
		webtest.WantError(t, e.Webhook(p), http.StatusUnprocessableEntity, "amount_mismatch")
		if n := e.Count(t, `SELECT count(*) FROM refunds WHERE payment_id = $1`, p.PaymentID); n != 1 {
			t.Fatalf("%d refunds after a repeat, want 1", n)
		}
		if r := c.Get("/api/v1/holds/" + h.Str("hold_id")); r.Str("state") != "HELD" {
			t.Fatalf("hold after a mismatched payment = %s, want still HELD", r)
		}
	})

	t.Run("a second payment for a confirmed hold is owed back", func(t *testing.T) {
		h := e.User(t).MustHold(t, "A6")
		first := e.Pay(t, h)
		r := e.Webhook(e.PaymentFor(h))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("outcome") != "REFUND_REQUIRED" || r.Str("booking_id") != "" {
			t.Fatalf("second payment = %s", r)
		}
		if n := e.Count(t, `SELECT count(*) FROM refunds WHERE payment_id = $1`, r.Str("payment_id")); n != 1 {
			t.Fatalf("%d refunds, want 1", n)
		}
		if n := e.Count(t, `SELECT count(*) FROM bookings WHERE hold_id = $1`, h.Str("hold_id")); n != 1 {
			t.Fatalf("%d bookings for one hold (first payment %s)", n, first)
		}
	})

	t.Run("a payment for an unknown hold is owed back", func(t *testing.T) {
		for _, holdID := range []string{"00000000-0000-4000-8000-000000000001", "not-a-hold"} {
			r := e.Webhook(webtest.WebhookBody{PaymentID: fmt.Sprintf("pay_unknown_%s", holdID), HoldID: holdID,
				AmountMinor: 25000, Currency: "INR", Status: "succeeded"})
			webtest.Want(t, r, http.StatusOK)
			if r.Str("outcome") != "REFUND_REQUIRED" || r.Str("hold_id") != holdID {
				t.Fatalf("payment for hold %q = %s", holdID, r)
			}
		}
	})

	t.Run("a payment after expiry is owed back and the seat stays with its new owner", func(t *testing.T) {
		late := e.User(t)
		h := late.MustHold(t, "B1")
		e.Clock.Advance(webtest.HoldTTL)
		newOwner := e.User(t)
		h2 := newOwner.MustHold(t, "B1")
		r := e.Webhook(e.PaymentFor(h))
		webtest.Want(t, r, http.StatusOK)
		if r.Str("outcome") != "REFUND_REQUIRED" || r.Str("reason") != "hold_expired" {
			t.Fatalf("late payment = %s", r)
		}
		owner := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT hold_id::text FROM show_seats WHERE show_id = $1 AND seat_id = 'B1'`, e.Show)
		if owner != h2.Str("hold_id") {
			t.Fatalf("B1 owned by %s, want the new hold %s", owner, h2.Str("hold_id"))
		}
		if r := late.Get("/api/v1/holds/" + h.Str("hold_id")); r.Str("state") != "EXPIRED" {
			t.Fatalf("late hold = %s", r)
		}
		e.Pay(t, h2)
	})

	// A payment id is written into the admin's pages and their forms: one
	// that reads as a path must never be recorded, whatever else it says.
	t.Run("a signed report whose payment id is a path is refused and nothing is recorded", func(t *testing.T) {
		h := e.User(t).MustHold(t, "C2")
		p := e.PaymentFor(h)
		p.PaymentID = "../shows/64/cancel"
		p.AmountMinor++ // the wrong amount: it would be recorded for review
		before := e.Snapshot(t)
		r := e.Webhook(p)
		webtest.WantError(t, r, http.StatusBadRequest, "invalid_payment")
		if r.Str("field") != "payment_id" {
			t.Fatalf("refusal = %s, want the payment_id named", r)
		}
		if after := e.Snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
	})

	// Two such reports once made every sum of the show wrap past int64.
	t.Run("amounts past the bound are refused and nothing is recorded", func(t *testing.T) {
		h := e.User(t).MustHold(t, "C3")
		before := e.Snapshot(t)
		for _, amount := range []int64{9e18, 9e18, money.MaxAmountMinor + 1} {
			p := e.PaymentFor(h)
			p.AmountMinor = amount
			r := e.Webhook(p)
			webtest.WantError(t, r, http.StatusBadRequest, "invalid_payment")
			if r.Str("field") != "amount_minor" {
				t.Fatalf("refusal of %d = %s, want amount_minor named", amount, r)
			}
		}
		if after := e.Snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
		p := e.PaymentFor(h)
		p.PaymentID = "a:b.c-d_E9"
		if r := e.Webhook(p); r.Str("outcome") != "BOOKED" {
			t.Fatalf("a payment id of every allowed kind of character = %s, want BOOKED", r)
		}
	})

	t.Run("malformed or invalid reports are refused", func(t *testing.T) {
		h := e.User(t).MustHold(t, "C1")
		good := e.PaymentFor(h)
		mutate := func(f func(m map[string]any)) []byte {
			var m map[string]any
			raw, _ := json.Marshal(good)
			_ = json.Unmarshal(raw, &m)
			f(m)
			out, _ := json.Marshal(m)
			return out
		}
		cases := []struct {
			name   string
			body   []byte
			status int
			code   string
		}{
			{"not JSON", []byte(`{"payment_id":`), 400, "malformed_json"},
			{"trailing garbage", append(mutate(func(map[string]any) {}), []byte(" {}")...), 400, "malformed_json"},
			{"unknown field", mutate(func(m map[string]any) { m["extra"] = 1 }), 400, "unknown_field"},
			{"amount as a string", mutate(func(m map[string]any) { m["amount_minor"] = "5" }), 400, "invalid_field_type"},
			{"empty body", []byte(``), 400, "body_required"},
			{"no payment id", mutate(func(m map[string]any) { delete(m, "payment_id") }), 400, "invalid_payment"},
			{"payment id too long", mutate(func(m map[string]any) { m["payment_id"] = strings.Repeat("p", 256) }), 400, "invalid_payment"},
			{"payment id that is a path", mutate(func(m map[string]any) { m["payment_id"] = "../shows/64/cancel" }), 400, "invalid_payment"},
			{"payment id with a space", mutate(func(m map[string]any) { m["payment_id"] = "pay 1" }), 400, "invalid_payment"},
			{"payment id with a NUL", mutate(func(m map[string]any) { m["payment_id"] = "pay\x00" }), 400, "invalid_text"},
			{"hold id with a NUL", mutate(func(m map[string]any) { m["hold_id"] = "h\x00" }), 400, "invalid_text"},
			{"no amount", mutate(func(m map[string]any) { delete(m, "amount_minor") }), 400, "invalid_payment"},
			{"negative amount", mutate(func(m map[string]any) { m["amount_minor"] = -1 }), 400, "invalid_payment"},
			{"amount over the bound", mutate(func(m map[string]any) { m["amount_minor"] = money.MaxAmountMinor + 1 }), 400, "invalid_payment"},
			{"amount near int64's end", mutate(func(m map[string]any) { m["amount_minor"] = int64(9e18) }), 400, "invalid_payment"},
			{"lower-case currency", mutate(func(m map[string]any) { m["currency"] = "inr" }), 400, "invalid_payment"},
			{"unknown status", mutate(func(m map[string]any) { m["status"] = "pending" }), 400, "invalid_payment"},
		}
		before := e.Snapshot(t)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				webtest.WantError(t, e.Webhook(tc.body), tc.status, tc.code)
			})
		}
		t.Run("not sent as JSON", func(t *testing.T) {
			raw, _ := json.Marshal(good)
			r := e.Guest().Send(webtest.Req{Method: "POST", Path: "/payments/webhook", Body: raw, Header: map[string]string{
				"Content-Type": "text/plain", payment.SignatureHeader: payment.Sign(webtest.WebhookSecret, time.Now(), raw)}})
			webtest.WantError(t, r, http.StatusUnsupportedMediaType, "unsupported_media_type")
		})
		t.Run("over 64 KiB", func(t *testing.T) {
			raw := []byte(`{"payment_id":"` + strings.Repeat("x", 70<<10) + `"}`)
			webtest.WantError(t, e.Webhook(raw), http.StatusRequestEntityTooLarge, "body_too_large")
		})
		if after := e.Snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
	})
}
