package sweeper_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/sweeper"
)

// raceAtDeadline is a show of 100 seats and perBatch users, on a store whose
// clock the test moves, and a sweeper whose batches are small, so that the
// sweepers racing in one round end the round's holds in several
// transactions.
type raceAtDeadline struct {
	t       *testing.T
	store   *postgres.Store
	clock   *pgtest.Clock
	show    int64
	users   []string
	sweeper *sweeper.Sweeper
	errors  *bytes.Buffer // the sweeper's log of errors, read between rounds
}

const perBatch = 50 // holds in each round, one seat each

func newRaceAtDeadline(t *testing.T) *raceAtDeadline {
	t.Helper()
	t.Parallel()
	s := pgtest.NewStore(t, 24)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	r := &raceAtDeadline{t: t, store: s, clock: clock, errors: &bytes.Buffer{}}
	r.show = pgtest.NewShow(t, s, pgtest.NewVenue(t, s), 10, 10, clock.Now().Add(48*time.Hour))
	for range perBatch {
		r.users = append(r.users, pgtest.User(t, s))
	}
	r.sweeper = &sweeper.Sweeper{Store: s, Batch: 7,
		Log: slog.New(slog.NewTextHandler(r.errors, &slog.HandlerOptions{Level: slog.LevelError}))}
	return r
}

// seat is the seat of a round's i-th hold: A1 ... E10.
func seat(i int) string { return fmt.Sprintf("%c%d", 'A'+i/10, i%10+1) }

// round holds perBatch seats at the clock's now, all to lapse at one
// instant, sets the clock to that deadline plus offset, and releases
// together a payment for every hold and sweepers sweeping. It returns the
// holds, the payments' answers and how many holds the sweepers ended.
func (r *raceAtDeadline) round(n int, offset time.Duration, sweepers int) ([]booking.Hold, []booking.Confirmation, int) {
	t := r.t
	t.Helper()
	holds := make([]booking.Hold, perBatch)
	errs := make([]error, perBatch)
	pgtest.Release(perBatch, func(i int) {
		res, err := r.store.HoldSeats(context.Background(), booking.HoldRequest{
			UserID: r.users[i], ShowID: r.show, Seats: []string{seat(i)}, TTL: time.Minute, Key: fmt.Sprintf("round-%d", n),
		}, 10)
		holds[i], errs[i] = res.Hold, err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("round %d: hold %s: %v", n, seat(i), err)
		}
		if !holds[i].ExpiresAt.Equal(holds[0].ExpiresAt) {
			t.Fatalf("round %d: holds expire at %s and %s, want one instant", n, holds[0].ExpiresAt, holds[i].ExpiresAt)
		}
	}
	// Only what the race changes is left in the queue of seat changes.
	pgtest.Exec(t, r.store.Pool(), `DELETE FROM seat_events`)
	r.clock.Set(holds[0].ExpiresAt.Add(offset))

	answers := make([]booking.Confirmation, perBatch)
	swept := make([]int, sweepers)
	pgtest.Release(perBatch+sweepers, func(i int) {
		if i >= perBatch {
			swept[i-perBatch] = r.sweeper.Sweep(context.Background())
			return
		}
		h := holds[i]
		answers[i], errs[i] = r.store.ConfirmPayment(context.Background(), booking.Payment{
			ID: fmt.Sprintf("pay-%d-%d", n, i), HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency,
		})
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("round %d: payment for %s: %v", n, seat(i), err)
		}
	}
	if r.errors.Len() > 0 {
		t.Fatalf("round %d: the sweeper failed: %s", n, r.errors)
	}
	total := 0
	for _, n := range swept {
		total += n
	}
	return holds, answers, total
}

// ids are the holds' ids.
func ids(holds []booking.Hold) []string {
	out := make([]string, len(holds))
	for i, h := range holds {
		out[i] = h.ID
	}
	return out
}

// 1,000 payments, each racing the sweeper for its hold at exactly the
// hold's expires_at, in 20 rounds of 50 released together with four
// sweepers. A hold is valid while now < expires_at, so at expires_at it has
// lapsed, whoever gets there first: every payment is REFUND_REQUIRED
// (hold_expired) with its refund, none books, every hold ends EXPIRED once
// (by the sweeper or by its payment), every seat is released exactly once
// and is free, and the invariants hold after every round.
func TestPaymentRacesTheSweeperAtTheDeadline(t *testing.T) {
	const rounds, sweepers = 20, 4
	r := newRaceAtDeadline(t)
	byPayment, bySweeper := 0, 0
	for n := range rounds {
		holds, answers, swept := r.round(n, 0, sweepers)
		deadline := holds[0].ExpiresAt
		for i, c := range answers {
			if c.Outcome != booking.OutcomeRefundRequired || c.Reason != booking.ReasonHoldExpired || c.BookingID != "" {
				t.Fatalf("round %d: payment for %s at its deadline = %+v, want refund required (hold_expired)", n, seat(i), c)
			}
		}
		ids := ids(holds)
		pool := r.store.Pool()
		if got := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM holds WHERE id = ANY ($1) AND state = 'EXPIRED' AND ended_at = $2`, ids, deadline); got != perBatch {
			t.Fatalf("round %d: %d of %d holds EXPIRED at their deadline", n, got, perBatch)
		}
		if got := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM bookings WHERE hold_id = ANY ($1)`, ids); got != 0 {
			t.Fatalf("round %d: %d bookings made at the deadline", n, got)
		}
		// One stored outcome per payment, refunded in full.
		if got := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM payments p JOIN refunds r ON r.payment_id = p.payment_id
			 WHERE p.hold_id = ANY ($1) AND p.outcome = 'REFUND_REQUIRED' AND p.booking_id IS NULL
			   AND p.reason = 'hold_expired' AND r.amount_minor = p.amount_minor`, ids); got != perBatch {
			t.Fatalf("round %d: %d payments refunded in full, want %d", n, got, perBatch)
		}
		if got := pgtest.Scalar[int](t, pool, `SELECT count(*) FROM payments WHERE hold_id = ANY ($1)`, ids); got != perBatch {
			t.Fatalf("round %d: %d payments stored, want %d", n, got, perBatch)
		}
		// Each seat released once, by one of the two, and free.
		if got := pgtest.Scalar[int](t, pool, `
			SELECT count(*) FROM show_seats WHERE show_id = $1 AND status = 'AVAILABLE' AND hold_id IS NULL`, r.show); got != 100 {
			t.Fatalf("round %d: %d of 100 seats free", n, got)
		}
		if got := pgtest.Scalar[string](t, pool, `
			SELECT format('%s seats changed, %s of them other than once: %s', count(*), count(*) FILTER (WHERE n <> 1),
			              coalesce(string_agg(s || ' ' || n || ' times', ', ') FILTER (WHERE n <> 1), 'none'))
			  FROM (SELECT s, count(*) AS n FROM seat_events, unnest(seat_ids) s GROUP BY s) c`); got != fmt.Sprintf("%d seats changed, 0 of them other than once: none", perBatch) {
			t.Fatalf("round %d: in the race %s; want each seat released once", n, got)
		}
		if swept > perBatch {
			t.Fatalf("round %d: the sweepers ended %d of %d holds", n, swept, perBatch)
		}
		bySweeper += swept
		byPayment += perBatch - swept
		pgtest.CheckInvariants(t, r.store)
	}
	t.Logf("%d races at the deadline: the sweeper ended %d holds, the late payment %d", rounds*perBatch, bySweeper, byPayment)
}

// The other side of the same instant: one microsecond before expires_at
// the hold is valid, so every payment books, and the sweepers racing it
// leave the hold and its seat alone.
func TestPaymentRacesTheSweeperJustBeforeTheDeadline(t *testing.T) {
	const rounds, sweepers = 2, 4
	r := newRaceAtDeadline(t)
	for n := range rounds {
		holds, answers, swept := r.round(n, -time.Microsecond, sweepers)
		for i, c := range answers {
			if c.Outcome != booking.OutcomeBooked || c.BookingID == "" {
				t.Fatalf("round %d: payment for %s just before its deadline = %+v, want BOOKED", n, seat(i), c)
			}
		}
		if swept != 0 {
			t.Fatalf("round %d: the sweepers ended %d holds before their deadline", n, swept)
		}
		ids := ids(holds)
		if got := pgtest.Scalar[int](t, r.store.Pool(), `
			SELECT count(*) FROM show_seats ss JOIN bookings b ON b.hold_id = ss.hold_id
			 WHERE ss.hold_id = ANY ($1) AND ss.status = 'BOOKED' AND b.status = 'CONFIRMED'`, ids); got != perBatch {
			t.Fatalf("round %d: %d of %d seats booked", n, got, perBatch)
		}
		pgtest.CheckInvariants(t, r.store)
		// Free the seats for the next round, as a moviegoer cancelling would.
		for i, c := range answers {
			if _, err := r.store.CancelBooking(context.Background(), r.users[i], c.BookingID); err != nil {
				t.Fatal(err)
			}
		}
	}
}
