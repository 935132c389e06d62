package adminapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// A show's currency is a current ISO 4217 code, and a price is at most
// money.MaxPriceMinor: anything else is a 422 that names what to send,
// and nothing is stored.
func TestShowCurrencyAndPriceBoundsAPI(t *testing.T) {
	s := newSite(t)
	at := s.Now().Add(96 * time.Hour).Truncate(time.Hour).In(s.loc)
	body := s.showBody(at)
	before := s.tables(t)
	for name, c := range map[string]struct {
		body       map[string]any
		code, says string
	}{
		"a code ISO 4217 never assigned": {with(body, "currency", "XYZ"), "invalid_currency", `"XYZ" is not a current ISO 4217 currency code`},
		"a withdrawn code":               {with(body, "currency", "DEM"), "invalid_currency", "ISO 4217"},
		"the code of no currency":        {with(body, "currency", "XXX"), "invalid_currency", "ISO 4217"},
		"the largest int64": {with(body, "prices", map[string]int64{"STANDARD": math.MaxInt64, "PREMIUM": 45000}),
			"invalid_prices", "the largest price of a seat is ₹1,00,00,000"},
		"one paisa over the bound": {with(body, "prices", map[string]int64{"STANDARD": 25000, "PREMIUM": money.MaxPriceMinor + 1}),
			"invalid_prices", "₹1,00,00,000"},
		"one yen over the bound": {with(with(body, "currency", "JPY"), "prices", map[string]int64{"STANDARD": 1500, "PREMIUM": money.MaxPriceMinor + 1}),
			"invalid_prices", "¥1,000,000,000"},
	} {
		t.Run(name, func(t *testing.T) {
			r := s.local.Post("/api/v1/admin/shows", c.body)
			webtest.WantError(t, r, http.StatusUnprocessableEntity, c.code)
			if !strings.Contains(r.Str("message"), c.says) {
				t.Fatalf("message = %q, want it to say %q", r.Str("message"), c.says)
			}
			s.unchanged(t, before)
		})
	}

	t.Run("the largest price sells, and a hold of it does not overflow", func(t *testing.T) {
		r := s.local.Post("/api/v1/admin/shows", with(body, "prices", map[string]int64{"STANDARD": money.MaxPriceMinor, "PREMIUM": money.MaxPriceMinor}))
		webtest.Want(t, r, http.StatusCreated)
		id := int64(r.Num("show_id"))
		h := s.User(t).HoldOn(id, "max", "A1", "A2")
		webtest.Want(t, h, http.StatusCreated)
		if got := int64(h.Num("amount_minor")); got != 2*money.MaxPriceMinor {
			t.Fatalf("amount = %d, want %d", got, 2*money.MaxPriceMinor)
		}

		// Its prices cannot be raised past the bound either.
		other := s.createShow(t, at.Add(6*time.Hour))
		was := s.tables(t)
		r = s.local.Send(webtest.Req{Method: "PUT", Path: fmt.Sprintf("/api/v1/admin/shows/%d/prices", other),
			Body: map[string]any{"prices": map[string]int64{"STANDARD": math.MaxInt64, "PREMIUM": 1}}})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_prices")
		if !strings.Contains(r.Str("message"), "₹1,00,00,000") {
			t.Fatalf("message = %q, want the largest price named", r.Str("message"))
		}
		s.unchanged(t, was)
	})
}

// A yen show stores and serves yen: 1500 is ¥1,500, not ¥15.
func TestYenShowSeatMapAPI(t *testing.T) {
	s := newSite(t)
	at := s.Now().Add(96 * time.Hour).Truncate(time.Hour).In(s.loc)
	r := s.local.Post("/api/v1/admin/shows", with(with(s.showBody(at), "currency", "JPY"), "prices", map[string]int64{"STANDARD": 1500, "PREMIUM": 2200}))
	webtest.Want(t, r, http.StatusCreated)
	id := int64(r.Num("show_id"))
	if got := pgtest.Scalar[string](t, s.Store.Pool(), `
		SELECT sh.currency || string_agg(' ' || p.category || '=' || p.price_minor, '' ORDER BY p.category)
		  FROM shows sh JOIN show_prices p ON p.show_id = sh.id WHERE sh.id = $1 GROUP BY sh.currency`, id); got != "JPY PREMIUM=2200 STANDARD=1500" {
		t.Fatalf("stored = %q", got)
	}
	m := s.Guest().Get(fmt.Sprintf("/api/v1/shows/%d/seats", id))
	webtest.Want(t, m, http.StatusOK)
	var seats struct {
		Seats []struct {
			ID         string `json:"id"`
			Category   string `json:"category"`
			PriceMinor int64  `json:"price_minor"`
			Currency   string `json:"currency"`
		} `json:"seats"`
	}
	if err := json.Unmarshal(m.Body, &seats); err != nil {
		t.Fatal(err)
	}
	for _, seat := range seats.Seats {
		want := map[string]int64{"STANDARD": 1500, "PREMIUM": 2200}[seat.Category]
		if seat.PriceMinor != want || seat.Currency != "JPY" {
			t.Fatalf("seat %s = %d %s, want %d JPY", seat.ID, seat.PriceMinor, seat.Currency, want)
		}
	}
}

// A theatre's currency is set and changed like its other settings, and
// only to a current ISO 4217 code.
func TestTheatreCurrencyAPI(t *testing.T) {
	s := newSite(t)
	path := fmt.Sprintf("/api/v1/admin/theatres/%d", s.Venue.TheatreID)
	r := s.local.Get(path)
	webtest.Want(t, r, http.StatusOK)
	if r.Str("currency") != "INR" {
		t.Fatalf("currency = %q, want INR", r.Str("currency"))
	}
	r = s.local.Send(webtest.Req{Method: "PATCH", Path: path, Body: map[string]any{"currency": "JPY"}})
	webtest.Want(t, r, http.StatusOK)
	if r.Str("currency") != "JPY" {
		t.Fatalf("patched currency = %q, want JPY", r.Str("currency"))
	}
	for _, bad := range []string{"XYZ", "DEM", "jpy", ""} {
		r = s.local.Send(webtest.Req{Method: "PATCH", Path: path, Body: map[string]any{"currency": bad}})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_currency")
	}
	if got := pgtest.Scalar[string](t, s.Store.Pool(), `SELECT currency FROM theatres WHERE id = $1`, s.Venue.TheatreID); got != "JPY" {
		t.Fatalf("stored currency = %q after refused changes, want JPY", got)
	}
}
