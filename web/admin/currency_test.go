package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// A price typed on the schedule form round-trips in its currency's own
// decimals: parsed (the decimal comma where it is unambiguous), stored in
// minor units, and written back on the page; an ambiguous or impossible
// one comes back at its field, saying how it read, and stores nothing.
func TestSchedulePricesInEveryCurrency(t *testing.T) {
	e := webtest.NewEnv(t)
	london, screen := londonTheatre(t, e)
	pgtest.Exec(t, e.Store.Pool(), `UPDATE theatres SET currency = 'EUR' WHERE id = $1`, london)
	b := signedIn(t, e, auth.RoleTheatreAdmin, london)
	path := fmt.Sprintf("/admin/theatres/%d/schedule", london)
	standard, premium := fmt.Sprintf("price-%d-STANDARD", screen), fmt.Sprintf("price-%d-PREMIUM", screen)

	p := b.Get(t, path)
	webtest.Want200(t, p)
	if got := p.Attr("#one-currency", "value"); got != "EUR" {
		t.Fatalf("the form's currency = %q, want the theatre's, EUR", got)
	}

	day := time.Now().AddDate(0, 1, 0)
	show := func(currency, std, prem string) url.Values {
		day = day.AddDate(0, 0, 1)
		f := oneShow(screen, e.Venue.MovieID, day.Format(time.DateOnly), "18:00")
		f.Set("currency", currency)
		f.Set(standard, std)
		f.Set(premium, prem)
		return f
	}
	stored := func() string {
		return pgtest.Scalar[string](t, e.Store.Pool(), `
			SELECT coalesce(string_agg(sh.currency || ' ' || p.category || '=' || p.price_minor, ', ' ORDER BY sh.id, p.category), '')
			  FROM shows sh JOIN screens sc ON sc.id = sh.screen_id JOIN show_prices p ON p.show_id = sh.id
			 WHERE sc.theatre_id = $1`, london)
	}

	for _, c := range []struct {
		currency, std, prem string
		want                string // the prices stored, in minor units
		row                 string // the schedule's row as it writes them
	}{
		{"EUR", "7,50", "1.234,50", "EUR PREMIUM=123450, EUR STANDARD=750", "Premium €1,234.50, Standard €7.50"},
		{"USD", "1,234.50", "1,234,567", "USD PREMIUM=123456700, USD STANDARD=123450", "Premium $1,234,567, Standard $1,234.50"},
		{"INR", "250", "12,34,567.89", "INR PREMIUM=123456789, INR STANDARD=25000", "Premium ₹12,34,567.89, Standard ₹250"},
		{"JPY", "1,500", "2200", "JPY PREMIUM=2200, JPY STANDARD=1500", "Premium ¥2,200, Standard ¥1,500"},
		{"KWD", "1.250", "3", "KWD PREMIUM=3000, KWD STANDARD=1250", "Premium KWD 3, Standard KWD 1.250"},
	} {
		t.Run(c.currency, func(t *testing.T) {
			pgtest.Exec(t, e.Store.Pool(), `DELETE FROM show_seats; DELETE FROM show_prices; DELETE FROM audit_log; DELETE FROM shows`)
			p := b.Submit(t, path, show(c.currency, c.std, c.prem))
			webtest.WantSeeOther(t, p, path+"?scheduled=1")
			if got := stored(); got != c.want {
				t.Fatalf("stored %q, want %q", got, c.want)
			}
			p = b.Get(t, path)
			if got := p.Text("[data-prices]"); got != c.row {
				t.Fatalf("the schedule writes %q, want %q", got, c.row)
			}
		})
	}

	pgtest.Exec(t, e.Store.Pool(), `DELETE FROM show_seats; DELETE FROM show_prices; DELETE FROM audit_log; DELETE FROM shows`)
	for _, c := range []struct {
		name, currency, std string
		field, says         string
	}{
		{"an ambiguous comma", "EUR", "1,500", "one-" + standard, "could be €1,500 (with a thousands comma) or €1.50"},
		{"more decimals than euros have", "EUR", "7.505", "one-" + standard, "reads as 7.505, but EUR has 2 decimals"},
		{"decimals of yen", "JPY", "15.5", "one-" + standard, "JPY has no decimals"},
		{"a huge price", "INR", "9223372036854775807", "one-" + standard, "The largest price is ₹1,00,00,000"},
		{"one rupee over the largest", "INR", "10000001", "one-" + standard, "₹1,00,00,001 is more than a seat may cost"},
		{"a currency ISO never assigned", "XYZ", "250", "one-currency", "ISO 4217"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := b.Submit(t, path, show(c.currency, c.std, "18"))
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			wantField(t, p, c.field, c.says)
			if got := p.Attr("#one-"+standard, "value"); got != c.std {
				t.Fatalf("the form lost the price typed: %q", got)
			}
			if got := stored(); got != "" {
				t.Fatalf("a refused form stored %q", got)
			}
		})
	}

	t.Run("a show's price form reads in its currency", func(t *testing.T) {
		p := b.Submit(t, path, show("JPY", "1500", "2200"))
		webtest.WantSeeOther(t, p, path+"?scheduled=1")
		id := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT max(id) FROM shows`)
		p = b.Get(t, path)
		if got := p.Attr(fmt.Sprintf("#price-%d-STANDARD", id), "value"); got != "1500" {
			t.Fatalf("the yen price's field = %q, want 1500", got)
		}
		p = b.Submit(t, fmt.Sprintf("/admin/shows/%d/prices", id), url.Values{"price-STANDARD": {"1.5"}, "price-PREMIUM": {"2,000"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		wantField(t, p, fmt.Sprintf("price-%d-STANDARD", id), "JPY has no decimals")
		p = b.Submit(t, fmt.Sprintf("/admin/shows/%d/prices", id), url.Values{"price-STANDARD": {"1,800"}, "price-PREMIUM": {"2,000"}})
		webtest.WantStatus(t, p, http.StatusSeeOther)
		if got := stored(); got != "JPY PREMIUM=2000, JPY STANDARD=1800" {
			t.Fatalf("stored %q", got)
		}
	})

	t.Run("each price field says how it reads", func(t *testing.T) {
		for _, c := range []struct{ currency, typed, says string }{
			{"EUR", "7,50", "Reads as €7.50"},
			{"EUR", "1,500", "could be €1,500"},
			{"JPY", "1,500", "Reads as ¥1,500"},
			{"KWD", "1.250", "Reads as KWD 1.250"}, // the page's text, its no-break space read as a space
			{"INR", "1234567.8", "Reads as ₹12,34,567.80"},
			{"XYZ", "250", "Give the currency first"},
			{"EUR", "", ""},
		} {
			q := url.Values{"currency": {c.currency}, standard: {c.typed}}
			p := b.Get(t, "/admin/price-reading?"+q.Encode())
			webtest.Want200(t, p)
			if got := p.Text("body"); !strings.Contains(got, c.says) || (c.says == "" && got != "") {
				t.Errorf("%s %q reads %q, want %q", c.currency, c.typed, got, c.says)
			}
		}
		if got := e.Browser().Get(t, "/admin/price-reading?currency=EUR&price-1-STANDARD=7"); strings.Contains(got.Text("body"), "Reads as") {
			t.Errorf("a guest may read prices: %s", got)
		}
	})
}

// The theatre form has the theatre's currency: a new theatre is made in
// the one chosen, a theatre's is changed on its page, and one that is not
// a current ISO 4217 code comes back at its field and changes nothing.
func TestTheatreCurrencyForm(t *testing.T) {
	e := webtest.NewEnv(t)
	b := signedIn(t, e, auth.RolePlatformAdmin)
	p := b.Get(t, "/admin/theatres")
	webtest.Want200(t, p)
	if got := p.Attr("#theatre-currency", "value"); got != "INR" {
		t.Fatalf("a new theatre's currency starts as %q, want INR", got)
	}
	p = b.Submit(t, "/admin/theatres", url.Values{"city": {e.CitySlug(t)}, "name": {"Cinema Ideal"},
		"timezone": {"Europe/Lisbon"}, "currency": {"eur"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("create: %s", p)
	}
	var id int64
	if _, err := fmt.Sscanf(p.Header.Get("Location"), "/admin/theatres/%d?done=created", &id); err != nil {
		t.Fatalf("created, then to %q", p.Header.Get("Location"))
	}
	currency := func() string {
		return pgtest.Scalar[string](t, e.Store.Pool(), `SELECT currency FROM theatres WHERE id = $1`, id)
	}
	if got := currency(); got != "EUR" {
		t.Fatalf("the new theatre's currency = %s, want EUR", got)
	}
	path := fmt.Sprintf("/admin/theatres/%d", id)
	p = b.Get(t, path)
	if got := p.Attr("#theatre-currency", "value"); got != "EUR" {
		t.Fatalf("the theatre's form shows currency %q, want EUR", got)
	}
	edit := func(currency string) url.Values {
		return url.Values{"name": {"Cinema Ideal"}, "address": {""}, "timezone": {"Europe/Lisbon"}, "currency": {currency},
			"cleaning_buffer_minutes": {"15"}, "tier_hours": {"24", "2"}, "tier_percent": {"100", "50"}}
	}
	p = b.Submit(t, path, edit("XYZ"))
	webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
	if got := p.Text("#theatre-currency-error"); !strings.Contains(got, "ISO 4217") {
		t.Fatalf("the currency's error = %q", got)
	}
	if got := currency(); got != "EUR" {
		t.Fatalf("a refused form changed the currency to %s", got)
	}
	webtest.WantSeeOther(t, b.Submit(t, path, edit("JPY")), path+"?done=saved")
	if got := currency(); got != "JPY" {
		t.Fatalf("the currency = %s after saving JPY", got)
	}
}
