package admin_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/refunds"
)

func TestCounterSales(t *testing.T) {
	w := newDoorWorld(t)
	seller := w.staff[auth.StaffBoxOffice]
	sale := func(paid booking.PaidBy, key string, seats ...string) booking.CounterSale {
		return booking.CounterSale{ShowID: w.show, Seats: seats, PaidBy: paid, Name: "Walk-in", Key: key}
	}

	t.Run("cash: booked at once, with who sold it; a retry is the same sale", func(t *testing.T) {
		b, err := w.svc.Sell(ctx, seller, sale(booking.PaidCash, "cash-1", "A2", "A1"))
		if err != nil || b.Status != booking.BookingConfirmed || b.Channel != booking.BoxOffice || b.AmountMinor == 0 ||
			b.UserID != seller.UserID || !booking.CounterPayment(b.PaymentID) {
			t.Fatalf("sale = %+v, %v", b, err)
		}
		again, err := w.svc.Sell(ctx, seller, sale(booking.PaidCash, "cash-1", "A1", "A2"))
		if err != nil || again.ID != b.ID {
			t.Fatalf("retry = %+v, %v", again, err)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM bookings WHERE channel = 'box_office' AND paid_by = 'cash'`); n != 1 {
			t.Fatalf("%d cash bookings, want 1", n)
		}
		// A counter sale is not the seller's own booking.
		if mine, err := w.s.Bookings(ctx, seller.UserID); err != nil || len(mine) != 0 {
			t.Fatalf("the seller's own bookings = %v, %v", mine, err)
		}
		if _, err := w.s.CancelBooking(ctx, seller.UserID, b.ID); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("the seller cancelled a counter sale as their own: %v", err)
		}
	})
	t.Run("complimentary: free, with a reason, which it needs", func(t *testing.T) {
		s := sale(booking.PaidComplimentary, "comp-1", "B1")
		before := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM bookings`)
		_, err := w.svc.Sell(ctx, seller, s)
		var fe *catalog.FieldError
		if !errors.As(err, &fe) || fe.Field != "reason" {
			t.Fatalf("no reason: %v", err)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM bookings`); n != before {
			t.Fatal("a refused sale booked seats")
		}
		s.Reason = "Press screening"
		b, err := w.svc.Sell(ctx, seller, s)
		if err != nil || b.AmountMinor != 0 || b.Channel != booking.Complimentary {
			t.Fatalf("complimentary = %+v, %v", b, err)
		}
	})
	t.Run("every field at fault at once, nothing sold", func(t *testing.T) {
		s := booking.CounterSale{ShowID: w.show, Seats: []string{"B2"}, PaidBy: "cheque", Email: "not an address", Key: ""}
		_, err := w.svc.Sell(ctx, seller, s)
		var fields []string
		for _, fe := range catalog.FieldErrors(err) {
			fields = append(fields, fe.Field)
		}
		if strings.Join(fields, " ") != "paid_by customer.name customer.email idempotency_key" {
			t.Fatalf("fields at fault = %v (%v)", fields, err)
		}
	})
	t.Run("a cancelled show's counter sales are refunded at the counter, not by the provider", func(t *testing.T) {
		show := pgtest.NewShow(t, w.s, w.v, 2, 2, time.Now().Add(96*time.Hour))
		b, err := w.svc.Sell(ctx, seller, booking.CounterSale{ShowID: show, Seats: []string{"A1"}, PaidBy: booking.PaidCash, Name: "Walk-in", Key: "cancel-1"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.CancelShow(ctx, w.staff[auth.StaffManager], show); err != nil {
			t.Fatal(err)
		}
		worker := &refunds.Worker{Store: w.s, Provider: refuseAll{t}, Log: slog.New(slog.DiscardHandler)}
		pgtest.WorkJobs(t, w.s, worker)
		if st := pgtest.Scalar[string](t, w.s.Pool(), `SELECT status FROM refunds WHERE booking_id = $1`, b.ID); st != "PENDING" {
			t.Fatalf("the counter sale's refund is %s, want PENDING (owed at the counter)", st)
		}
	})
	t.Run("ushers and other theatres may not sell", func(t *testing.T) {
		if _, err := w.svc.Sell(ctx, w.staff[auth.StaffUsher], sale(booking.PaidCash, "u-1", "C1")); err == nil {
			t.Fatal("an usher sold a seat")
		}
		if _, err := w.svc.Sell(ctx, w.stafer, sale(booking.PaidCash, "o-1", "C1")); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("another theatre's manager: %v", err)
		}
	})
}

// A box-office sale races 50 moviegoers holding the same seats online, all
// released together: every seat has one owner.
func TestCounterSaleRacesOnlineHolds(t *testing.T) {
	w := newDoorWorld(t)
	seller := w.staff[auth.StaffBoxOffice]
	seats := []string{"D1", "D2", "D3"}
	users := make([]string, 50)
	for i := range users {
		users[i] = pgtest.User(t, w.s)
	}
	var sold booking.Booking
	var saleErr error
	holds := make([]error, len(users))
	pgtest.Release(len(users)+1, func(i int) {
		if i == len(users) {
			sold, saleErr = w.svc.Sell(ctx, seller, booking.CounterSale{ShowID: w.show, Seats: seats,
				PaidBy: booking.PaidCard, Name: "At the desk", Key: "race"})
			return
		}
		// Each wants two of the three seats, so they overlap every way.
		pick := []string{seats[i%3], seats[(i+1)%3]}
		_, holds[i] = w.s.HoldSeats(ctx, booking.HoldRequest{UserID: users[i], ShowID: w.show, Seats: pick,
			TTL: 5 * time.Minute, Key: fmt.Sprint("race-", i)}, 10)
	})
	won := 0
	for _, err := range holds {
		var taken *booking.SeatsUnavailableError
		switch {
		case err == nil:
			won++
		case errors.As(err, &taken):
		default:
			t.Fatalf("an online hold failed otherwise: %v", err)
		}
	}
	var taken *booking.SeatsUnavailableError
	if saleErr != nil && !errors.As(saleErr, &taken) {
		t.Fatalf("the counter sale failed otherwise: %v", saleErr)
	}
	if saleErr == nil {
		won++
		if len(sold.Seats) != 3 {
			t.Fatalf("the counter sold %v", sold.Seats)
		}
	}
	// Any two of the requests share a seat: exactly one wins.
	if won != 1 {
		t.Fatalf("%d winners of three seats taken two or three at a time, want 1", won)
	}
	doubles, err := pgtest.DoubleAllocations(ctx, w.s.Pool(), w.show)
	if err != nil || len(doubles) > 0 {
		t.Fatalf("seats sold twice: %v, %v", doubles, err)
	}
	t.Logf("the counter %s; %d online holds won", map[bool]string{true: "sold", false: "lost"}[saleErr == nil], won-map[bool]int{true: 1, false: 0}[saleErr == nil])
}

// refuseAll is a payment provider no refund may reach.
type refuseAll struct{ t *testing.T }

func (p refuseAll) Refund(_ context.Context, r booking.Refund) error {
	p.t.Errorf("the provider was asked to refund %s of payment %s", r.ID, r.PaymentID)
	return errors.New("refused")
}
