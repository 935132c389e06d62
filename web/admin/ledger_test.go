package admin_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// salesPagePath is the sales page of the env's theatre over the next week.
func salesPagePath(e *webtest.Env) string { return "/admin/reports/sales?" + e.SalesWeek().Encode() }

// The sales page shows, show by show and in total, what was taken, what
// is kept and what is owed and paid back, and they add up.
func TestSalesPageAddsUp(t *testing.T) {
	e := webtest.NewEnv(t, webtest.WithClock)
	l := e.SoldEveryWay(t)
	b, _ := salesBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	p := b.Get(t, salesPagePath(e))
	webtest.Want200(t, p)
	inr := func(n int64) string { return format.Money(n, "INR") }
	check := func(sel string, want webtest.Figures) {
		t.Helper()
		if want.Taken != want.Kept+want.Owed+want.Paid {
			t.Fatalf("the expected figures of %s do not add up: %+v", sel, want)
		}
		for cell, n := range map[string]int64{"revenue": want.Revenue, "taken": want.Taken, "kept": want.Kept,
			"refunds-owed": want.Owed, "refunds-paid": want.Paid, "refunds-failed": want.Failed} {
			if got := p.Text(sel + " [data-" + cell + "]"); got != inr(n) {
				t.Errorf("%s %s = %q, want %q", sel, cell, got, inr(n))
			}
		}
	}
	for show, want := range l.Shows {
		check(fmt.Sprintf(`[data-show-row="%d"]`, show), want)
	}
	check("[data-totals]", l.Totals)
	if !strings.Contains(p.Text("[data-sales-legend]"), "Taken = kept + refunds owed + refunds paid") {
		t.Fatalf("legend %q", p.Text("[data-sales-legend]"))
	}
	// The chart's bar of the soon show's day names its money taken and kept.
	if bars := p.Text("svg[data-sales-chart]"); !strings.Contains(bars, inr(l.Shows[l.Soon].Taken)+" taken") {
		t.Fatalf("chart %q", bars)
	}
}

// A show whose sums leave int64 (rows from before the bounds) still has
// its page and its report, the figure too large said so.
func TestPagesWithSumsPastInt64(t *testing.T) {
	e := webtest.NewEnv(t)
	b, _ := salesBrowser(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	platform, _ := salesBrowser(t, e, auth.RolePlatformAdmin)
	h := e.User(t).MustHold(t, "A1")
	pool := e.Store.Pool()
	pgtest.Exec(t, pool, `ALTER TABLE payments DROP CONSTRAINT payments_amount_bound`)
	pgtest.Exec(t, pool, `DROP TRIGGER refunds_amount_bound ON refunds`)
	pgtest.Exec(t, pool, `
		INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, reason, received_at)
		SELECT 'huge_' || i, h.id::text, h.id, h.user_id, 9000000000000000000, 'INR', 'REFUND_REQUIRED', 'amount_mismatch', now()
		  FROM holds h, generate_series(1, 2) i WHERE h.id = $1`, h.Str("hold_id"))
	pgtest.Exec(t, pool, `
		INSERT INTO refunds (payment_id, amount_minor, currency, reason, created_at, updated_at)
		SELECT payment_id, amount_minor, currency, reason, now(), now() FROM payments WHERE payment_id LIKE 'huge\_%'`)

	p := b.Get(t, fmt.Sprintf("/admin/shows/%d", e.Show))
	webtest.Want200(t, p)
	if got := p.Text(`[data-count="refunds-owed"]`); !strings.Contains(got, format.TooLarge) {
		t.Fatalf("refunds owed %q, want %q", got, format.TooLarge)
	}
	p = b.Get(t, salesPagePath(e))
	webtest.Want200(t, p)
	row := fmt.Sprintf(`[data-show-row="%d"]`, e.Show)
	for _, sel := range []string{row + " [data-taken]", row + " [data-refunds-owed]", "[data-totals] [data-taken]", "[data-totals] [data-refunds-owed]"} {
		if got := p.Text(sel); got != format.TooLarge {
			t.Errorf("%s = %q, want %q", sel, got, format.TooLarge)
		}
	}
	if got := p.Text(row + " [data-kept]"); got != format.Money(0, "INR") {
		t.Errorf("kept = %q", got)
	}
	if strings.Contains(p.Text("main"), "-₹") {
		t.Fatalf("a negative figure: %q", p.Text("main"))
	}
	// The ledger check on the platform admin's dashboard still runs.
	if d := platform.Get(t, "/admin"); d.Status != 200 || !d.Has(`[data-ledger="balanced"]`) {
		t.Fatalf("dashboard %d: %q", d.Status, d.Text("main"))
	}
}
