package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// A database as a build before e-mail and refund jobs left it (000019:
// side effects in the outbox, refunds owed without a job) is carried over:
// what the outbox held becomes mails recorded as never sent, for staff to
// resend, and the outbox goes; every refund still owed gets its job, once,
// however often the app starts.
func TestOutboxAndRefundsAreCarriedOver(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	url := s.Pool().Config().ConnString()
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 4, time.Now().Add(72*time.Hour))
	book := func(user, seat, pay string) string {
		res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: []string{seat}, TTL: time.Minute, Key: pay}, 10)
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.ConfirmPayment(ctx, booking.Payment{ID: pay, HoldRef: res.Hold.ID, AmountMinor: res.Hold.AmountMinor, Currency: res.Hold.Currency})
		if err != nil {
			t.Fatal(err)
		}
		return c.BookingID
	}
	kept, cancelled := pgtest.User(t, s), pgtest.User(t, s)
	keptID := book(kept, "A1", "pay-kept")
	cancelledID := book(cancelled, "A2", "pay-cancelled")
	if _, err := s.CancelBooking(ctx, cancelled, cancelledID); err != nil {
		t.Fatal(err)
	}

	// Back to before: no mails, no jobs, an outbox with what was owed.
	if err := migrator(t, url).Migrate(19); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, s.Pool(), `DELETE FROM river_job`)
	pgtest.Exec(t, s.Pool(), `
		INSERT INTO outbox (topic, payload) VALUES
		  ('booking.confirmed', jsonb_build_object('booking_id', $1::text, 'user_id', $3::text)),
		  ('booking.confirmed', jsonb_build_object('booking_id', $2::text, 'user_id', $4::text)),
		  ('booking.cancelled', jsonb_build_object('booking_id', $2::text, 'refund_minor', 250))`,
		keptID, cancelledID, kept, cancelled)

	for range 2 {
		if err := postgres.Migrate(ctx, url); err != nil {
			t.Fatal(err)
		}
	}
	if pgtest.Scalar[bool](t, s.Pool(), `SELECT to_regclass('outbox') IS NOT NULL`) {
		t.Fatal("the outbox is still there")
	}
	got := pgtest.Scalar[string](t, s.Pool(), `
		SELECT string_agg(kind || ':' || status || ':' || (booking_id = $1)::text, ',' ORDER BY kind, booking_id = $1) FROM mails`, keptID)
	if got != "booking_cancelled:NOT_SENT:false,ticket:NOT_SENT:false,ticket:NOT_SENT:true" {
		t.Fatalf("mails after the carry-over: %s", got)
	}
	if n := pgtest.Scalar[int64](t, s.Pool(), `SELECT count(*) FROM river_job WHERE kind = 'mail'`); n != 0 {
		t.Fatalf("%d mail jobs: mail owed before e-mail existed is recorded, not sent", n)
	}
	refund := pgtest.Scalar[string](t, s.Pool(), `SELECT id::text FROM refunds WHERE booking_id = $1`, cancelledID)
	if n := pgtest.Scalar[int64](t, s.Pool(), `SELECT count(*) FROM river_job WHERE kind = 'refund' AND args->>'refund_id' = $1`, refund); n != 1 {
		t.Fatalf("%d jobs for the refund owed, want 1", n)
	}
}
