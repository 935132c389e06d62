package pages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestBrowserCurrencies: the show page writes prices in each currency's
// own decimals and grouping, and the running total the page's script
// writes as seats are picked (by money.PatternOf) is exactly what the
// server writes (money.Format) for the same amount.
func TestBrowserCurrencies(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{})
	v := pgtest.NewVenue(t, s.Store)
	ctx := context.Background()

	for _, c := range []struct {
		currency          string
		standard, premium int64
	}{
		{"INR", 123456789, 45050},          // lakh grouping: ₹12,34,567.89
		{"USD", 123456789, 50000},          // thousands: $1,234,567.89
		{"EUR", 750, 123450},               // €7.50, €1,234.50
		{"JPY", 1500, 2200},                // no decimals: ¥1,500, not ¥15
		{"KWD", 1250, money.MaxPriceMinor}, // three decimals: KWD 1.250; the largest price
	} {
		t.Run(c.currency, func(t *testing.T) {
			t.Parallel()
			screen, err := s.Store.CreateScreen(ctx, v.TheatreID, "Hall "+c.currency, pgtest.Grid(3, 4))
			if err != nil {
				t.Fatal(err)
			}
			starts := time.Now().Add(72 * time.Hour)
			show, err := s.Store.CreateShow(ctx, catalog.Show{MovieID: v.MovieID, ScreenID: screen, StartsAt: starts,
				EndsAt: starts.Add(2 * time.Hour), Currency: c.currency,
				Prices: map[string]int64{"STANDARD": c.standard, "PREMIUM": c.premium}})
			if err != nil {
				t.Fatal(err)
			}
			for _, vp := range []viewport{desktop, phone} {
				t.Run(vp.name, func(t *testing.T) {
					t.Parallel() // picking only selects: the two pages share the show
					pickedTotals(t, s.openTab(t, browser, strings.ToLower(c.currency)+"-"+vp.name, vp), show, c.currency, c.standard, c.premium)
				})
			}
		})
	}
}

// pickedTotals opens show in tb, finds both its prices in the legend and
// picks A1, C2 and A2, the running total each time the server's.
func pickedTotals(t *testing.T, tb *tab, show int64, currency string, standard, premium int64) {
	t.Helper()
	tb.openShow(show)
	legend := squeeze(tb.Text(`[aria-label="Prices"]`))
	for _, price := range []int64{standard, premium} {
		if want := squeeze(money.Format(price, currency)); !strings.Contains(legend, want) {
			t.Fatalf("%s: the price legend %q does not show %s", tb.vp.name, legend, want)
		}
	}
	total := int64(0)
	for _, pick := range []struct {
		seat  string
		price int64
	}{{"A1", standard}, {"C2", premium}, {"A2", standard}} {
		tb.pick(pick.seat)
		total += pick.price
		want := money.Format(total, currency)
		tb.waitFor(fmt.Sprintf("the total %s", want),
			fmt.Sprintf(`document.querySelector("[data-selection-total]").textContent === %s`, jsString(want)))
	}
	tb.shot("picked")
}

// TestBrowserSchedulePrices: the schedule form of a yen and of a dinar
// theatre starts from the theatre's currency, and each price field says,
// as the admin types, how the server reads it: in the currency's own
// decimals, or why it cannot be read.
func TestBrowserSchedulePrices(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{})
	adminID := pgtest.User(t, s.Store)
	pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = 'platform_admin' WHERE id = $1`, adminID)
	email := scalar[string](s, `SELECT email FROM users WHERE id = $1`, adminID)
	ctx := context.Background()

	for _, c := range []struct {
		currency string
		typed    map[string]string // category -> typed
		reads    map[string]string // category -> what its field says
	}{
		{"JPY", map[string]string{"STANDARD": "1,500", "PREMIUM": "15.5"},
			map[string]string{"STANDARD": "Reads as ¥1,500", "PREMIUM": "JPY has no decimals"}},
		{"KWD", map[string]string{"STANDARD": "1.250", "PREMIUM": "2,125"},
			map[string]string{"STANDARD": "Reads as KWD 1.250", "PREMIUM": "could be KWD 2,125 (with a thousands comma) or KWD 2.125"}},
	} {
		t.Run(c.currency, func(t *testing.T) {
			t.Parallel()
			v := pgtest.NewVenue(t, s.Store)
			pgtest.Exec(t, s.Store.Pool(), `UPDATE theatres SET currency = $2 WHERE id = $1`, v.TheatreID, c.currency)
			screen, err := s.Store.CreateScreen(ctx, v.TheatreID, "Hall 1", pgtest.Grid(3, 4))
			if err != nil {
				t.Fatal(err)
			}
			for _, vp := range []viewport{desktop, phone} {
				t.Run(vp.name, func(t *testing.T) {
					t.Parallel() // typing only: nothing is scheduled
					tb := s.openTab(t, browser, "schedule-"+strings.ToLower(c.currency)+"-"+vp.name, vp)
					tb.logInWith(email, pgtest.FixturePassword)
					tb.open(fmt.Sprintf("/admin/theatres/%d/schedule", v.TheatreID))
					tb.waitFor("the page to load", `document.readyState === "complete"`)
					if got := eval[string](tb, `document.getElementById("one-currency").value`); got != c.currency {
						t.Fatalf("the form's currency = %q, want the theatre's %s", got, c.currency)
					}
					for _, cat := range []string{"STANDARD", "PREMIUM"} {
						id := fmt.Sprintf("one-price-%d-%s", screen, cat)
						tb.typeInto(id, c.typed[cat])
						tb.waitFor(fmt.Sprintf("%s to read %q", id, c.reads[cat]), fmt.Sprintf(
							`document.getElementById(%s).textContent.replace(/\s+/g, " ").includes(%s)`,
							jsString(id+"-reading"), jsString(c.reads[cat])))
					}
					tb.shot("prices-typed")
				})
			}
		})
	}
}
