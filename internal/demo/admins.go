package demo

import (
	"context"
	"fmt"

	"golang.org/x/crypto/bcrypt"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// The demo's admins: a platform admin, the manager of one theatre (a
// theatre admin of AdminTheatre only), and that theatre's box office and
// usher. All sign in with AdminPassword, which `marquee serve --demo`
// prints at start-up.
const (
	PlatformAdminEmail = "admin@marquee.example"
	TheatreAdminEmail  = "manager@marquee.example"
	BoxOfficeEmail     = "boxoffice@marquee.example"
	UsherEmail         = "usher@marquee.example"
	AdminPassword      = "marquee-demo"
	AdminTheatre       = "Marquee Indiranagar"
)

// demoHasher hashes the demo password at bcrypt's least cost: the password
// is printed for anyone to read, so a slow hash would protect nothing and
// only slow every Load.
var demoHasher = auth.Hasher{Cost: bcrypt.MinCost}

// loadAdmins creates the demo's admins and has the platform admin grant
// the manager AdminTheatre, as the admin API would (the audit log starts
// with that grant), and the manager grant the box office and the usher.
func loadAdmins(ctx context.Context, s *postgres.Store) error {
	hash, err := demoHasher.Hash(AdminPassword)
	if err != nil {
		return fmt.Errorf("demo admins: %w", err)
	}
	platform, err := s.CreateUser(ctx, PlatformAdminEmail, "Asha Rao", hash, auth.RolePlatformAdmin)
	if err != nil {
		return fmt.Errorf("demo admins: %w", err)
	}
	manager, err := s.CreateUser(ctx, TheatreAdminEmail, "Ravi Kumar", hash, auth.RoleMoviegoer)
	if err != nil {
		return fmt.Errorf("demo admins: %w", err)
	}
	for _, u := range [][2]string{{BoxOfficeEmail, "Meera Iyer"}, {UsherEmail, "Arjun Das"}} {
		if _, err := s.CreateUser(ctx, u[0], u[1], hash, auth.RoleMoviegoer); err != nil {
			return fmt.Errorf("demo admins: %w", err)
		}
	}
	svc := &admin.Service{Store: s}
	actor := admin.Actor{UserID: platform.ID, Email: platform.Email, Role: platform.Role}
	theatres, err := svc.Theatres(ctx, actor)
	if err != nil {
		return fmt.Errorf("demo admins: %w", err)
	}
	for _, t := range theatres {
		if t.Name == AdminTheatre {
			if _, err := svc.GrantTheatre(ctx, actor, t.ID, TheatreAdminEmail); err != nil {
				return fmt.Errorf("demo admins: %w", err)
			}
			boss := admin.Actor{UserID: manager.ID, Email: manager.Email, Role: auth.RoleTheatreAdmin}
			for email, role := range map[string]auth.StaffRole{BoxOfficeEmail: auth.StaffBoxOffice, UsherEmail: auth.StaffUsher} {
				if _, err := svc.GrantStaff(ctx, boss, t.ID, email, role); err != nil {
					return fmt.Errorf("demo admins: %w", err)
				}
			}
			return nil
		}
	}
	return fmt.Errorf("demo admins: no theatre %q", AdminTheatre)
}
