package demo_test

import (
	"context"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The demo has a platform admin and the manager of one theatre, both
// signing in with the printed password.
func TestLoadAdmins(t *testing.T) {
	t.Parallel()
	s, _ := loaded(t)
	ctx := context.Background()
	for _, tc := range []struct {
		email string
		role  auth.Role
	}{{demo.PlatformAdminEmail, auth.RolePlatformAdmin}, {demo.TheatreAdminEmail, auth.RoleTheatreAdmin}} {
		u, hash, err := s.UserByEmail(ctx, tc.email)
		if err != nil || u.Role != tc.role || !auth.DefaultHasher.Check(hash, demo.AdminPassword) {
			t.Errorf("%s: %+v, %v; want role %s and the demo password", tc.email, u, err, tc.role)
		}
	}
	granted := pgtest.Scalar[string](t, s.Pool(), `
		SELECT string_agg(t.name, ', ') FROM theatre_staff ta
		  JOIN theatres t ON t.id = ta.theatre_id JOIN users u ON u.id = ta.user_id`)
	if granted != demo.AdminTheatre {
		t.Errorf("granted theatres = %q, want only the manager's %q", granted, demo.AdminTheatre)
	}
	entry := pgtest.Scalar[string](t, s.Pool(), `
		SELECT u.email || ' ' || a.action FROM audit_log a JOIN users u ON u.id = a.actor_id`)
	if entry != demo.PlatformAdminEmail+" theatre_admin.grant" {
		t.Errorf("audit log = %q, want the platform admin's grant", entry)
	}
}
