package admin_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// pay confirms a payment of hold h's amount and returns its outcome.
func (w *world) pay(h booking.Hold) booking.Confirmation {
	w.t.Helper()
	c, err := w.store.ConfirmPayment(w.t.Context(), booking.Payment{ID: "pay-" + h.ID, HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency})
	if err != nil {
		w.t.Fatalf("pay hold %s: %v", h.ID, err)
	}
	return c
}

// sold is a show of w with every kind of sale: two seats booked (A1, A2),
// one booked and cancelled by its moviegoer (C1, refund pending), one paid
// after its hold lapsed (B1, refunded) and one paid after its hold was
// cancelled (B2, refund failing).
func (w *world) sold(at time.Time) admin.ScheduledShow {
	w.t.Helper()
	sh := w.create(at)
	if c := w.pay(w.hold(sh.ID, "A1", "A2")); c.Outcome != booking.OutcomeBooked {
		w.t.Fatalf("A1 A2: %+v", c)
	}
	h := w.hold(sh.ID, "C1")
	c := w.pay(h)
	if _, err := w.store.CancelBooking(w.t.Context(), h.UserID, c.BookingID); err != nil {
		w.t.Fatal(err)
	}
	late := w.hold(sh.ID, "B1")
	w.clock.Advance(5 * time.Minute)
	if c := w.pay(late); c.Outcome != booking.OutcomeRefundRequired {
		w.t.Fatalf("late payment: %+v", c)
	}
	pgtest.Exec(w.t, w.store.Pool(), `UPDATE refunds SET status = 'SUCCEEDED' WHERE payment_id = $1`, "pay-"+late.ID)
	dropped := w.hold(sh.ID, "B2")
	if _, err := w.store.CancelHold(w.t.Context(), dropped.UserID, dropped.ID); err != nil {
		w.t.Fatal(err)
	}
	w.pay(dropped)
	pgtest.Exec(w.t, w.store.Pool(), `UPDATE refunds SET status = 'FAILED' WHERE payment_id = $1`, "pay-"+dropped.ID)
	return sh
}

func TestSales(t *testing.T) {
	w := newWorld(t, "Asia/Kolkata")
	loc, _ := time.LoadLocation("Asia/Kolkata")
	at := func(d, h, m int) time.Time { return time.Date(2027, 3, d, h, m, 0, 0, loc) }
	sold := w.sold(at(5, 23, 0)) // 17:30 UTC, 5 March in the theatre
	empty := w.create(at(4, 10, 0))
	w.create(at(6, 1, 0))   // 6 March in the theatre, 5 March in UTC: outside
	w.create(at(3, 23, 59)) // the day before: outside
	period, err := admin.ParsePeriod("2027-03-04", "2027-03-05")
	if err != nil {
		t.Fatal(err)
	}

	r, err := w.svc.Sales(t.Context(), w.platform, w.theatre, period)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Shows) != 2 || r.Shows[0].ShowID != empty.ID || r.Shows[1].ShowID != sold.ID {
		t.Fatalf("shows = %+v, want %d then %d", r.Shows, empty.ID, sold.ID)
	}
	got := r.Shows[1]
	// Taken: A1 A2 50000, C1 45000, B1 25000, B2 25000. Kept: the
	// bookings less C1's full refund. Owed: C1's pending refund and B2's
	// failing one; paid: B1's.
	want := fmt.Sprint(12, 2, 0.167, 50000, 145000, 50000, 70000, 25000, 25000, "INR", "SCHEDULED", "The Last Algorithm")
	if s := fmt.Sprint(got.Seats, got.Tickets, got.Occupancy, got.Revenue.Minor, got.Taken.Minor, got.Kept.Minor,
		got.RefundsOwed.Minor, got.RefundsPaid.Minor, got.RefundsFailed.Minor, got.Currency, got.Status, got.MovieTitle); s != want {
		t.Fatalf("sold show = %s, want %s", s, want)
	}
	if e := r.Shows[0]; e.Tickets != 0 || e.Occupancy != 0 || e.Revenue != money.Exact(0) || e.Taken != money.Exact(0) || e.Seats != 12 {
		t.Fatalf("empty show = %+v", e)
	}
	tot := r.Totals
	if r.Currency != "INR" || tot.Shows != 2 || tot.Seats != 24 || tot.Tickets != 2 || tot.Occupancy != 0.083 || tot.Money == nil ||
		*tot.Money != (admin.SalesMoney{Revenue: money.Exact(50000), Taken: money.Exact(145000), Kept: money.Exact(50000),
			RefundsOwed: money.Exact(70000), RefundsPaid: money.Exact(25000), RefundsFailed: money.Exact(25000)}) {
		t.Fatalf("totals = %+v %+v in %q", tot, tot.Money, r.Currency)
	}

	t.Run("shows in several currencies have no money totals", func(t *testing.T) {
		pgtest.Exec(t, w.store.Pool(), `UPDATE shows SET currency = 'USD' WHERE id = $1`, empty.ID)
		r, err := w.svc.Sales(t.Context(), w.platform, w.theatre, period)
		if err != nil {
			t.Fatal(err)
		}
		if r.Currency != "" || r.Totals.Money != nil || r.Totals.Tickets != 2 {
			t.Fatalf("mixed report = %q %+v", r.Currency, r.Totals)
		}
		pgtest.Exec(t, w.store.Pool(), `UPDATE shows SET currency = 'INR' WHERE id = $1`, empty.ID)
	})
}

func TestParsePeriod(t *testing.T) {
	for _, c := range []struct {
		from, to, field string
	}{
		{"2027-03-01", "2027-03-01", ""},
		{"2027-01-01", "2028-01-02", ""}, // 366 days apart
		{"2027-01-01", "2028-01-03", "to"},
		{"2027-03-02", "2027-03-01", "to"},
		{"", "2027-03-01", "from"},
		{"2027-03-01", "", "to"},
		{"2027-02-30", "2027-03-01", "from"},
		{"2027-3-1", "2027-03-01", "from"},
	} {
		_, err := admin.ParsePeriod(c.from, c.to)
		var fe *catalog.FieldError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s..%s: %v", c.from, c.to, err)
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%s..%s: err = %v, want a problem with %s", c.from, c.to, err, c.field)
		}
	}
}

// TestSalesByChannel sells one show every way a ticket is sold: online,
// in cash and by card at the counter, and complimentary. The report splits
// the show's tickets and revenue by channel, line and totals alike, and
// the channels add up to the show's figures; a cancelled booking is in
// none of them.
func TestSalesByChannel(t *testing.T) {
	w := newDoorWorld(t)
	seller := w.staff[auth.StaffBoxOffice]
	sell := func(paid booking.PaidBy, reason string, seats ...string) booking.Booking {
		t.Helper()
		b, err := w.svc.Sell(ctx, seller, booking.CounterSale{ShowID: w.show, Seats: seats, PaidBy: paid, Name: "Walk-in",
			Reason: reason, Key: fmt.Sprint("channels-", seats)})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	online := w.book(w.show, "A1", "A2")
	cancelled := w.book(w.show, "A3")
	if _, err := w.s.CancelBooking(ctx, cancelled.UserID, cancelled.ID); err != nil {
		t.Fatal(err)
	}
	cash := sell(booking.PaidCash, "", "B1")
	card := sell(booking.PaidCard, "", "B2", "B3")
	comp := sell(booking.PaidComplimentary, "Press screening", "C1")
	startsAt := pgtest.Scalar[time.Time](t, w.s.Pool(), `SELECT starts_at FROM shows WHERE id = $1`, w.show)
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	day := startsAt.In(kolkata).Format(time.DateOnly)
	period, err := admin.ParsePeriod(day, day)
	if err != nil {
		t.Fatal(err)
	}

	r, err := w.svc.Sales(ctx, w.staff[auth.StaffManager], w.v.TheatreID, period)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Shows) != 1 || r.Shows[0].ShowID != w.show {
		t.Fatalf("shows = %+v, want show %d alone", r.Shows, w.show)
	}
	sold := func(tickets int, revenue int64) booking.Sold {
		return booking.Sold{Tickets: tickets, Revenue: money.Exact(revenue)}
	}
	want := booking.ChannelSales{
		Online:        sold(2, online.AmountMinor),
		Cash:          sold(1, cash.AmountMinor),
		Card:          sold(2, card.AmountMinor),
		Complimentary: sold(1, 0),
	}
	line := r.Shows[0]
	if line.Channels != want {
		t.Fatalf("channels = %+v, want %+v", line.Channels, want)
	}
	if comp.AmountMinor != 0 || cash.AmountMinor == 0 || card.AmountMinor == 0 {
		t.Fatalf("sales: cash %d, card %d, complimentary %d", cash.AmountMinor, card.AmountMinor, comp.AmountMinor)
	}
	if bo := line.Channels.BoxOffice(); bo != sold(3, cash.AmountMinor+card.AmountMinor) {
		t.Fatalf("box office = %+v, want cash and card together", bo)
	}
	all := want.Online.Plus(want.Cash).Plus(want.Card).Plus(want.Complimentary)
	if line.Tickets != 6 || all.Tickets != line.Tickets || all.Revenue != line.Revenue {
		t.Fatalf("the channels (%+v) do not add up to the show's %d tickets, %v revenue", all, line.Tickets, line.Revenue)
	}
	if r.Totals.Channels != want || r.Totals.Money == nil || r.Totals.Money.Revenue != all.Revenue {
		t.Fatalf("totals = %+v, money %+v", r.Totals.Channels, r.Totals.Money)
	}

	t.Run("the CSV has a column for each channel's tickets and revenue", func(t *testing.T) {
		data, _, err := r.CSV()
		if err != nil {
			t.Fatal(err)
		}
		records, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || len(records) != 2 {
			t.Fatalf("csv = %q, %v", records, err)
		}
		got := map[string]string{}
		for i, name := range records[0] {
			got[name] = records[1][i]
		}
		for name, v := range map[string]any{
			"time_zone": "Asia/Kolkata", "tickets": 6,
			"online_tickets": 2, "online_revenue_minor": online.AmountMinor,
			"box_office_tickets": 3, "box_office_revenue_minor": cash.AmountMinor + card.AmountMinor,
			"box_office_cash_tickets": 1, "box_office_cash_revenue_minor": cash.AmountMinor,
			"box_office_card_tickets": 2, "box_office_card_revenue_minor": card.AmountMinor,
			"complimentary_tickets": 1, "complimentary_revenue_minor": 0,
		} {
			if got[name] != fmt.Sprint(v) {
				t.Errorf("%s = %q, want %v", name, got[name], v)
			}
		}
		if records[0][15] != "time_zone" {
			t.Errorf("the columns before the channels moved: %q", records[0])
		}
	})

	t.Run("only managers see sales", func(t *testing.T) {
		if _, err := w.svc.Sales(ctx, seller, w.v.TheatreID, period); !errors.Is(err, admin.ErrRole) {
			t.Fatalf("the box office's report: %v, want ErrRole", err)
		}
	})
}
