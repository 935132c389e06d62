package admin_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/mail"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// bookAs books seats of show for user, paying the hold's price.
func (w *world) bookAs(user string, show int64, seats ...string) booking.Booking {
	w.t.Helper()
	res, err := w.store.HoldSeats(w.t.Context(), booking.HoldRequest{UserID: user, ShowID: show, Seats: seats,
		TTL: 5 * time.Minute, Key: fmt.Sprintf("key-%d", time.Now().UnixNano())}, 10)
	if err != nil {
		w.t.Fatalf("hold %v: %v", seats, err)
	}
	if c := w.pay(res.Hold); c.Outcome != booking.OutcomeBooked {
		w.t.Fatalf("pay %v: %+v", seats, c)
	}
	b, err := w.store.Bookings(w.t.Context(), user)
	if err != nil || len(b) == 0 {
		w.t.Fatalf("bookings of %s: %v, %v", user, b, err)
	}
	return b[0]
}

// moveState is what a move changes, to compare before and after a
// refused one.
func (w *world) moveState(show int64) string {
	w.t.Helper()
	return fmt.Sprintf("%s starts=%s moves=%d moved=%d mails=%d jobs=%d events=%d",
		w.shows(), w.scalarTime(`SELECT starts_at FROM shows WHERE id = $1`, show).Format(time.RFC3339),
		w.count(`SELECT count(*) FROM show_reschedules`), w.count(`SELECT count(*) FROM booking_moves`),
		w.count(`SELECT count(*) FROM mails`), w.count(`SELECT count(*) FROM river_job WHERE kind = 'mail'`),
		w.count(`SELECT count(*) FROM seat_events`))
}

func TestRescheduleShow(t *testing.T) {
	t.Run("the show moves with its bookings, one mail per person, audited", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		sh := w.create(epoch.Add(72 * time.Hour))
		alice, bob := pgtest.User(t, w.store), pgtest.User(t, w.store)
		w.bookAs(alice, sh.ID, "A1")
		w.bookAs(alice, sh.ID, "A2")
		w.bookAs(bob, sh.ID, "B1")
		counter, err := w.svc.Sell(t.Context(), w.platform, booking.CounterSale{ShowID: sh.ID, Seats: []string{"C1"},
			PaidBy: booking.PaidCash, Name: "Walk-in", Email: "walkin@example.com", Key: "counter-1"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Sell(t.Context(), w.platform, booking.CounterSale{ShowID: sh.ID, Seats: []string{"C2"},
			PaidBy: booking.PaidCash, Name: "No address", Key: "counter-2"}); err != nil {
			t.Fatal(err)
		}
		w.hold(sh.ID, "B4") // a live hold keeps its seats through the move
		manager := w.admin(auth.RoleTheatreAdmin, w.theatre)
		preview, err := w.svc.PreviewMove(t.Context(), manager, sh.ID)
		if err != nil || preview.ShowAudience != (booking.ShowAudience{Bookings: 5, People: 3, Unreachable: 1}) || preview.Length != 115*time.Minute {
			t.Fatalf("preview = %+v, %v", preview, err)
		}

		to := epoch.Add(96 * time.Hour)
		moved, err := w.svc.RescheduleShow(t.Context(), manager, sh.ID, to.In(time.FixedZone("IST", 19800)))
		if err != nil {
			t.Fatal(err)
		}
		if moved.ShowID != sh.ID || moved.Show.ID != sh.ID || moved.BookingsMoved != 5 || moved.MoviegoersTold != 3 ||
			!moved.FromStartsAt.Equal(sh.StartsAt) || !moved.StartsAt.Equal(to) || !moved.Show.StartsAt.Equal(to) ||
			!moved.Show.EndsAt.Equal(to.Add(115*time.Minute)) || moved.Show.Seats.Booked != 5 || moved.Show.Seats.Held != 1 {
			t.Fatalf("moved = %+v", moved)
		}
		if n := w.count(`SELECT count(*) FROM shows`); n != 1 {
			t.Fatalf("%d shows, want the one moved", n)
		}
		// One mail to each person: alice once for two bookings, bob, and
		// the counter customer who gave an address.
		got := map[string]int{}
		rows, err := w.store.Pool().Query(t.Context(), `SELECT recipient FROM mails WHERE kind = 'show_rescheduled'`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var to string
			if err := rows.Scan(&to); err != nil {
				t.Fatal(err)
			}
			got[to]++
		}
		email := func(u string) string { return w.scalarString(`SELECT email FROM users WHERE id = $1`, u) }
		if len(got) != 3 || got[email(alice)] != 1 || got[email(bob)] != 1 || got["walkin@example.com"] != 1 {
			t.Fatalf("mails of the move: %v", got)
		}
		if n := w.count(`SELECT count(*) FROM river_job WHERE kind = 'mail' AND args->>'mail_id' IN
		                   (SELECT id::text FROM mails WHERE kind = 'show_rescheduled')`); n != 3 {
			t.Fatalf("%d mail jobs for the move, want 3", n)
		}
		// The bookings read the move; the live map is told to read the show again.
		b, err := w.store.StaffBooking(t.Context(), counter.ID)
		if err != nil || b.Moved == nil || !b.Moved.From.Equal(sh.StartsAt) || !b.Moved.To.Equal(to) || !b.StartsAt.Equal(to) {
			t.Fatalf("counter booking after the move = %+v, %v", b, err)
		}
		// Staff see the mail among the counter booking's.
		h, err := w.svc.Booking(t.Context(), manager, counter.ID)
		if err != nil || len(h.Mails) != 2 || h.Mails[0].Kind != mail.Ticket || h.Mails[1].Kind != mail.ShowRescheduled ||
			h.Mails[1].Recipient != "walkin@example.com" {
			t.Fatalf("the counter booking's mails = %+v, %v", h.Mails, err)
		}
		if n := w.count(`SELECT count(*) FROM seat_events WHERE show_id = $1 AND seat_ids = '{}'`, sh.ID); n != 1 {
			t.Fatalf("%d whole-show announcements, want 1", n)
		}
		if n := w.count(`
			SELECT count(*) FROM audit_log
			 WHERE action = 'show.reschedule' AND object = $1 AND actor_id = $2 AND theatre_id = $3
			   AND (before->>'starts_at')::timestamptz = $4 AND (after->>'starts_at')::timestamptz = $5
			   AND (after->>'bookings_moved')::int = 5 AND (after->>'moviegoers_told')::int = 3`,
			fmt.Sprintf("show %d", sh.ID), manager.UserID, w.theatre, sh.StartsAt, to); n != 1 {
			t.Fatalf("%d audit entries for the move, want 1", n)
		}

		// Moved again: told again, with a mail of its own.
		again, err := w.svc.RescheduleShow(t.Context(), manager, sh.ID, to.Add(3*time.Hour))
		if err != nil || again.MoviegoersTold != 3 || again.ID == moved.ID {
			t.Fatalf("second move = %+v, %v", again, err)
		}
		if n := w.count(`SELECT count(*) FROM mails WHERE kind = 'show_rescheduled'`); n != 6 {
			t.Fatalf("%d mails after two moves, want 6", n)
		}
	})

	t.Run("refused moves change nothing", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		sh := w.create(epoch.Add(72 * time.Hour))
		next := w.create(epoch.Add(96 * time.Hour))
		w.bookAs(pgtest.User(t, w.store), sh.ID, "A1")
		before := w.moveState(sh.ID)
		refused := func(name string, at time.Time, want error) {
			t.Helper()
			if _, err := w.svc.RescheduleShow(t.Context(), w.platform, sh.ID, at); !errors.Is(err, want) {
				t.Fatalf("%s: err = %v, want %v", name, err, want)
			}
			if after := w.moveState(sh.ID); after != before {
				t.Fatalf("%s changed the database: %s -> %s", name, before, after)
			}
		}
		// 100 minutes and 15 of cleaning: starting 114 minutes before the
		// next show still runs into it.
		refused("overlapping the next show", next.StartsAt.Add(-114*time.Minute), catalog.ErrShowOverlap)
		refused("overlapping from within", next.StartsAt.Add(time.Hour), catalog.ErrShowOverlap)
		refused("in the past", epoch.Add(-time.Minute), catalog.ErrShowInPast)
		refused("now", epoch, catalog.ErrShowInPast)
		refused("the same time", sh.StartsAt, catalog.ErrSameStart)
		refused("more than two years ahead", epoch.Add(catalog.MaxScheduleAhead+time.Hour), catalog.ErrShowTooFarAhead)
		_, err := w.svc.RescheduleShow(t.Context(), w.platform, sh.ID, next.StartsAt.Add(-114*time.Minute))
		var overlap *catalog.ScheduleOverlapError
		if !errors.As(err, &overlap) || overlap.ConflictingShowID != next.ID || !overlap.ConflictingStartsAt.Equal(next.StartsAt) {
			t.Fatalf("overlap = %v, want one naming show %d", err, next.ID)
		}
		// Its own time is no obstacle: an hour later overlaps only itself.
		if _, err := w.svc.RescheduleShow(t.Context(), w.platform, sh.ID, sh.StartsAt.Add(time.Hour)); err != nil {
			t.Fatalf("an hour later: %v", err)
		}
		if _, err := w.svc.CancelShow(t.Context(), w.platform, next.ID); err != nil {
			t.Fatal(err)
		}
		// Where a cancelled show was is free.
		if _, err := w.svc.RescheduleShow(t.Context(), w.platform, sh.ID, next.StartsAt); err != nil {
			t.Fatalf("onto a cancelled show's time: %v", err)
		}
		if _, err := w.svc.RescheduleShow(t.Context(), w.platform, next.ID, epoch.Add(200*time.Hour)); !errors.Is(err, catalog.ErrShowCancelled) {
			t.Fatalf("a cancelled show: err = %v", err)
		}
		before = w.moveState(sh.ID)
		w.clock.Set(next.StartsAt) // the moved show starts now
		refused("a show that has started", epoch.Add(300*time.Hour), catalog.ErrShowStarted)
	})

	t.Run("who may move a show", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		sh := w.create(epoch.Add(72 * time.Hour))
		staff := func(theatre int64, role auth.StaffRole) admin.Actor {
			id := pgtest.User(t, w.store)
			pgtest.Exec(t, w.store.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, id)
			pgtest.Exec(t, w.store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, $3)`, theatre, id, role)
			return admin.Actor{UserID: id, Role: auth.RoleTheatreAdmin}
		}
		before := w.moveState(sh.ID)
		at := epoch.Add(100 * time.Hour)
		for _, role := range []auth.StaffRole{auth.StaffBoxOffice, auth.StaffUsher} {
			if _, err := w.svc.RescheduleShow(t.Context(), staff(w.theatre, role), sh.ID, at); !errors.Is(err, admin.ErrRole) {
				t.Errorf("%s: err = %v, want ErrRole", role, err)
			}
			if _, err := w.svc.PreviewMove(t.Context(), staff(w.theatre, role), sh.ID); !errors.Is(err, admin.ErrRole) {
				t.Errorf("%s sees who a move reaches: %v", role, err)
			}
		}
		elsewhere := staff(w.newTheatre("Elsewhere", "Asia/Kolkata"), auth.StaffManager)
		if _, err := w.svc.RescheduleShow(t.Context(), elsewhere, sh.ID, at); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("another theatre's manager: err = %v, want not found", err)
		}
		if _, err := w.svc.RescheduleShow(t.Context(), w.platform, 99999, at); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("no such show: err = %v", err)
		}
		if after := w.moveState(sh.ID); after != before {
			t.Fatalf("refused callers changed the database: %s -> %s", before, after)
		}
		if _, err := w.svc.RescheduleShow(t.Context(), staff(w.theatre, auth.StaffManager), sh.ID, at); err != nil {
			t.Fatalf("its manager: %v", err)
		}
	})
}

// TestDecliningAMovedShow: a booking made before the move may be cancelled
// with everything back until the show starts, even where the theatre's
// policy gives nothing; one made after follows the policy. What the quote
// says is what the cancellation refunds.
func TestDecliningAMovedShow(t *testing.T) {
	w := newWorld(t, "Asia/Kolkata")
	sh := w.create(epoch.Add(72 * time.Hour))
	early, second, late := pgtest.User(t, w.store), pgtest.User(t, w.store), pgtest.User(t, w.store)
	before := w.bookAs(early, sh.ID, "A1", "A2")
	alsoBefore := w.bookAs(second, sh.ID, "C1")
	to := epoch.Add(48 * time.Hour)
	if _, err := w.svc.RescheduleShow(t.Context(), w.platform, sh.ID, to); err != nil {
		t.Fatal(err)
	}
	after := w.bookAs(late, sh.ID, "B1")

	quote := func(user string, b booking.Booking) booking.RefundQuote {
		t.Helper()
		q, err := w.store.QuoteCancellation(t.Context(), user, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	cancel := func(user string, b booking.Booking) (int64, error) {
		t.Helper()
		c, err := w.store.CancelBooking(t.Context(), user, b.ID)
		if err != nil {
			return 0, err
		}
		return c.Refund.AmountMinor, nil
	}

	// Three hours before: the default policy gives back half.
	w.clock.Set(to.Add(-3 * time.Hour))
	if q := quote(late, after); !q.Allowed || q.AmountMinor != after.AmountMinor/2 {
		t.Fatalf("booked after the move, quote = %+v, want half of %d", q, after.AmountMinor)
	}
	if got, err := cancel(late, after); err != nil || got != after.AmountMinor/2 {
		t.Fatalf("booked after the move: refund %d, %v, want %d", got, err, after.AmountMinor/2)
	}
	// An hour before, inside the policy's window of no refund: all back.
	w.clock.Set(to.Add(-time.Hour))
	q := quote(early, before)
	if !q.Allowed || q.AmountMinor != before.AmountMinor || q.Policy.Tiers[0] != booking.MovedPolicy.Tiers[0] {
		t.Fatalf("booked before the move, quote = %+v, want all of %d", q, before.AmountMinor)
	}
	if got, err := cancel(early, before); err != nil || got != before.AmountMinor {
		t.Fatalf("booked before the move: refund %d, %v, want %d", got, err, before.AmountMinor)
	}
	// From the new start, cancelling is closed, as for any booking.
	w.clock.Set(to)
	if q := quote(second, alsoBefore); q.Allowed {
		t.Fatalf("at the start, quote = %+v, want closed", q)
	}
	if _, err := cancel(second, alsoBefore); !errors.Is(err, booking.ErrCancellationClosed) {
		t.Fatalf("at the start: err = %v, want cancellation closed", err)
	}
}
