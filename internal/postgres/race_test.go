package postgres_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// raceWorld is a 10x10 show with a pool big enough for real contention.
func raceWorld(t *testing.T, users int) (*postgres.Store, int64, []string) {
	t.Helper()
	t.Parallel()
	s := pgtest.NewStore(t, 32)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 10, 10, time.Now().Add(48*time.Hour))
	ids := make([]string, users)
	for i := range ids {
		ids[i] = pgtest.User(t, s)
	}
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	return s, show, ids
}

// 500 customers released together fight for the same last seats, round
// after round: each seat has exactly one winner, every loser is told which
// seats were taken, and nothing else goes wrong.
func TestRaceForTheLastSeats(t *testing.T) {
	const clients, rounds = 500, 3
	s, show, users := raceWorld(t, clients*rounds)
	for round := range rounds {
		row := string(rune('A' + round))
		seats := []string{row + "1", row + "2", row + "3", row + "4"}
		type result struct {
			hold booking.Hold
			err  error
		}
		results := make([]result, clients)
		pgtest.Release(clients, func(i int) {
			// Overlapping groups: a random non-empty subset of the four seats, in random order.
			var want []string
			for _, seat := range seats {
				if rand.IntN(2) == 0 {
					want = append(want, seat)
				}
			}
			if len(want) == 0 {
				want = seats[i%4 : i%4+1]
			}
			rand.Shuffle(len(want), func(a, b int) { want[a], want[b] = want[b], want[a] })
			res, err := s.HoldSeats(ctx, booking.HoldRequest{
				UserID: users[round*clients+i], ShowID: show, Seats: want, TTL: ttl, Key: "k",
			}, 10)
			results[i] = result{res.Hold, err}
		})

		owner := map[string]string{} // seat -> winning hold
		for i, r := range results {
			var unavailable *booking.SeatsUnavailableError
			switch {
			case r.err == nil:
				for _, seat := range r.hold.Seats {
					if prev, taken := owner[seat]; taken {
						t.Fatalf("round %d: seat %s won by both %s and %s", round, seat, prev, r.hold.ID)
					}
					owner[seat] = r.hold.ID
				}
			case errors.As(r.err, &unavailable):
				if len(unavailable.Seats) == 0 {
					t.Errorf("round %d client %d: a conflict that names no seat", round, i)
				}
			default:
				t.Errorf("round %d client %d: unexpected error %v", round, i, r.err)
			}
		}
		if len(owner) == 0 {
			t.Fatalf("round %d: nobody won", round)
		}
		// By SQL: every seat of the round is owned exactly as the winners say.
		rows, err := s.Pool().Query(ctx, `SELECT seat_id, coalesce(hold_id::text, '') FROM show_seats WHERE show_id = $1 AND seat_id = ANY ($2)`, show, seats)
		if err != nil {
			t.Fatal(err)
		}
		var seat, holder string
		for rows.Next() {
			if err := rows.Scan(&seat, &holder); err != nil {
				t.Fatal(err)
			}
			if holder != owner[seat] {
				t.Errorf("round %d: %s owned by %q in the database, winners say %q", round, seat, holder, owner[seat])
			}
		}
		rows.Close()
		pgtest.CheckInvariants(t, s)
	}
}

// Groups of the same seats asked for in opposite orders, with cancels,
// payments and sweeps running at the same time across two shows, never
// deadlock: every path takes seats in (show_id, seat_id) order.
func TestRaceMixedPathsNeverDeadlock(t *testing.T) {
	const clients = 64
	s, show, users := raceWorld(t, clients)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	v := pgtest.NewVenue(t, s)
	show2 := pgtest.NewShow(t, s, v, 10, 10, time.Now().Add(72*time.Hour))
	seats := []string{"E1", "E2", "E3", "E4", "E5", "E6"}

	var mu sync.Mutex
	var failures []error
	deadline := time.Now().Add(3 * time.Second)
	pgtest.Release(clients, func(i int) {
		u := users[i]
		for n := 0; time.Now().Before(deadline); n++ {
			want := slices.Clone(seats[rand.IntN(3) : 3+rand.IntN(4)])
			if i%2 == 1 {
				slices.Reverse(want)
			}
			target := show
			if n%2 == 1 {
				target = show2
			}
			res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: u, ShowID: target, Seats: want, TTL: ttl, Key: fmt.Sprintf("%d", n)}, 10)
			var unavailable *booking.SeatsUnavailableError
			var active *booking.ActiveHoldError
			switch {
			case errors.As(err, &unavailable), errors.As(err, &active):
				if active != nil {
					_, err = s.CancelHold(ctx, u, active.HoldID)
				} else {
					err = nil
				}
			case err == nil:
				h := res.Hold
				switch rand.IntN(4) {
				case 0:
					_, err = s.CancelHold(ctx, u, h.ID)
				case 1:
					var c booking.Confirmation
					c, err = s.ConfirmPayment(ctx, booking.Payment{ID: "pay-" + h.ID, HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency})
					if err == nil && c.Outcome == booking.OutcomeBooked {
						_, err = s.CancelBooking(ctx, u, c.BookingID)
					}
				case 2:
					clock.Advance(ttl) // let it lapse; the sweeper and the next hold race for it
					_, err = s.ExpireHolds(ctx, 50)
				default:
					_, err = s.ExpireHolds(ctx, 50)
				}
			}
			if err != nil {
				mu.Lock()
				failures = append(failures, err)
				mu.Unlock()
				return
			}
		}
	})
	for _, err := range failures {
		t.Errorf("unexpected error (a deadlock would show here as SQLSTATE 40P01): %v", err)
	}
}

// One user's parallel holds never exceed one active hold, and parallel
// retries of one request under one key all get the same hold.
func TestRaceOneUsersParallelHolds(t *testing.T) {
	s, show, users := raceWorld(t, 2)
	t.Run("different requests", func(t *testing.T) {
		const n = 50
		wins := make([]string, n)
		pgtest.Release(n, func(i int) {
			seat := fmt.Sprintf("%c%d", 'A'+i/10, i%10+1)
			res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: users[0], ShowID: show, Seats: []string{seat}, TTL: ttl, Key: seat}, 10)
			var active *booking.ActiveHoldError
			switch {
			case err == nil:
				wins[i] = res.Hold.ID
			case errors.As(err, &active):
			default:
				t.Errorf("client %d: %v", i, err)
			}
		})
		won := slices.DeleteFunc(wins, func(s string) bool { return s == "" })
		if len(won) != 1 {
			t.Fatalf("%d parallel holds succeeded for one user, want exactly 1", len(won))
		}
		if n := pgtest.Scalar[int](t, s.Pool(), `SELECT count(*) FROM holds WHERE user_id = $1 AND state = 'HELD'`, users[0]); n != 1 {
			t.Fatalf("%d active holds in the database, want 1", n)
		}
	})
	t.Run("the same request under one key", func(t *testing.T) {
		const n = 50
		ids := make([]string, n)
		pgtest.Release(n, func(i int) {
			res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: users[1], ShowID: show, Seats: []string{"J1", "J2"}, TTL: ttl, Key: "one-key"}, 10)
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			ids[i] = res.Hold.ID
		})
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("same key gave holds %s and %s", ids[0], id)
			}
		}
	})
}

// Webhooks arrive twice, at once; distinct payments race for one hold.
func TestRacePaymentDeliveries(t *testing.T) {
	s, show, users := raceWorld(t, 2)
	hold := func(u, seat string) booking.Hold {
		res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: u, ShowID: show, Seats: []string{seat}, TTL: ttl, Key: seat}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return res.Hold
	}
	t.Run("one payment delivered many times at once", func(t *testing.T) {
		h := hold(users[0], "A1")
		out := make([]booking.Confirmation, 40)
		pgtest.Release(len(out), func(i int) {
			c, err := s.ConfirmPayment(ctx, booking.Payment{ID: "pay-dup", HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency})
			if err != nil {
				t.Errorf("delivery %d: %v", i, err)
			}
			out[i] = c
		})
		for _, c := range out {
			if c != out[0] || c.Outcome != booking.OutcomeBooked {
				t.Fatalf("deliveries disagree or did not book: %+v vs %+v", c, out[0])
			}
		}
	})
	t.Run("distinct payments for one hold", func(t *testing.T) {
		h := hold(users[1], "B1")
		out := make([]booking.Confirmation, 40)
		pgtest.Release(len(out), func(i int) {
			// Forty payments queue on one hold's seats; on a loaded machine
			// the last may wait past the pool's lock_timeout, and its
			// provider would deliver it again, as here.
			var c booking.Confirmation
			var err error
			for range 10 {
				c, err = s.ConfirmPayment(ctx, booking.Payment{ID: fmt.Sprintf("pay-%d", i), HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency})
				var pgErr *pgconn.PgError
				if !errors.As(err, &pgErr) || pgErr.Code != "55P03" { // lock_not_available
					break
				}
			}
			if err != nil {
				t.Errorf("payment %d: %v", i, err)
			}
			out[i] = c
		})
		booked := 0
		for _, c := range out {
			if c.Outcome == booking.OutcomeBooked {
				booked++
			}
		}
		if booked != 1 {
			t.Fatalf("%d payments booked the hold, want 1", booked)
		}
		if n := pgtest.Scalar[int](t, s.Pool(), `SELECT count(*) FROM refunds r JOIN payments p USING (payment_id) WHERE p.hold_id = $1`, h.ID); n != len(out)-1 {
			t.Fatalf("%d refund obligations, want %d", n, len(out)-1)
		}
	})
}
