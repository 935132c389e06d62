package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// One open checkout per hold, as a provider's checkout session: asking
// again returns it, and a paid hold opens none, so one hold is charged once.
func TestCheckoutOnePerHold(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	ctx := context.Background()
	checkoutID := func(r *webtest.Response) string {
		t.Helper()
		id, ok := strings.CutPrefix(r.Str("checkout_url"), webtest.PublicURL+sandbox.Prefix+"/checkout/")
		if !ok {
			t.Fatalf("checkout_url = %q", r.Str("checkout_url"))
		}
		return id
	}

	t.Run("asked again, the open checkout: 200, the same address", func(t *testing.T) {
		c := e.User(t)
		h := c.MustHold(t, "A1")
		first := c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil)
		webtest.Want(t, first, http.StatusCreated)
		for range 2 {
			again := c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil)
			webtest.Want(t, again, http.StatusOK)
			if again.Str("checkout_url") != first.Str("checkout_url") {
				t.Fatalf("second checkout_url %q, want the first %q", again.Str("checkout_url"), first.Str("checkout_url"))
			}
		}
		if n := e.Count(t, `SELECT count(*) FROM sandbox_checkouts WHERE hold_id = $1`, h.Str("hold_id")); n != 1 {
			t.Fatalf("%d checkouts of one hold, want 1", n)
		}
	})

	t.Run("a new one after a decline", func(t *testing.T) {
		c := e.User(t)
		h := c.MustHold(t, "A2")
		first := c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil)
		if _, err := e.Cfg.Sandbox.Decline(ctx, checkoutID(first)); err != nil {
			t.Fatal(err)
		}
		again := c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil)
		webtest.Want(t, again, http.StatusCreated)
		if again.Str("checkout_url") == first.Str("checkout_url") {
			t.Fatal("a declined checkout was offered again")
		}
	})

	t.Run("paid, its webhook on its way: 409 already_paid with the booking", func(t *testing.T) {
		c := e.User(t)
		h := c.MustHold(t, "A3")
		first := c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil)
		if _, err := e.Cfg.Sandbox.Pay(ctx, checkoutID(first), sandbox.BehaveDrop); err != nil {
			t.Fatal(err)
		}
		r := c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil)
		webtest.WantError(t, r, http.StatusConflict, "already_paid")
		b := c.Get("/api/v1/bookings/" + r.Str("booking_id"))
		webtest.Want(t, b, http.StatusOK)
		if b.Str("hold_id") != h.Str("hold_id") || b.Str("status") != "CONFIRMED" {
			t.Fatalf("booking_id %q names %s", r.Str("booking_id"), b)
		}
		if n := e.Count(t, `SELECT count(*) FROM sandbox_payments WHERE hold_id = $1 AND status = 'succeeded'`, h.Str("hold_id")); n != 1 {
			t.Fatalf("%d charges, want 1", n)
		}
		if n := e.Count(t, `SELECT count(*) FROM refunds`); n != 0 {
			t.Fatalf("%d refunds, want none", n)
		}
	})

	t.Run("paid and booked: 409 already_paid with the booking", func(t *testing.T) {
		c := e.User(t)
		h := c.MustHold(t, "A4")
		webtest.Want(t, c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil), http.StatusCreated)
		paid := e.Pay(t, h)
		r := c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil)
		webtest.WantError(t, r, http.StatusConflict, "already_paid")
		if r.Str("booking_id") != paid.Str("booking_id") {
			t.Fatalf("booking_id = %q, want %q", r.Str("booking_id"), paid.Str("booking_id"))
		}
	})
}

// Many Pay clicks at once open one checkout: every answer names it, and one
// of them opened it.
func TestConcurrentCheckoutsOpenOne(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	c := e.User(t)
	h := c.MustHold(t, "B1")
	const n = 16
	answers := make([]*webtest.Response, n)
	pgtest.Release(n, func(i int) { answers[i] = c.Post("/api/v1/holds/"+h.Str("hold_id")+"/checkout", nil) })
	created := 0
	for _, r := range answers {
		if r.Status == http.StatusCreated {
			created++
		} else if r.Status != http.StatusOK {
			t.Fatalf("answer %s", r)
		}
		if r.Str("checkout_url") != answers[0].Str("checkout_url") {
			t.Fatalf("two checkouts of one hold: %s and %s", answers[0].Str("checkout_url"), r.Str("checkout_url"))
		}
	}
	if created != 1 {
		t.Fatalf("%d answers opened a checkout, want 1", created)
	}
	if got := e.Count(t, `SELECT count(*) FROM sandbox_checkouts WHERE hold_id = $1`, h.Str("hold_id")); got != 1 {
		t.Fatalf("%d checkouts stored, want 1", got)
	}
}
