package postgres_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// entry is an audit entry by a fresh account for w's show.
func (w *world) entry(action string) audit.Entry {
	return audit.Entry{ActorID: w.user(), TheatreID: w.venue.TheatreID, Action: action, Object: "show"}
}

func (w *world) block(seats ...string) ([]string, error) {
	return w.store.BlockSeats(ctx, w.show, seats, w.entry("show.block_seats"))
}

func (w *world) unblock(seats ...string) ([]string, error) {
	return w.store.UnblockSeats(ctx, w.show, seats, w.entry("show.unblock_seats"))
}

func (w *world) cancelShow() booking.ShowCancellation {
	w.t.Helper()
	res, err := w.store.CancelShow(ctx, w.show, w.entry("show.cancel"))
	if err != nil {
		w.t.Fatalf("cancel show: %v", err)
	}
	return res
}

func (w *world) wantSeat(id string, want booking.SeatStatus) {
	w.t.Helper()
	if got, _ := w.seat(id); got != want {
		w.t.Fatalf("seat %s = %s, want %s", id, got, want)
	}
}

func TestBlockSeats(t *testing.T) {
	t.Run("available seats become blocked, announced and audited", func(t *testing.T) {
		w := newWorld(t)
		if err := pgtest.ClearSeatEvents(ctx, w.store.Pool()); err != nil {
			t.Fatal(err)
		}
		changed, err := w.block("B2", "A1")
		if err != nil || !slices.Equal(changed, []string{"A1", "B2"}) {
			t.Fatalf("block = %v, %v; want [A1 B2]", changed, err)
		}
		w.wantSeat("A1", booking.SeatBlocked)
		if st := w.mapStatus("B2"); st != booking.SeatBlocked {
			t.Fatalf("seat map B2 = %s, want BLOCKED", st)
		}
		if n := count(t, w.store, `SELECT count(*) FROM seat_events WHERE show_id = $1 AND seat_ids @> ARRAY['A1', 'B2']`, w.show); n != 1 {
			t.Fatalf("%d seat events naming A1 and B2, want 1", n)
		}
		if n := count(t, w.store, `SELECT count(*) FROM audit_log WHERE action = 'show.block_seats' AND after ? 'A1' AND after ? 'B2'`); n != 1 {
			t.Fatalf("%d audit entries for the block, want 1", n)
		}
	})
	t.Run("a blocked seat cannot be held", func(t *testing.T) {
		w := newWorld(t)
		if _, err := w.block("A2"); err != nil {
			t.Fatal(err)
		}
		_, err := w.tryHold(w.user(), "A1", "A2")
		var taken *booking.SeatsUnavailableError
		if !errors.As(err, &taken) || !slices.Equal(taken.Seats, []string{"A2"}) {
			t.Fatalf("hold over a blocked seat = %v, want seats unavailable [A2]", err)
		}
		w.wantSeat("A1", booking.SeatAvailable)
	})
	t.Run("a seat held by a live hold or sold refuses the whole block", func(t *testing.T) {
		w := newWorld(t)
		held := w.hold(w.user(), "A1")
		sold := w.hold(w.user(), "A2")
		if _, err := w.pay(sold, "pay-1"); err != nil {
			t.Fatal(err)
		}
		before := count(t, w.store, `SELECT count(*) FROM audit_log`)
		_, err := w.block("A1", "A2", "A3")
		var taken *booking.SeatsUnavailableError
		if !errors.As(err, &taken) || !slices.Equal(taken.Seats, []string{"A1", "A2"}) {
			t.Fatalf("block = %v, want seats unavailable [A1 A2]", err)
		}
		w.wantSeat("A1", booking.SeatHeld)
		w.wantSeat("A2", booking.SeatBooked)
		w.wantSeat("A3", booking.SeatAvailable)
		if _, owner := w.seat("A1"); owner != held.ID {
			t.Fatalf("A1 owner = %s, want %s", owner, held.ID)
		}
		if after := count(t, w.store, `SELECT count(*) FROM audit_log`); after != before {
			t.Fatalf("audit entries %d -> %d for a refused block", before, after)
		}
	})
	t.Run("a lapsed hold's seat is blocked; the hold's other seats stay its own until it ends", func(t *testing.T) {
		w := newWorld(t)
		u := w.user()
		h := w.hold(u, "B1", "B2")
		w.clock.Advance(ttl)
		if _, err := w.block("B1"); err != nil {
			t.Fatalf("block a lapsed hold's seat: %v", err)
		}
		w.wantSeat("B1", booking.SeatBlocked)
		if _, owner := w.seat("B2"); owner != h.ID {
			t.Fatalf("B2 owner = %q, want the lapsed hold %s", owner, h.ID)
		}
		// Its late payment is refunded and releases only the seat it still owns.
		c, err := w.pay(h, "pay-late")
		if err != nil || c.Outcome != booking.OutcomeRefundRequired {
			t.Fatalf("late payment = %+v, %v; want REFUND_REQUIRED", c, err)
		}
		w.wantSeat("B1", booking.SeatBlocked)
		w.wantSeat("B2", booking.SeatAvailable)
	})
	t.Run("seats the show lacks are refused, naming them", func(t *testing.T) {
		w := newWorld(t)
		_, err := w.block("A1", "Z9")
		var unknown *booking.UnknownSeatsError
		if !errors.As(err, &unknown) || !slices.Equal(unknown.Seats, []string{"Z9"}) {
			t.Fatalf("block = %v, want unknown seats [Z9]", err)
		}
		w.wantSeat("A1", booking.SeatAvailable)
	})
	t.Run("blocking a blocked seat again changes nothing", func(t *testing.T) {
		w := newWorld(t)
		if _, err := w.block("A1"); err != nil {
			t.Fatal(err)
		}
		changed, err := w.block("A1")
		if err != nil || len(changed) != 0 {
			t.Fatalf("second block = %v, %v; want nothing changed", changed, err)
		}
		if n := count(t, w.store, `SELECT count(*) FROM audit_log WHERE action = 'show.block_seats'`); n != 1 {
			t.Fatalf("%d audit entries, want 1", n)
		}
	})
	t.Run("unblocking frees blocked seats and leaves others alone", func(t *testing.T) {
		w := newWorld(t)
		if _, err := w.block("A1", "A2"); err != nil {
			t.Fatal(err)
		}
		w.hold(w.user(), "A3")
		changed, err := w.unblock("A1", "A3", "A4")
		if err != nil || !slices.Equal(changed, []string{"A1"}) {
			t.Fatalf("unblock = %v, %v; want [A1]", changed, err)
		}
		w.wantSeat("A1", booking.SeatAvailable)
		w.wantSeat("A2", booking.SeatBlocked)
		w.wantSeat("A3", booking.SeatHeld)
		w.wantSeat("A4", booking.SeatAvailable)
		w.hold(w.user(), "A1") // on sale again
	})
	t.Run("a cancelled show's seats can be neither blocked nor unblocked", func(t *testing.T) {
		w := newWorld(t)
		w.cancelShow()
		if _, err := w.block("A1"); !errors.Is(err, catalog.ErrShowCancelled) {
			t.Fatalf("block = %v, want ErrShowCancelled", err)
		}
		if _, err := w.unblock("A1"); !errors.Is(err, catalog.ErrShowCancelled) {
			t.Fatalf("unblock = %v, want ErrShowCancelled", err)
		}
	})
	t.Run("an unknown show is not found", func(t *testing.T) {
		w := newWorld(t)
		if _, err := w.store.BlockSeats(ctx, w.show+1000, []string{"A1"}, w.entry("show.block_seats")); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("block = %v, want ErrNotFound", err)
		}
	})
}

func TestShowOccupancy(t *testing.T) {
	w := newWorld(t)
	booked := w.hold(w.user(), "C1", "C2") // PREMIUM, 2 x 45000
	if _, err := w.pay(booked, "pay-1"); err != nil {
		t.Fatal(err)
	}
	late := w.hold(w.user(), "A1") // will lapse, and be paid too late
	w.clock.Advance(ttl)
	w.hold(w.user(), "A2", "A3") // live
	if _, err := w.block("B4"); err != nil {
		t.Fatal(err)
	}
	if c, err := w.pay(late, "pay-late"); err != nil || c.Outcome != booking.OutcomeRefundRequired {
		t.Fatalf("late payment = %+v, %v", c, err)
	}
	pgtest.Exec(t, w.store.Pool(), `
		INSERT INTO payments (payment_id, hold_ref, hold_id, user_id, amount_minor, currency, outcome, reason, received_at)
		SELECT 'pay-paid', id::text, id, user_id, amount_minor, currency, 'REFUND_REQUIRED', 'hold_expired', now() FROM holds WHERE id = $1`, late.ID)
	pgtest.Exec(t, w.store.Pool(), `
		INSERT INTO refunds (payment_id, amount_minor, currency, reason, status, created_at, updated_at)
		VALUES ('pay-paid', 25000, 'INR', 'hold_expired', 'SUCCEEDED', now(), now())`)

	o, err := w.store.ShowOccupancy(ctx, w.show)
	if err != nil {
		t.Fatal(err)
	}
	want := booking.Occupancy{
		ShowID: w.show, Status: "SCHEDULED", StartsAt: o.StartsAt, MovieTitle: "The Last Algorithm", Currency: "INR",
		Seats:   booking.SeatTally{Available: 12 - 2 - 2 - 1, Held: 2, Booked: 2, Blocked: 1},
		Revenue: money.Exact(90000), RefundsOwed: money.Exact(25000), RefundsPaid: money.Exact(25000),
	}
	if o != want {
		t.Fatalf("occupancy = %+v\nwant        %+v", o, want)
	}
	if !o.StartsAt.Equal(w.start.Add(48 * time.Hour)) {
		t.Fatalf("starts at %v, want %v", o.StartsAt, w.start.Add(48*time.Hour))
	}
	if _, err := w.store.ShowOccupancy(ctx, w.show+1000); !errors.Is(err, booking.ErrNotFound) {
		t.Fatalf("unknown show: %v, want ErrNotFound", err)
	}
}

func TestCancelShow(t *testing.T) {
	t.Run("holds end, bookings are refunded in full, seats return, and it is audited", func(t *testing.T) {
		w := newWorld(t)
		buyer := w.user()
		sold := w.hold(buyer, "C1", "C2")
		c, err := w.pay(sold, "pay-1")
		if err != nil {
			t.Fatal(err)
		}
		live := w.hold(w.user(), "A1")
		if _, err := w.block("B1"); err != nil {
			t.Fatal(err)
		}
		res := w.cancelShow()
		if res != (booking.ShowCancellation{ShowID: w.show, HoldsReleased: 1, BookingsRefunded: 1}) {
			t.Fatalf("cancel = %+v", res)
		}
		b, err := w.store.Booking(ctx, buyer, c.BookingID)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != booking.BookingCancelled || b.CancelledBy != booking.CancelledByTheatre || b.Refund == nil ||
			b.Refund.AmountMinor != 90000 || b.Refund.Status != booking.RefundPending || b.Refund.Reason != "show_cancelled" {
			t.Fatalf("booking = %+v refund %+v", b, b.Refund)
		}
		if h, _ := w.store.Hold(ctx, "", live.ID); h.State == booking.HoldHeld {
			t.Fatalf("live hold still HELD")
		}
		if n := count(t, w.store, `SELECT count(*) FROM holds WHERE id = $1 AND state = 'CANCELLED'`, live.ID); n != 1 {
			t.Fatalf("live hold not CANCELLED")
		}
		for _, id := range []string{"A1", "C1", "C2"} {
			w.wantSeat(id, booking.SeatAvailable)
		}
		w.wantSeat("B1", booking.SeatBlocked)
		if n := count(t, w.store, `SELECT count(*) FROM shows WHERE id = $1 AND status = 'CANCELLED' AND cancelled_at IS NOT NULL`, w.show); n != 1 {
			t.Fatal("show not CANCELLED")
		}
		if n := count(t, w.store, `SELECT count(*) FROM audit_log WHERE action = 'show.cancel' AND (after->>'bookings_refunded')::int = 1`); n != 1 {
			t.Fatalf("%d audit entries for the cancellation, want 1", n)
		}
		o, err := w.store.ShowOccupancy(ctx, w.show)
		if err != nil || o.Status != "CANCELLED" || o.Revenue != money.Exact(0) || o.RefundsOwed != money.Exact(90000) {
			t.Fatalf("occupancy after = %+v, %v", o, err)
		}
	})
	t.Run("cancelling again answers the same and changes nothing", func(t *testing.T) {
		w := newWorld(t)
		if _, err := w.pay(w.hold(w.user(), "A1"), "pay-1"); err != nil {
			t.Fatal(err)
		}
		w.hold(w.user(), "A2")
		first := w.cancelShow()
		again := w.cancelShow()
		if again != first || first.BookingsRefunded != 1 || first.HoldsReleased != 1 {
			t.Fatalf("again = %+v, first = %+v", again, first)
		}
		if n := count(t, w.store, `SELECT count(*) FROM refunds`); n != 1 {
			t.Fatalf("%d refunds, want 1", n)
		}
		if n := count(t, w.store, `SELECT count(*) FROM audit_log WHERE action = 'show.cancel'`); n != 1 {
			t.Fatalf("%d audit entries, want 1", n)
		}
	})
	t.Run("a payment after the cancellation is refunded", func(t *testing.T) {
		w := newWorld(t)
		h := w.hold(w.user(), "A1")
		w.cancelShow()
		c, err := w.pay(h, "pay-after")
		if err != nil || c.Outcome != booking.OutcomeRefundRequired || c.Reason != booking.ReasonHoldCancelled {
			t.Fatalf("payment after the cancel = %+v, %v; want REFUND_REQUIRED (hold cancelled)", c, err)
		}
		if n := count(t, w.store, `SELECT count(*) FROM refunds WHERE payment_id = 'pay-after' AND amount_minor = $1`, h.AmountMinor); n != 1 {
			t.Fatal("no full refund for the late payment")
		}
		w.wantSeat("A1", booking.SeatAvailable)
	})
	t.Run("a cancelled show cannot be held", func(t *testing.T) {
		w := newWorld(t)
		w.cancelShow()
		if _, err := w.tryHold(w.user(), "A1"); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("hold = %v, want ErrNotFound", err)
		}
	})
	t.Run("an unknown show is not found", func(t *testing.T) {
		w := newWorld(t)
		if _, err := w.store.CancelShow(ctx, w.show+1000, w.entry("show.cancel")); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("cancel = %v, want ErrNotFound", err)
		}
	})
	t.Run("a hold waiting for the seats while the show is cancelled gets nothing", func(t *testing.T) {
		w := newWorld(t)
		w.store.LockTimeout = 10 * time.Second
		// A cancellation in progress: every seat locked, the show marked
		// cancelled, not yet committed.
		tx, err := w.store.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `SELECT 1 FROM show_seats WHERE show_id = $1 ORDER BY seat_id FOR UPDATE`, w.show); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `UPDATE shows SET status = 'CANCELLED', cancelled_at = now() WHERE id = $1`, w.show); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		user := w.user()
		go func() {
			_, err := w.tryHold(user, "A1")
			done <- err
		}()
		// The hold has passed its lock-free checks and waits for A1.
		deadline := time.Now().Add(10 * time.Second)
		for count(t, w.store, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%hold_seats%'`) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the hold never waited for the seat lock")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("hold = %v, want ErrNotFound (the show was cancelled while it waited)", err)
		}
		w.wantSeat("A1", booking.SeatAvailable)
	})
}
