package admin_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestRefundBooking(t *testing.T) {
	w := newDoorWorld(t)
	desk := w.staff[auth.StaffBoxOffice]
	// Ten hours ahead: the default policy gives back half.
	soon := pgtest.NewShow(t, w.s, w.v, 2, 4, time.Now().Add(10*time.Hour))

	t.Run("by the policy: half back, seats on sale again, the customer told, the reason audited", func(t *testing.T) {
		b := w.book(soon, "A1", "A2")
		got, err := w.svc.RefundBooking(ctx, desk, b.ID, booking.StaffRefund{Reason: "  Stuck in traffic  "})
		if err != nil || got.Status != booking.BookingCancelled || got.CancelledBy != booking.CancelledByTheatre ||
			got.Refund == nil || got.Refund.AmountMinor != b.AmountMinor/2 || got.Refund.Status != booking.RefundPending {
			t.Fatalf("refund = %+v (%+v), %v", got.Booking, got.Refund, err)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM show_seats WHERE show_id = $1 AND seat_id IN ('A1', 'A2') AND status = 'AVAILABLE'`, soon); n != 2 {
			t.Fatalf("%d of the 2 seats back on sale", n)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM mails WHERE booking_id = $1 AND kind = 'booking_cancelled'`, b.ID); n != 1 {
			t.Fatalf("%d cancellation mails, want 1", n)
		}
		reason := pgtest.Scalar[string](t, w.s.Pool(), `
			SELECT after->>'reason' FROM audit_log WHERE action = 'booking.refund' AND object = 'booking ' || $1 AND actor_id = $2`, b.ID, desk.UserID)
		if reason != "Stuck in traffic" {
			t.Fatalf("audited reason = %q", reason)
		}

		// Again: the same answer, nothing more refunded, mailed or audited.
		again, err := w.svc.RefundBooking(ctx, desk, b.ID, booking.StaffRefund{Full: true, Reason: "again"})
		if err != nil || again.Refund == nil || again.Refund.ID != got.Refund.ID || again.Refund.AmountMinor != got.Refund.AmountMinor {
			t.Fatalf("again = %+v, %v", again.Refund, err)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM refunds WHERE booking_id = $1`, b.ID); n != 1 {
			t.Fatalf("%d refunds after a retry", n)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM audit_log WHERE action = 'booking.refund' AND object = 'booking ' || $1`, b.ID); n != 1 {
			t.Fatalf("%d audit entries after a retry", n)
		}
	})
	t.Run("in full, whatever the policy says", func(t *testing.T) {
		b := w.book(soon, "B1")
		got, err := w.svc.RefundBooking(ctx, w.staff[auth.StaffManager], b.ID, booking.StaffRefund{Full: true, Reason: "Projector failed"})
		if err != nil || got.Refund == nil || got.Refund.AmountMinor != b.AmountMinor {
			t.Fatalf("full refund = %+v, %v", got.Refund, err)
		}
	})
	t.Run("a reason is needed, and refusing changes nothing", func(t *testing.T) {
		b := w.book(soon, "B2")
		for _, reason := range []string{"", "   ", strings.Repeat("x", 501), "line\x00"} {
			_, err := w.svc.RefundBooking(ctx, desk, b.ID, booking.StaffRefund{Reason: reason})
			var fe *catalog.FieldError
			if !errors.As(err, &fe) || fe.Field != "reason" {
				t.Fatalf("reason %q: %v", reason, err)
			}
		}
		if st := pgtest.Scalar[string](t, w.s.Pool(), `SELECT status FROM bookings WHERE id = $1`, b.ID); st != "CONFIRMED" {
			t.Fatalf("a refused refund left the booking %s", st)
		}
	})
	t.Run("a counter sale's refund is owed at the counter until it is recorded as handed back", func(t *testing.T) {
		sold, err := w.svc.Sell(ctx, desk, booking.CounterSale{ShowID: soon, Seats: []string{"B3"}, PaidBy: booking.PaidCash, Name: "Walk-in", Key: "refund-counter"})
		if err != nil {
			t.Fatal(err)
		}
		online := w.book(soon, "B4")
		if _, err := w.svc.SettleCounterRefund(ctx, desk, sold.ID); !errors.Is(err, booking.ErrNoCounterRefund) {
			t.Fatalf("settled before any refund: %v", err)
		}
		got, err := w.svc.RefundBooking(ctx, desk, sold.ID, booking.StaffRefund{Full: true, Reason: "Changed their mind"})
		if err != nil || got.Refund == nil || got.Refund.Status != booking.RefundPending {
			t.Fatalf("counter refund = %+v, %v", got.Refund, err)
		}
		paid, err := w.svc.SettleCounterRefund(ctx, desk, sold.ID)
		if err != nil || paid.Refund == nil || paid.Refund.Status != booking.RefundSucceeded {
			t.Fatalf("settled = %+v, %v", paid.Refund, err)
		}
		if _, err := w.svc.SettleCounterRefund(ctx, desk, sold.ID); err != nil {
			t.Fatalf("settled again: %v", err)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM audit_log WHERE action = 'booking.counter_refund'`); n != 1 {
			t.Fatalf("%d audit entries for one refund handed back", n)
		}
		// An online booking's refund goes back through the provider.
		if _, err := w.svc.RefundBooking(ctx, desk, online.ID, booking.StaffRefund{Full: true, Reason: "r"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.SettleCounterRefund(ctx, desk, online.ID); !errors.Is(err, booking.ErrNoCounterRefund) {
			t.Fatalf("an online refund recorded as paid at the counter: %v", err)
		}
	})
	t.Run("ushers may not refund; another theatre's staff do not find the booking", func(t *testing.T) {
		b := w.book(soon, "A3")
		if _, err := w.svc.RefundBooking(ctx, w.staff[auth.StaffUsher], b.ID, booking.StaffRefund{Full: true, Reason: "r"}); err == nil {
			t.Fatal("an usher refunded a booking")
		}
		if _, err := w.svc.RefundBooking(ctx, w.stafer, b.ID, booking.StaffRefund{Full: true, Reason: "r"}); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("another theatre's manager: %v", err)
		}
		if st := pgtest.Scalar[string](t, w.s.Pool(), `SELECT status FROM bookings WHERE id = $1`, b.ID); st != "CONFIRMED" {
			t.Fatal("a refused caller cancelled the booking")
		}
	})
}

func TestSearchBookings(t *testing.T) {
	w := newDoorWorld(t)
	desk := w.staff[auth.StaffBoxOffice]
	online := w.book(w.show, "C1")
	email, name := pgtest.Scalar[string](t, w.s.Pool(), `SELECT email FROM users WHERE id = $1`, online.UserID),
		pgtest.Scalar[string](t, w.s.Pool(), `SELECT name FROM users WHERE id = $1`, online.UserID)
	sold, err := w.svc.Sell(ctx, desk, booking.CounterSale{ShowID: w.show, Seats: []string{"C2"}, PaidBy: booking.PaidCard,
		Name: "Ada Lovelace", Email: "ada@example.com", Key: "search"})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(q string, theatre int64) []string {
		t.Helper()
		list, err := w.svc.SearchBookings(ctx, desk, theatre, q)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		var out []string
		for _, b := range list {
			out = append(out, b.ID)
		}
		return out
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{online.Code, []string{online.ID}},
		{strings.ToLower(online.Code), []string{online.ID}},
		{online.ID, []string{online.ID}},
		{strings.ToUpper(email), []string{online.ID}},
		{name, []string{online.ID}},
		{"ADA@example.com", []string{sold.ID}},
		{"lovel", []string{sold.ID}},
		{"nobody by that name", nil},
		{"%_", nil}, // a pattern's characters are letters here
	} {
		if got := ids(tc.q, 0); !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v, want %v", tc.q, got, tc.want)
		}
		if got := ids(tc.q, w.v.TheatreID); !slices.Equal(got, tc.want) {
			t.Errorf("search %q in the theatre = %v, want %v", tc.q, got, tc.want)
		}
	}
	var fe *catalog.FieldError
	if _, err := w.svc.SearchBookings(ctx, desk, 0, " a "); !errors.As(err, &fe) || fe.Field != "q" {
		t.Fatalf("a one-letter search: %v", err)
	}
	// Another theatre's staff find nothing, and may not name this theatre.
	if list, err := w.svc.SearchBookings(ctx, w.stafer, 0, "Ada Lovelace"); err != nil || len(list) != 0 {
		t.Fatalf("another theatre's search = %v, %v", list, err)
	}
	if _, err := w.svc.SearchBookings(ctx, w.stafer, w.v.TheatreID, "Ada"); !errors.Is(err, booking.ErrNotFound) {
		t.Fatalf("another theatre's search of this one: %v", err)
	}
	if _, err := w.svc.SearchBookings(ctx, w.staff[auth.StaffUsher], 0, "Ada"); err == nil {
		t.Fatal("an usher searched the bookings")
	}
}

func TestMoveBooking(t *testing.T) {
	w := newDoorWorld(t)
	desk := w.staff[auth.StaffBoxOffice]

	t.Run("to another show of the movie: new seats booked, old ones on sale, the ticket sent again", func(t *testing.T) {
		b := w.book(w.show, "D1", "D2")
		got, err := w.svc.MoveBooking(ctx, desk, b.ID, w.other, []string{"B2", "B1"})
		if err != nil || got.ShowID != w.other || !slices.Equal(got.Seats, []string{"B1", "B2"}) || got.Status != booking.BookingConfirmed ||
			got.Code != b.Code || got.AmountMinor != b.AmountMinor {
			t.Fatalf("moved = %+v, %v", got.Booking, err)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM show_seats WHERE show_id = $1 AND seat_id IN ('D1', 'D2') AND status = 'AVAILABLE'`, w.show); n != 2 {
			t.Fatalf("%d of the old seats on sale again", n)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM mails WHERE booking_id = $1 AND kind = 'booking_moved' AND show_id = $2`, b.ID, w.other); n != 1 {
			t.Fatalf("%d tickets sent for the new show", n)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM audit_log WHERE action = 'booking.move' AND object = 'booking ' || $1`, b.ID); n != 1 {
			t.Fatalf("%d audit entries", n)
		}
		// The new show's ticket is admitted; the old code is another show's.
		a, err := w.svc.CheckIn(ctx, w.staff[auth.StaffUsher], w.other, w.keys.Code(b.Code, w.other), "")
		if err != nil || a.Result != booking.Admitted {
			t.Fatalf("check-in at the new show = %+v, %v", a, err)
		}
		// Admitted, it moves no more.
		if _, err := w.svc.MoveBooking(ctx, desk, b.ID, w.show, []string{"D1", "D2"}); !errors.Is(err, booking.ErrAdmitted) {
			t.Fatalf("an admitted booking moved: %v", err)
		}
	})
	t.Run("refusals change nothing", func(t *testing.T) {
		b := w.book(w.show, "D3")
		taken := w.book(w.other, "A1")
		elsewhere := pgtest.NewShow(t, w.s, pgtest.NewVenue(t, w.s), 2, 2, time.Now().Add(72*time.Hour))
		otherMovie := pgtest.NewVenue(t, w.s)
		otherMovie.TheatreID = w.v.TheatreID
		differentFilm := pgtest.NewShow(t, w.s, otherMovie, 2, 2, time.Now().Add(72*time.Hour))
		past := pgtest.NewShow(t, w.s, w.v, 2, 2, time.Now().Add(time.Hour))
		pgtest.Exec(t, w.s.Pool(), `UPDATE shows SET starts_at = now() - interval '1 hour', ends_at = now() + interval '1 hour' WHERE id = $1`, past)
		dearer := pgtest.NewShow(t, w.s, w.v, 2, 2, time.Now().Add(96*time.Hour))
		pgtest.Exec(t, w.s.Pool(), `UPDATE show_prices SET price_minor = price_minor * 2 WHERE show_id = $1`, dearer)
		var unavailable *booking.SeatsUnavailableError
		var unknown *booking.UnknownSeatsError
		var differs *booking.PriceDiffersError
		for name, tc := range map[string]struct {
			to    int64
			seats []string
			is    func(error) bool
		}{
			"a seat taken":         {w.other, []string{taken.Seats[0]}, func(err error) bool { return errors.As(err, &unavailable) }},
			"a seat not there":     {w.other, []string{"Z9"}, func(err error) bool { return errors.As(err, &unknown) }},
			"the same show":        {w.show, []string{"D4"}, func(err error) bool { return errors.Is(err, booking.ErrSameShow) }},
			"another theatre":      {elsewhere, []string{"A1"}, func(err error) bool { return errors.Is(err, booking.ErrNotFound) }},
			"another movie":        {differentFilm, []string{"A1"}, func(err error) bool { return errors.Is(err, booking.ErrOtherMovie) }},
			"a show under way":     {past, []string{"A1"}, func(err error) bool { return errors.Is(err, booking.ErrShowClosed) }},
			"dearer seats":         {dearer, []string{"A1"}, func(err error) bool { return errors.As(err, &differs) && differs.Asked != differs.Paid }},
			"no seats":             {w.other, nil, func(err error) bool { return errors.Is(err, booking.ErrNoSeats) }},
			"a seat twice":         {w.other, []string{"B1", "B1"}, func(err error) bool { var d *booking.DuplicateSeatsError; return errors.As(err, &d) }},
			"no such show":         {1 << 40, []string{"A1"}, func(err error) bool { return errors.Is(err, booking.ErrNotFound) }},
			"by an usher":          {w.other, []string{"A2"}, nil},
			"by another theatre's": {w.other, []string{"A2"}, nil},
		} {
			actor := desk
			switch name {
			case "by an usher":
				actor = w.staff[auth.StaffUsher]
			case "by another theatre's":
				actor = w.stafer
			}
			_, err := w.svc.MoveBooking(ctx, actor, b.ID, tc.to, tc.seats)
			if err == nil || (tc.is != nil && !tc.is(err)) {
				t.Errorf("%s: %v", name, err)
			}
		}
		after, err := w.s.StaffBooking(ctx, b.ID)
		if err != nil || after.ShowID != w.show || !slices.Equal(after.Seats, []string{"D3"}) {
			t.Fatalf("after the refusals: %+v, %v", after.Booking, err)
		}
	})
	t.Run("a cancelled booking does not move", func(t *testing.T) {
		b := w.book(w.show, "D4")
		if _, err := w.svc.RefundBooking(ctx, desk, b.ID, booking.StaffRefund{Full: true, Reason: "r"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.MoveBooking(ctx, desk, b.ID, w.other, []string{"A2"}); !errors.Is(err, booking.ErrNoTicket) {
			t.Fatalf("a cancelled booking moved: %v", err)
		}
	})
}

// A move races 30 moviegoers holding its new seats online, all released
// together: each seat has one owner, and the move is all or nothing.
func TestMoveBookingRacesOnlineHolds(t *testing.T) {
	w := newDoorWorld(t)
	b := w.book(w.show, "A4", "A5")
	target := pgtest.NewShow(t, w.s, w.v, 2, 3, time.Now().Add(80*time.Hour))
	seats := []string{"A1", "A2"}
	users := make([]string, 30)
	for i := range users {
		users[i] = pgtest.User(t, w.s)
	}
	var moveErr error
	holds := make([]error, len(users))
	pgtest.Release(len(users)+1, func(i int) {
		if i == len(users) {
			_, moveErr = w.svc.MoveBooking(ctx, w.staff[auth.StaffBoxOffice], b.ID, target, seats)
			return
		}
		_, holds[i] = w.s.HoldSeats(ctx, booking.HoldRequest{UserID: users[i], ShowID: target, Seats: []string{seats[i%2]},
			TTL: time.Minute, Key: "race-" + users[i]}, 10)
	})
	held := 0
	for _, err := range holds {
		if err == nil {
			held++
		}
	}
	moved := moveErr == nil
	var unavailable *booking.SeatsUnavailableError
	if !moved && !errors.As(moveErr, &unavailable) {
		t.Fatalf("the move failed otherwise: %v", moveErr)
	}
	switch {
	case moved && held != 0:
		t.Fatalf("the move won and %d online holds too", held)
	case !moved && held == 0:
		t.Fatal("nobody got the seats")
	}
	if dup, err := pgtest.DoubleAllocations(ctx, w.s.Pool(), target); err != nil || len(dup) > 0 {
		t.Fatalf("seats allocated twice: %v %v", dup, err)
	}
	showNow := pgtest.Scalar[int64](t, w.s.Pool(), `SELECT show_id FROM bookings WHERE id = $1`, b.ID)
	if moved != (showNow == target) {
		t.Fatalf("moved = %v, but the booking is for show %d", moved, showNow)
	}
	t.Logf("moved: %v; online holds: %d", moved, held)
}
