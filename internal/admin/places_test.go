package admin_test

import (
	"context"
	"errors"
	"testing"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// Who may do what with places, below HTTP: the errors the API maps to 403
// and 404.
func TestPlacesDecideWhoMay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	v := pgtest.NewVenue(t, s)
	svc := &admin.Service{Store: s}
	actor := func(role auth.Role) admin.Actor {
		id := pgtest.User(t, s)
		pgtest.Exec(t, s.Pool(), `UPDATE users SET role = $2 WHERE id = $1`, id, role)
		a, err := svc.Actor(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	platform, manager := actor(auth.RolePlatformAdmin), actor(auth.RoleTheatreAdmin)
	name := "Renamed"

	if _, err := svc.Actor(ctx, pgtest.User(t, s)); !errors.Is(err, admin.ErrForbidden) {
		t.Errorf("a moviegoer as actor: %v, want ErrForbidden", err)
	}
	if _, err := svc.CreateCity(ctx, manager, "Pune", "pune"); !errors.Is(err, admin.ErrPlatformOnly) {
		t.Errorf("a theatre admin's city: %v, want ErrPlatformOnly", err)
	}
	if _, err := svc.GrantTheatre(ctx, manager, v.TheatreID, manager.Email); !errors.Is(err, admin.ErrPlatformOnly) {
		t.Errorf("a theatre admin's grant: %v, want ErrPlatformOnly", err)
	}
	if _, err := svc.UpdateTheatre(ctx, manager, v.TheatreID, admin.TheatreInput{Name: &name}); !errors.Is(err, booking.ErrNotFound) {
		t.Errorf("a theatre not granted: %v, want ErrNotFound", err)
	}
	if _, err := svc.GrantTheatre(ctx, platform, v.TheatreID, manager.Email); err != nil {
		t.Fatal(err)
	}
	th, err := svc.UpdateTheatre(ctx, manager, v.TheatreID, admin.TheatreInput{Name: &name})
	if err != nil || th.Name != name {
		t.Fatalf("a granted theatre: %+v, %v", th, err)
	}
	if _, err := svc.GrantTheatre(ctx, platform, v.TheatreID, "nobody@example.com"); !errors.Is(err, auth.ErrUnknownAccount) {
		t.Errorf("an unknown account: %v, want ErrUnknownAccount", err)
	}
	if _, err := svc.Theatre(ctx, platform, 999999); !errors.Is(err, booking.ErrNotFound) {
		t.Errorf("no such theatre: %v, want ErrNotFound", err)
	}
}
