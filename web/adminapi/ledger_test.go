package adminapi_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// salesPath is the report of the env's theatre over the next week.
func salesPath(e *webtest.Env) string { return "/api/v1/admin/reports/sales?" + e.SalesWeek().Encode() }

// salesMoney is a report line's or the totals' money, as the JSON has it:
// nil for a figure too large to represent.
type salesMoney struct {
	ShowID   int64    `json:"show_id"`
	Revenue  *int64   `json:"revenue_minor"`
	Taken    *int64   `json:"taken_minor"`
	Kept     *int64   `json:"kept_minor"`
	Owed     *int64   `json:"refunds_owed_minor"`
	Paid     *int64   `json:"refunds_paid_minor"`
	Failed   *int64   `json:"refunds_failed_minor"`
	TooLarge []string `json:"too_large"`
}

func (m salesMoney) figures(t *testing.T) webtest.Figures {
	t.Helper()
	for _, p := range []*int64{m.Revenue, m.Taken, m.Kept, m.Owed, m.Paid, m.Failed} {
		if p == nil {
			t.Fatalf("a figure of %+v is null", m)
		}
	}
	return webtest.Figures{Revenue: *m.Revenue, Taken: *m.Taken, Kept: *m.Kept, Owed: *m.Owed, Paid: *m.Paid, Failed: *m.Failed}
}

type salesJSON struct {
	Shows  []salesMoney `json:"shows"`
	Totals salesMoney   `json:"totals"`
}

func getSales(t *testing.T, c *webtest.Client, path string) salesJSON {
	t.Helper()
	r := c.Get(path)
	webtest.Want(t, r, http.StatusOK)
	var out salesJSON
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every payment received for a show is accounted for: what it keeps, what
// it owes back and what it paid back add up to what it took, show by show
// and in total, in the JSON and the CSV alike.
func TestSalesReportAddsUp(t *testing.T) {
	e := webtest.NewEnv(t, webtest.WithClock)
	l := e.SoldEveryWay(t)
	admin := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	path := salesPath(e)

	t.Run("JSON", func(t *testing.T) {
		r := getSales(t, admin, path)
		if len(r.Shows) != 2 {
			t.Fatalf("%d shows, want 2", len(r.Shows))
		}
		for _, s := range r.Shows {
			got := s.figures(t)
			if got != l.Shows[s.ShowID] {
				t.Errorf("show %d = %+v, want %+v", s.ShowID, got, l.Shows[s.ShowID])
			}
			if got.Taken != got.Kept+got.Owed+got.Paid {
				t.Errorf("show %d: taken %d <> kept %d + owed %d + paid %d", s.ShowID, got.Taken, got.Kept, got.Owed, got.Paid)
			}
		}
		if got := r.Totals.figures(t); got != l.Totals || got.Taken != got.Kept+got.Owed+got.Paid {
			t.Errorf("totals = %+v, want %+v, taken = kept + owed + paid", got, l.Totals)
		}
	})

	t.Run("CSV", func(t *testing.T) {
		r := admin.Send(webtest.Req{Method: "GET", Path: path, Header: map[string]string{"Accept": "text/csv"}})
		webtest.Want(t, r, http.StatusOK)
		records, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
		if err != nil || len(records) != 3 {
			t.Fatalf("csv = %q, %v", records, err)
		}
		col := func(row []string, name string) int64 {
			t.Helper()
			i := slices.Index(records[0], name)
			if i < 0 {
				t.Fatalf("no column %s in %q", name, records[0])
			}
			n, err := strconv.ParseInt(row[i], 10, 64)
			if err != nil {
				t.Fatalf("column %s of %q: %v", name, row, err)
			}
			return n
		}
		for _, row := range records[1:] {
			got := webtest.Figures{Revenue: col(row, "revenue_minor"), Taken: col(row, "taken_minor"), Kept: col(row, "kept_minor"),
				Owed: col(row, "refunds_owed_minor"), Paid: col(row, "refunds_paid_minor"), Failed: col(row, "refunds_failed_minor")}
			if want := l.Shows[col(row, "show_id")]; got != want || got.Taken != got.Kept+got.Owed+got.Paid {
				t.Errorf("csv row %q = %+v, want %+v", row, got, want)
			}
		}
	})

	t.Run("the show's own figures agree", func(t *testing.T) {
		r := admin.Get(fmt.Sprintf("/api/v1/admin/shows/%d", l.Soon))
		webtest.Want(t, r, http.StatusOK)
		want := l.Shows[l.Soon]
		if r.Num("revenue_minor") != float64(want.Revenue) || r.Num("refunds_owed_minor") != float64(want.Owed) ||
			r.Num("refunds_paid_minor") != float64(want.Paid) {
			t.Fatalf("show = %s, want %+v", r, want)
		}
	})
}

// Amounts at the bound, many of them, add up exactly; amounts recorded
// before the bound, whose sums leave int64, are reported as too large,
// never as a 500 or a wrapped negative, and the other figures stand.
func TestSalesReportWithHugeAmounts(t *testing.T) {
	e := webtest.NewEnv(t, webtest.WithClock)
	admin := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	pool := e.Store.Pool()
	price := pgtest.Prices["STANDARD"]
	booked := e.User(t).MustHold(t, "A1")
	e.Pay(t, booked)

	// 20,000 second payments of the booked hold at money.MaxAmountMinor,
	// each paid back: 2e16 taken and returned.
	const many = 20000
	// Without the pool's statement timeout: each payment's checks take
	// about 0.2 ms, 20,000 of them over 3 s on a quiet machine, past the
	// timeout on a busy one.
	pgtest.Exec(t, pool, fmt.Sprintf(`
		BEGIN;
		SET LOCAL statement_timeout = 0;
		INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, reason, received_at)
		SELECT 'bulk_' || i, h.id::text, h.id, h.user_id, %d, 'INR', 'REFUND_REQUIRED', 'already_confirmed', now()
		  FROM holds h, generate_series(1, %d) i WHERE h.id = '%s';
		INSERT INTO refunds (payment_id, amount_minor, currency, reason, status, created_at, updated_at)
		SELECT payment_id, amount_minor, currency, reason, 'SUCCEEDED', now(), now() FROM payments WHERE payment_id LIKE 'bulk\_%%';
		COMMIT;`, money.MaxAmountMinor, many, booked.Str("hold_id")))

	t.Run("many amounts at the bound add up", func(t *testing.T) {
		r := getSales(t, admin, salesPath(e))
		want := webtest.Figures{Revenue: price, Taken: price + many*money.MaxAmountMinor, Kept: price, Paid: many * money.MaxAmountMinor}
		if len(r.Shows) != 1 || r.Shows[0].figures(t) != want || r.Totals.figures(t) != want {
			t.Fatalf("report = %+v, want %+v", r, want)
		}
		show := admin.Get(fmt.Sprintf("/api/v1/admin/shows/%d", e.Show))
		webtest.Want(t, show, http.StatusOK)
		if show.Num("refunds_paid_minor") != float64(want.Paid) {
			t.Fatalf("show = %s", show)
		}
	})

	t.Run("sums past int64 are too large, not wrong", func(t *testing.T) {
		// Two charges of 9e18 for a hold of the show, as a database from
		// before the bounds (migration 000011) may hold them.
		h := e.User(t).MustHold(t, "A2")
		pgtest.Exec(t, pool, `ALTER TABLE payments DROP CONSTRAINT payments_amount_bound`)
		pgtest.Exec(t, pool, `DROP TRIGGER refunds_amount_bound ON refunds`)
		pgtest.Exec(t, pool, `
			INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, reason, received_at)
			SELECT 'huge_' || i, h.id::text, h.id, h.user_id, 9000000000000000000, 'INR', 'REFUND_REQUIRED', 'amount_mismatch', now()
			  FROM holds h, generate_series(1, 2) i WHERE h.id = $1`, h.Str("hold_id"))
		pgtest.Exec(t, pool, `
			INSERT INTO refunds (payment_id, amount_minor, currency, reason, created_at, updated_at)
			SELECT payment_id, amount_minor, currency, reason, now(), now() FROM payments WHERE payment_id LIKE 'huge\_%'`)

		r := getSales(t, admin, salesPath(e))
		for _, m := range []salesMoney{r.Shows[0], r.Totals} {
			if m.Taken != nil || m.Owed != nil || !slices.Equal(m.TooLarge, []string{"refunds_owed_minor", "taken_minor"}) {
				t.Fatalf("figures past int64 = %+v, want null and named too large", m)
			}
			if m.Revenue == nil || *m.Revenue != price || m.Kept == nil || *m.Kept != price || m.Paid == nil || *m.Paid != many*money.MaxAmountMinor {
				t.Fatalf("the figures that fit = %+v", m)
			}
		}
		csvBody := admin.Send(webtest.Req{Method: "GET", Path: salesPath(e), Header: map[string]string{"Accept": "text/csv"}})
		webtest.Want(t, csvBody, http.StatusOK)
		if !strings.Contains(string(csvBody.Body), ",too_large,") || strings.Contains(string(csvBody.Body), ",-") {
			t.Fatalf("csv = %s", csvBody.Body)
		}
		show := admin.Get(fmt.Sprintf("/api/v1/admin/shows/%d", e.Show))
		webtest.Want(t, show, http.StatusOK)
		if show.JSON["refunds_owed_minor"] != nil || !slices.Equal(show.Strs("too_large"), []string{"refunds_owed_minor"}) ||
			show.Num("revenue_minor") != float64(price) {
			t.Fatalf("show = %s", show)
		}
		if n := e.Count(t, `SELECT count(*) FROM booking_invariant_violations()`); n != 0 {
			t.Fatalf("%d ledger violations", n)
		}
	})
}
