package webtest

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// Figures are a show's money in a sales report, in minor units.
type Figures struct{ Revenue, Taken, Kept, Owed, Paid, Failed int64 }

// Plus adds g to f.
func (f Figures) Plus(g Figures) Figures {
	return Figures{f.Revenue + g.Revenue, f.Taken + g.Taken, f.Kept + g.Kept, f.Owed + g.Owed, f.Paid + g.Paid, f.Failed + g.Failed}
}

// SalesLedger is the env's theatre after every kind of payment its
// report must account for, and the figures the report must show.
type SalesLedger struct {
	Soon   int64             // a show 10 hours ahead, where every kind of payment happened
	Shows  map[int64]Figures // the env's show and Soon
	Totals Figures
}

// SoldEveryWay sells, through the API and the webhook, what a sales report
// must add up: on the env's show one booking; on a show 10 hours ahead a
// booking and a second payment of its hold (owed back, then paid back), a
// booking cancelled for half its price (the default policy that close to
// the show), a payment of the wrong amount whose refund fails, and a
// payment that came after its hold lapsed. The env needs WithClock.
func (e *Env) SoldEveryWay(t *testing.T) SalesLedger {
	t.Helper()
	if e.Clock == nil {
		t.Fatal("SoldEveryWay needs an env WithClock")
	}
	price := pgtest.Prices["STANDARD"]
	pool := e.Store.Pool()
	l := SalesLedger{Soon: pgtest.NewShow(t, e.Store, e.Venue, 3, 3, e.Now().Add(10*time.Hour))}

	e.Pay(t, e.User(t).MustHold(t, "B1"))

	booked := e.User(t).HoldOn(l.Soon, "booked", "A1")
	Want(t, booked, http.StatusCreated)
	e.Pay(t, booked)
	twice := e.Webhook(e.PaymentFor(booked))
	if twice.Str("reason") != "already_confirmed" {
		t.Fatalf("second payment = %s", twice)
	}
	pgtest.Exec(t, pool, `UPDATE refunds SET status = 'SUCCEEDED' WHERE payment_id = $1`, twice.Str("payment_id"))

	canceller := e.User(t)
	cancelled := canceller.HoldOn(l.Soon, "cancelled", "A2")
	Want(t, cancelled, http.StatusCreated)
	b := e.Pay(t, cancelled)
	Want(t, canceller.Post("/api/v1/bookings/"+b.Str("booking_id")+"/cancel", nil), http.StatusOK)

	wrong := e.User(t).HoldOn(l.Soon, "wrong", "A3")
	Want(t, wrong, http.StatusCreated)
	w := e.PaymentFor(wrong)
	w.AmountMinor++
	Want(t, e.Webhook(w), http.StatusUnprocessableEntity)
	pgtest.Exec(t, pool, `UPDATE refunds SET status = 'FAILED', attempts = 2, last_error = 'card closed' WHERE payment_id = $1`, w.PaymentID)

	late := e.User(t).HoldOn(l.Soon, "late", "B1")
	Want(t, late, http.StatusCreated)
	e.Clock.Advance(HoldTTL + time.Second)
	if r := e.Webhook(e.PaymentFor(late)); r.Str("reason") != "hold_expired" {
		t.Fatalf("late payment = %s", r)
	}

	l.Shows = map[int64]Figures{
		e.Show: {Revenue: price, Taken: price, Kept: price},
		l.Soon: {
			Revenue: price,
			Taken:   price + price + price + (price + 1) + price,
			Kept:    price + price/2,
			Owed:    price/2 + (price + 1) + price,
			Paid:    price,
			Failed:  price + 1,
		},
	}
	l.Totals = l.Shows[e.Show].Plus(l.Shows[l.Soon])
	return l
}

// SalesWeek is the query of a sales report of the env's theatre over the
// week that starts on its day (Asia/Kolkata), for the page and the API.
func (e *Env) SalesWeek() url.Values {
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	today := e.Now().In(kolkata)
	return url.Values{"theatre_id": {fmt.Sprint(e.Venue.TheatreID)},
		"from": {today.Format(time.DateOnly)}, "to": {today.AddDate(0, 0, 6).Format(time.DateOnly)}}
}
