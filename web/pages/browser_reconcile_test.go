package pages_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// A platform admin resolves payments to check in a real browser: one whose
// id is unusual but valid, and one whose id reads as a path to the show's
// cancellation (as a database from before ids were bounded may hold).
// Each form posts to its one fixed address with the id in a field, so the
// show stays on sale.
func TestReconciliationInBrowser(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)

	s := newSite(t, siteConfig{})
	show := s.newShow(3, 4)
	adminID := pgtest.User(t, s.Store)
	pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = 'platform_admin' WHERE id = $1`, adminID)
	email := scalar[string](s, `SELECT email FROM users WHERE id = $1`, adminID)

	// A charge of the wrong amount under the id a:b.c-d_e.
	res, err := s.Store.HoldSeats(context.Background(), booking.HoldRequest{
		UserID: pgtest.User(t, s.Store), ShowID: show, Seats: []string{"A1"}, TTL: 5 * time.Minute, Key: "unusual",
	}, 10)
	if err != nil {
		t.Fatal(err)
	}
	h := res.Hold
	var mismatch *booking.AmountMismatchError
	if _, err := s.Store.ConfirmPayment(context.Background(), booking.Payment{
		ID: "a:b.c-d_e", HoldRef: h.ID, AmountMinor: h.AmountMinor + 1, Currency: h.Currency,
	}); !errors.As(err, &mismatch) {
		t.Fatalf("the wrong amount: %v", err)
	}
	// The path-like id, for a hold of the same show.
	s.holdElsewhere(show, "legacy", "A2")
	legacy := fmt.Sprintf("../shows/%d/cancel", show)
	pgtest.Exec(t, s.Store.Pool(), `ALTER TABLE payments DROP CONSTRAINT payments_id_chars`)
	pgtest.Exec(t, s.Store.Pool(), `
		INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, reason, received_at)
		SELECT $1, id::text, id, user_id, amount_minor + 1, currency, 'REFUND_REQUIRED', 'amount_mismatch', now()
		  FROM holds WHERE show_id = $2 AND 'A2' = ANY (seat_ids)`, legacy, show)
	pgtest.Exec(t, s.Store.Pool(), `
		INSERT INTO refunds (payment_id, amount_minor, currency, reason, created_at, updated_at)
		SELECT payment_id, amount_minor, currency, reason, now(), now() FROM payments WHERE payment_id = $1`, legacy)

	ph := s.openTab(t, browser, "reconcile-phone", phone)
	ph.logInWith(email, pgtest.FixturePassword)
	ph.open("/admin/reconciliation")
	ph.waitVisible("[data-queue]")
	ph.look("phone admin payments to check")

	ad := s.openTab(t, browser, "reconcile", desktop)
	ad.logInWith(email, pgtest.FixturePassword)
	ad.open("/admin/reconciliation")
	ad.waitVisible("[data-queue]")
	ad.look("admin payments to check")
	for _, id := range []string{"a:b.c-d_e", legacy} {
		item := fmt.Sprintf(`[data-item=%s]`, jsString(id))
		ad.click(item + " details summary")
		ad.do("type a note for "+id, chromedp.SendKeys(chromedp.CSS(item+" textarea"), "Refunded by the bank"))
		ad.click(item + " details form button[type=submit]")
		ad.waitFor("the resolution of "+id, fmt.Sprintf(`location.search === "?done=resolve" && !!document.querySelector('[data-notice="success"]') && !document.querySelector(%s)`,
			jsString(item)))
		if n := scalar[int64](s, `SELECT count(*) FROM reconciliation_resolutions WHERE item = $1`, "payment:"+id); n != 1 {
			t.Fatalf("%s: %d resolutions", id, n)
		}
		if st := scalar[string](s, `SELECT status FROM shows WHERE id = $1`, show); st != "SCHEDULED" {
			t.Fatalf("the show is %s after resolving %s", st, id)
		}
	}
	ad.look("admin payments to check resolved")
	if n := scalar[int64](s, `SELECT count(*) FROM holds WHERE show_id = $1 AND state = 'HELD'`, show); n != 2 {
		t.Fatalf("%d holds of the show still held, want 2", n)
	}

	// The sales report of the same show: what it took, all of it owed back.
	for _, tb := range []*tab{ad, ph} {
		tb.open("/admin/reports/sales")
		tb.waitVisible("[data-sales-table]")
		tb.look(tb.vp.name + " admin sales with payments owed back")
		wantText(t, "the sales totals", tb.Text("[data-totals] [data-taken]"), "₹500.02")
	}
}
