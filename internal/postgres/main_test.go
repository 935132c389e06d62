package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const ttl = 5 * time.Minute

var ctx = context.Background()

// The test databases are copies of one template; Main drops it at the end.
func TestMain(m *testing.M) { pgtest.Main(m) }

// world is one show on a fresh database with an injected clock.
type world struct {
	t     *testing.T
	store *postgres.Store
	clock *pgtest.Clock
	venue pgtest.Venue
	show  int64
	start time.Time // the clock's starting time
	keys  int
}

// newWorld makes a 3x4 show (rows A-C, C is PREMIUM) starting in two days.
func newWorld(t *testing.T) *world {
	t.Helper()
	t.Parallel()
	s := pgtest.NewStore(t, 8)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	v := pgtest.NewVenue(t, s)
	w := &world{t: t, store: s, clock: clock, venue: v, start: clock.Now()}
	w.show = pgtest.NewShow(t, s, v, 3, 4, clock.Now().Add(48*time.Hour))
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	return w
}

func (w *world) user() string { return pgtest.User(w.t, w.store) }

func (w *world) key() string {
	w.keys++
	return fmt.Sprintf("key-%d", w.keys)
}

func (w *world) tryHold(user string, seats ...string) (booking.Hold, error) {
	res, err := w.store.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: w.show, Seats: seats, TTL: ttl, Key: w.key()}, 10)
	return res.Hold, err
}

func (w *world) hold(user string, seats ...string) booking.Hold {
	w.t.Helper()
	h, err := w.tryHold(user, seats...)
	if err != nil {
		w.t.Fatalf("hold %v: %v", seats, err)
	}
	return h
}

func (w *world) pay(h booking.Hold, paymentID string) (booking.Confirmation, error) {
	return w.store.ConfirmPayment(ctx, booking.Payment{ID: paymentID, HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency})
}

// seat returns a seat's status and owning hold as stored.
func (w *world) seat(id string) (booking.SeatStatus, string) {
	w.t.Helper()
	var status booking.SeatStatus
	var owner *string
	err := w.store.Pool().QueryRow(ctx, `SELECT status, hold_id::text FROM show_seats WHERE show_id = $1 AND seat_id = $2`, w.show, id).Scan(&status, &owner)
	if err != nil {
		w.t.Fatal(err)
	}
	if owner == nil {
		return status, ""
	}
	return status, *owner
}

// mapStatus returns a seat's status as the seat map shows it now.
func (w *world) mapStatus(id string) booking.SeatStatus {
	w.t.Helper()
	seats, err := w.store.SeatMap(ctx, w.show, "")
	if err != nil {
		w.t.Fatal(err)
	}
	i := slices.IndexFunc(seats, func(s booking.Seat) bool { return s.ID == id })
	if i < 0 {
		w.t.Fatalf("seat %s not in map", id)
	}
	return seats[i].Status
}

func wantUnavailable(t *testing.T, err error, seats ...string) {
	t.Helper()
	var e *booking.SeatsUnavailableError
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want seats unavailable %v", err, seats)
	}
	if !slices.Equal(e.Seats, seats) {
		t.Fatalf("unavailable seats = %v, want %v", e.Seats, seats)
	}
}

func count(t *testing.T, s *postgres.Store, sql string, args ...any) int {
	t.Helper()
	return pgtest.Scalar[int](t, s.Pool(), sql, args...)
}
