package postgres_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// Admins blocking seats and customers holding them, all released together
// on the same four seats, each asking for a random set of them: no seat has
// two winners (a hold and a block, or two of either); a loser is told of
// seats that someone did win; and a seat nobody won (every set that asked
// for it also asked for one already taken) is really free: it can be held.
func TestRaceBlocksAgainstHolds(t *testing.T) {
	const clients, rounds = 120, 3
	s, show, users := raceWorld(t, clients*rounds)
	for round := range rounds {
		row := string(rune('A' + round))
		seats := []string{row + "1", row + "2", row + "3", row + "4"}
		won := make([][]string, clients) // the seats each client claimed
		errs := make([]error, clients)
		pgtest.Release(clients, func(i int) {
			want := pick(seats, i)
			if i%4 == 0 {
				// Every fourth client is an admin blocking.
				won[i], errs[i] = s.BlockSeats(ctx, show, want, audit.Entry{
					ActorID: users[round*clients+i], Action: "show.block_seats", Object: "race",
				})
				return
			}
			res, err := s.HoldSeats(ctx, booking.HoldRequest{
				UserID: users[round*clients+i], ShowID: show, Seats: want, TTL: ttl, Key: "k",
			}, 10)
			won[i], errs[i] = res.Hold.Seats, err
		})
		winners := map[string]int{}
		var named []string // the seats the losers were told were taken
		for i, err := range errs {
			var taken *booking.SeatsUnavailableError
			switch {
			case err == nil:
				for _, seat := range won[i] {
					winners[seat]++
				}
			case errors.As(err, &taken):
				named = append(named, taken.Seats...)
			default:
				t.Fatalf("round %d client %d: %v", round, i, err)
			}
		}
		for _, seat := range named {
			if winners[seat] != 1 {
				t.Errorf("round %d: a loser was told %s is taken; it has %d winners", round, seat, winners[seat])
			}
		}
		for _, seat := range seats {
			status := pgtest.Scalar[string](t, s.Pool(), `SELECT status FROM show_seats WHERE show_id = $1 AND seat_id = $2`, show, seat)
			switch winners[seat] {
			case 1:
				if status != "HELD" && status != "BLOCKED" {
					t.Errorf("round %d: seat %s was won but is %s", round, seat, status)
				}
			case 0:
				// Free after the race: someone can have it now.
				if status != "AVAILABLE" {
					t.Errorf("round %d: seat %s nobody won is %s", round, seat, status)
				}
				if _, err := s.HoldSeats(ctx, booking.HoldRequest{
					UserID: pgtest.User(t, s), ShowID: show, Seats: []string{seat}, TTL: ttl, Key: "after",
				}, 10); err != nil {
					t.Errorf("round %d: seat %s nobody won cannot be held: %v", round, seat, err)
				}
			default:
				t.Errorf("round %d: seat %s has %d winners", round, seat, winners[seat])
			}
		}
	}
}

// pick is a random non-empty subset of seats, in random order.
func pick(seats []string, i int) []string {
	var want []string
	for _, seat := range seats {
		if rand.IntN(2) == 0 {
			want = append(want, seat)
		}
	}
	if len(want) == 0 {
		want = []string{seats[i%len(seats)]}
	}
	rand.Shuffle(len(want), func(a, b int) { want[a], want[b] = want[b], want[a] })
	return want
}

// The theatre cancels a show while 200 customers hold seats on it and pay:
// afterwards the show sells nothing, every booking made before the
// cancellation is cancelled by the theatre with a full refund, every
// payment that came after it is refunded, and no money is lost.
func TestRaceCancelShowWhileCustomersBuy(t *testing.T) {
	const clients = 200
	s, show, users := raceWorld(t, clients+1)
	var booked atomic.Int64
	var cancelErr error
	pgtest.Release(clients+1, func(i int) {
		if i == clients {
			// Cancel once some seats are sold, while others are being bought.
			deadline := time.Now().Add(10 * time.Second)
			for booked.Load() < 10 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			_, cancelErr = s.CancelShow(ctx, show, audit.Entry{ActorID: users[clients], Action: "show.cancel", Object: "race"})
			return
		}
		seat := []string{fmt.Sprintf("%c%d", 'A'+rune(i%10), i/10%10+1)}
		res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: users[i], ShowID: show, Seats: seat, TTL: ttl, Key: "k"}, 10)
		if err != nil {
			return // taken, or the show is gone
		}
		h := res.Hold
		c, err := s.ConfirmPayment(ctx, booking.Payment{
			ID: fmt.Sprintf("pay-%d", i), HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency,
		})
		if err != nil {
			t.Errorf("client %d: confirm: %v", i, err)
			return
		}
		if c.Outcome == booking.OutcomeBooked {
			booked.Add(1)
		}
	})
	if cancelErr != nil {
		t.Fatalf("cancel: %v", cancelErr)
	}
	p := s.Pool()
	if n := pgtest.Scalar[int64](t, p, `SELECT count(*) FROM show_seats WHERE show_id = $1 AND status IN ('HELD', 'BOOKED')`, show); n != 0 {
		t.Errorf("%d seats of the cancelled show are HELD or BOOKED", n)
	}
	if n := pgtest.Scalar[int64](t, p, `
		SELECT count(*) FROM payments pm
		  JOIN bookings b ON b.id = pm.booking_id
		  LEFT JOIN refunds r ON r.booking_id = b.id
		 WHERE pm.outcome = 'BOOKED'
		   AND (b.status <> 'CANCELLED' OR b.cancelled_by <> 'theatre'
		        OR r.status IS DISTINCT FROM 'PENDING' OR r.amount_minor <> b.amount_minor)`); n != 0 {
		t.Errorf("%d booked payments without a theatre cancellation and a pending full refund", n)
	}
	if n := pgtest.Scalar[int64](t, p, `
		SELECT count(*) FROM payments pm
		  JOIN holds h ON h.id = pm.hold_id
		  LEFT JOIN refunds r ON r.payment_id = pm.payment_id
		 WHERE h.state = 'CANCELLED'
		   AND (pm.outcome <> 'REFUND_REQUIRED' OR r.amount_minor IS DISTINCT FROM pm.amount_minor)`); n != 0 {
		t.Errorf("%d payments for cancelled holds without a full refund", n)
	}
	bookings := pgtest.Scalar[int64](t, p, `SELECT count(*) FROM bookings`)
	late := pgtest.Scalar[int64](t, p, `SELECT count(*) FROM payments WHERE outcome = 'REFUND_REQUIRED'`)
	if bookings == 0 {
		t.Errorf("no booking before the cancellation: the race did not happen")
	}
	t.Logf("%d bookings refunded by the theatre, %d payments after the cancellation refunded", bookings, late)
}
