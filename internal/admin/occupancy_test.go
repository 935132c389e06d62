package admin_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestOccupancyUseCases(t *testing.T) {
	t.Parallel()
	s := pgtest.NewStore(t, 4)
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	svc := &admin.Service{Store: s}
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 3, time.Now().Add(48*time.Hour))
	other := pgtest.NewVenue(t, s)

	actor := func(role auth.Role, theatres ...int64) admin.Actor {
		id := pgtest.User(t, s)
		for _, th := range theatres {
			pgtest.Exec(t, s.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'manager')`, th, id)
		}
		return admin.Actor{UserID: id, Role: role}
	}
	mine := actor(auth.RoleTheatreAdmin, v.TheatreID)
	stranger := actor(auth.RoleTheatreAdmin, other.TheatreID)

	t.Run("another theatre's admin finds no such show", func(t *testing.T) {
		if _, err := svc.ShowOccupancy(ctx, stranger, show); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("occupancy: %v", err)
		}
		if _, err := svc.BlockSeats(ctx, stranger, show, []string{"A1"}); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("block: %v", err)
		}
		if _, err := svc.UnblockSeats(ctx, stranger, show, []string{"A1"}); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("unblock: %v", err)
		}
		if _, err := svc.CancelShow(ctx, stranger, show); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("cancel: %v", err)
		}
	})
	t.Run("seat ids are checked before anything changes", func(t *testing.T) {
		var dup *booking.DuplicateSeatsError
		if _, err := svc.BlockSeats(ctx, mine, show, []string{"A1", "A1"}); !errors.As(err, &dup) {
			t.Errorf("duplicates: %v", err)
		}
		if _, err := svc.BlockSeats(ctx, mine, show, nil); !errors.Is(err, booking.ErrNoSeats) {
			t.Errorf("no seats: %v", err)
		}
	})
	t.Run("a block is audited as its admin's, on the show's theatre", func(t *testing.T) {
		blocked, err := svc.BlockSeats(ctx, mine, show, []string{"B2", "A1"})
		if err != nil || !slices.Equal(blocked, []string{"A1", "B2"}) {
			t.Fatalf("block = %v, %v", blocked, err)
		}
		n := pgtest.Scalar[int64](t, s.Pool(), `
			SELECT count(*) FROM audit_log
			 WHERE actor_id = $1 AND theatre_id = $2 AND action = 'show.block_seats' AND object = 'show ' || $3::bigint`,
			mine.UserID, v.TheatreID, show)
		if n != 1 {
			t.Fatalf("%d audit entries for the block, want 1", n)
		}
		o, err := svc.ShowOccupancy(ctx, mine, show)
		if err != nil || o.Seats.Blocked != 2 || o.Seats.Available != 4 {
			t.Fatalf("occupancy = %+v, %v", o, err)
		}
	})
	t.Run("a platform admin cancels any show", func(t *testing.T) {
		res, err := svc.CancelShow(ctx, actor(auth.RolePlatformAdmin), show)
		if err != nil || res.ShowID != show {
			t.Fatalf("cancel = %+v, %v", res, err)
		}
		if _, err := svc.BlockSeats(ctx, mine, show, []string{"A2"}); !errors.Is(err, catalog.ErrShowCancelled) {
			t.Fatalf("block after cancel: %v", err)
		}
	})
}
