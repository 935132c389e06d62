package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The payment provider's webhook: believed only when signed, recorded once
// per payment id, and never able to sell a seat twice.
func TestPaymentWebhook(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withClock)
	payments := func(t *testing.T) int64 { return e.count(t, `SELECT count(*) FROM payments`) }

	t.Run("unsigned, mis-signed or stale reports are refused and nothing is recorded", func(t *testing.T) {
		h := e.user(t).mustHold(t, "A1")
		raw, _ := json.Marshal(e.paymentFor(h))
		now := time.Now()
		cases := []struct {
			name, signature, code string
		}{
			{"missing header", "", "signature_missing"},
			{"garbage header", "nonsense", "signature_malformed"},
			{"wrong secret", payment.Sign([]byte("whsec_attacker"), now, raw), "signature_invalid"},
			{"signed for another body", payment.Sign(webhookSecret, now, []byte(`{}`)), "signature_invalid"},
			// A few seconds past the tolerance: the header carries whole
			// seconds, and the request reaches the server a moment after now.
			{"too old", payment.Sign(webhookSecret, now.Add(-payment.DefaultTolerance-5*time.Second), raw), "signature_stale"},
			{"from the future", payment.Sign(webhookSecret, now.Add(payment.DefaultTolerance+5*time.Second), raw), "signature_stale"},
		}
		before, snap := payments(t), e.snapshot(t)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, e.webhookSigned(raw, tc.signature), http.StatusBadRequest, tc.code)
				if n := payments(t); n != before {
					t.Fatalf("payments = %d, want %d", n, before)
				}
			})
		}
		if got := e.snapshot(t); got != snap {
			t.Fatalf("database changed:\n%s\n%s", snap, got)
		}
	})

	t.Run("a failed payment is ignored and its id stays free", func(t *testing.T) {
		h := e.user(t).mustHold(t, "A2")
		p := e.paymentFor(h)
		p.Status = "failed"
		before := payments(t)
		r := e.webhook(p)
		want(t, r, http.StatusOK)
		if r.str("outcome") != "IGNORED" || payments(t) != before {
			t.Fatalf("failed payment = %s, payments %d -> %d", r, before, payments(t))
		}
		p.Status = "succeeded"
		r = e.webhook(p)
		want(t, r, http.StatusOK)
		if r.str("outcome") != "BOOKED" {
			t.Fatalf("the same id succeeding later = %s, want BOOKED", r)
		}
	})

	t.Run("a duplicate delivery gets the same outcome", func(t *testing.T) {
		h := e.user(t).mustHold(t, "A3")
		p := e.paymentFor(h)
		first := e.webhook(p)
		want(t, first, http.StatusOK)
		second := e.webhook(p)
		want(t, second, http.StatusOK)
		if string(first.Body) != string(second.Body) || first.str("outcome") != "BOOKED" {
			t.Fatalf("first %s, second %s", first, second)
		}
		if n := e.count(t, `SELECT count(*) FROM payments WHERE payment_id = $1`, p.PaymentID); n != 1 {
			t.Fatalf("%d payment rows", n)
		}
	})

	t.Run("the same payment id with another amount is a conflict", func(t *testing.T) {
		h := e.user(t).mustHold(t, "A4")
		paid := e.paymentFor(h)
		want(t, e.webhook(paid), http.StatusOK)
		changed := paid
		changed.AmountMinor++
		before := e.snapshot(t)
		wantError(t, e.webhook(changed), http.StatusConflict, "payment_conflict")
		changed = paid
		changed.HoldID = "00000000-0000-4000-8000-000000000000"
		wantError(t, e.webhook(changed), http.StatusConflict, "payment_conflict")
		if after := e.snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
	})

	t.Run("a payment of the wrong amount is refused and owed back", func(t *testing.T) {
		c := e.user(t)
		h := c.mustHold(t, "A5")
		p := e.paymentFor(h)
		p.AmountMinor--
		r := e.webhook(p)
		wantError(t, r, http.StatusUnprocessableEntity, "amount_mismatch")
		if r.str("payment_id") != p.PaymentID || r.str("outcome") != "REFUND_REQUIRED" {
			t.Fatalf("mismatch answer = %s", r)
		}
		if n := e.count(t, `SELECT count(*) FROM refunds WHERE payment_id = $1 AND amount_minor = $2`, p.PaymentID, p.AmountMinor); n != 1 {
			t.Fatalf("%d refunds for the mismatched payment, want 1", n)
		}
		wantError(t, e.webhook(p), http.StatusUnprocessableEntity, "amount_mismatch")
		if n := e.count(t, `SELECT count(*) FROM refunds WHERE payment_id = $1`, p.PaymentID); n != 1 {
			t.Fatalf("%d refunds after a repeat, want 1", n)
		}
		if r := c.get("/api/v1/holds/" + h.str("hold_id")); r.str("state") != "HELD" {
			t.Fatalf("hold after a mismatched payment = %s, want still HELD", r)
		}
	})

	t.Run("a second payment for a confirmed hold is owed back", func(t *testing.T) {
		h := e.user(t).mustHold(t, "A6")
		first := e.pay(t, h)
		r := e.webhook(e.paymentFor(h))
		want(t, r, http.StatusOK)
		if r.str("outcome") != "REFUND_REQUIRED" || r.str("booking_id") != "" {
			t.Fatalf("second payment = %s", r)
		}
		if n := e.count(t, `SELECT count(*) FROM refunds WHERE payment_id = $1`, r.str("payment_id")); n != 1 {
			t.Fatalf("%d refunds, want 1", n)
		}
		if n := e.count(t, `SELECT count(*) FROM bookings WHERE hold_id = $1`, h.str("hold_id")); n != 1 {
			t.Fatalf("%d bookings for one hold (first payment %s)", n, first)
		}
	})

	t.Run("a payment for an unknown hold is owed back", func(t *testing.T) {
		for _, holdID := range []string{"00000000-0000-4000-8000-000000000001", "not-a-hold"} {
			r := e.webhook(webhookBody{PaymentID: fmt.Sprintf("pay_unknown_%s", holdID), HoldID: holdID,
				AmountMinor: 25000, Currency: "INR", Status: "succeeded"})
			want(t, r, http.StatusOK)
			if r.str("outcome") != "REFUND_REQUIRED" || r.str("hold_id") != holdID {
				t.Fatalf("payment for hold %q = %s", holdID, r)
			}
		}
	})

	t.Run("a payment after expiry is owed back and the seat stays with its new owner", func(t *testing.T) {
		late := e.user(t)
		h := late.mustHold(t, "B1")
		e.clock.Advance(holdTTL)
		newOwner := e.user(t)
		h2 := newOwner.mustHold(t, "B1")
		r := e.webhook(e.paymentFor(h))
		want(t, r, http.StatusOK)
		if r.str("outcome") != "REFUND_REQUIRED" || r.str("reason") != "hold_expired" {
			t.Fatalf("late payment = %s", r)
		}
		owner := pgtest.Scalar[string](t, e.store.Pool(), `SELECT hold_id::text FROM show_seats WHERE show_id = $1 AND seat_id = 'B1'`, e.show)
		if owner != h2.str("hold_id") {
			t.Fatalf("B1 owned by %s, want the new hold %s", owner, h2.str("hold_id"))
		}
		if r := late.get("/api/v1/holds/" + h.str("hold_id")); r.str("state") != "EXPIRED" {
			t.Fatalf("late hold = %s", r)
		}
		e.pay(t, h2)
	})

	t.Run("malformed or invalid reports are refused", func(t *testing.T) {
		h := e.user(t).mustHold(t, "C1")
		good := e.paymentFor(h)
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
			{"no payment id", mutate(func(m map[string]any) { delete(m, "payment_id") }), 422, "invalid_payment"},
			{"payment id too long", mutate(func(m map[string]any) { m["payment_id"] = strings.Repeat("p", 256) }), 422, "invalid_payment"},
			{"payment id with a NUL", mutate(func(m map[string]any) { m["payment_id"] = "pay\x00" }), 422, "invalid_payment"},
			{"hold id with a NUL", mutate(func(m map[string]any) { m["hold_id"] = "h\x00" }), 422, "invalid_payment"},
			{"no amount", mutate(func(m map[string]any) { delete(m, "amount_minor") }), 422, "invalid_payment"},
			{"negative amount", mutate(func(m map[string]any) { m["amount_minor"] = -1 }), 422, "invalid_payment"},
			{"lower-case currency", mutate(func(m map[string]any) { m["currency"] = "inr" }), 422, "invalid_payment"},
			{"unknown status", mutate(func(m map[string]any) { m["status"] = "pending" }), 422, "invalid_payment"},
		}
		before := e.snapshot(t)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, e.webhook(tc.body), tc.status, tc.code)
			})
		}
		t.Run("not sent as JSON", func(t *testing.T) {
			raw, _ := json.Marshal(good)
			r := e.guest().send(req{method: "POST", path: "/payments/webhook", body: raw, header: map[string]string{
				"Content-Type": "text/plain", payment.SignatureHeader: payment.Sign(webhookSecret, time.Now(), raw)}})
			wantError(t, r, http.StatusUnsupportedMediaType, "unsupported_media_type")
		})
		t.Run("over 64 KiB", func(t *testing.T) {
			raw := []byte(`{"payment_id":"` + strings.Repeat("x", 70<<10) + `"}`)
			wantError(t, e.webhook(raw), http.StatusRequestEntityTooLarge, "body_too_large")
		})
		if after := e.snapshot(t); after != before {
			t.Fatalf("database changed:\n%s\n%s", before, after)
		}
	})
}
