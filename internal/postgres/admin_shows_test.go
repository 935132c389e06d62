package postgres_test

import (
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// scheduleWorld is a venue with an empty 3x4 screen and an admin.
func scheduleWorld(t *testing.T, conns int32) (*postgres.Store, pgtest.Venue, int64, string) {
	t.Helper()
	t.Parallel()
	s := pgtest.NewStore(t, conns)
	v := pgtest.NewVenue(t, s)
	screen, err := s.CreateScreen(ctx, v.TheatreID, "Screen 1", pgtest.Grid(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	return s, v, screen, pgtest.User(t, s)
}

func showAt(v pgtest.Venue, screen int64, at time.Time) catalog.Show {
	return catalog.Show{MovieID: v.MovieID, ScreenID: screen, StartsAt: at, EndsAt: at.Add(2 * time.Hour),
		Currency: "INR", Prices: pgtest.Prices}
}

func auditAs(user string) func([]int64) audit.Entry {
	return func(ids []int64) audit.Entry {
		return audit.Entry{ActorID: user, Action: "show.schedule", Object: fmt.Sprintf("show %d", ids[0])}
	}
}

// Admins scheduling overlapping series on one screen at once: exactly one
// series is created, whole; every other is refused naming a show of it.
func TestScheduleShowsRace(t *testing.T) {
	const admins = 12
	s, v, screen, user := scheduleWorld(t, 16)
	base := time.Now().Add(72 * time.Hour).Truncate(time.Hour)
	ids := make([][]int64, admins)
	errs := make([]error, admins)
	pgtest.Release(admins, func(i int) {
		// Series i: three shows 3 hours apart, shifted by i*10 minutes, so
		// every two series overlap somewhere.
		var shows []catalog.Show
		for k := range 3 {
			shows = append(shows, showAt(v, screen, base.Add(time.Duration(k)*3*time.Hour+time.Duration(i)*10*time.Minute)))
		}
		ids[i], errs[i] = s.ScheduleShows(ctx, shows, auditAs(user))
	})
	var winner []int64
	for i, err := range errs {
		if err == nil {
			if winner != nil {
				t.Fatalf("two series scheduled: %v and %v", winner, ids[i])
			}
			winner = ids[i]
		}
	}
	if len(winner) != 3 {
		t.Fatalf("winner = %v; errors %v", winner, errs)
	}
	for i, err := range errs {
		var overlap *catalog.ScheduleOverlapError
		if err != nil && (!errors.As(err, &overlap) || !containsID(winner, overlap.ConflictingShowID)) {
			t.Errorf("series %d: err = %v, want an overlap naming a show of %v", i, err, winner)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM shows`); n != 3 {
		t.Fatalf("%d shows, want the winner's 3", n)
	}
	if n := count(t, s, `SELECT count(*) FROM show_seats`); n != 36 {
		t.Fatalf("%d show seats, want 36", n)
	}
	if n := count(t, s, `SELECT count(*) FROM audit_log`); n != 1 {
		t.Fatalf("%d audit entries, want 1", n)
	}
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// Holds racing a price change: either the change is refused because a
// hold came first, or every hold made is priced at the new prices. (A hold
// whose locking statement waited for SetShowPrices' seat locks used to sum
// show_prices as of that statement's snapshot, from before the change:
// hold_seats now sums them in a statement after the locks, 000006.)
func TestPriceChangeRacesHolds(t *testing.T) {
	const holders = 8
	newPrices := map[string]int64{"STANDARD": 30000, "PREMIUM": 50000}
	for round := range 5 {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			s, v, screen, admin := scheduleWorld(t, holders+4)
			ids, err := s.ScheduleShows(ctx, []catalog.Show{showAt(v, screen, time.Now().Add(48*time.Hour))}, auditAs(admin))
			if err != nil {
				t.Fatal(err)
			}
			show := ids[0]
			users := make([]string, holders)
			for i := range users {
				users[i] = pgtest.User(t, s)
			}
			var changeErr error
			holdErrs := make([]error, holders)
			pgtest.Release(holders+1, func(i int) {
				if i == holders {
					changeErr = s.SetShowPrices(ctx, show, newPrices, func(before map[string]int64) audit.Entry {
						return audit.Entry{ActorID: admin, Action: "show.set_prices", Object: "show", Before: before, After: newPrices}
					})
					return
				}
				seat := fmt.Sprintf("%c%d", 'A'+i/4, i%4+1)
				_, holdErrs[i] = s.HoldSeats(ctx, booking.HoldRequest{UserID: users[i], ShowID: show, Seats: []string{seat}, TTL: ttl, Key: "k"}, 10)
			})
			if changeErr != nil && !errors.Is(changeErr, catalog.ErrShowHasSales) {
				t.Fatalf("price change: %v", changeErr)
			}
			prices := pgtest.Scalar[map[string]int64](t, s.Pool(), `SELECT jsonb_object_agg(category, price_minor) FROM show_prices WHERE show_id = $1`, show)
			want := pgtest.Prices
			if changeErr == nil {
				want = newPrices
			}
			if !maps.Equal(prices, want) {
				t.Fatalf("prices = %v, want %v (change: %v)", prices, want, changeErr)
			}
			if n := count(t, s, `
				SELECT count(*) FROM holds h JOIN show_seats ss ON ss.hold_id = h.id
				  JOIN show_prices p ON p.show_id = ss.show_id AND p.category = ss.category
				 WHERE h.amount_minor <> p.price_minor`); n != 0 {
				t.Fatalf("%d holds priced otherwise than the show's prices (change: %v)", n, changeErr)
			}
		})
	}
}
