package demo_test

import (
	"context"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The demo has a platform admin, the manager of one theatre and its box
// office and usher, all signing in with the printed password.
func TestLoadAdmins(t *testing.T) {
	t.Parallel()
	s, _ := loaded(t)
	ctx := context.Background()
	for _, tc := range []struct {
		email string
		role  auth.Role
	}{{demo.PlatformAdminEmail, auth.RolePlatformAdmin}, {demo.TheatreAdminEmail, auth.RoleTheatreAdmin},
		{demo.BoxOfficeEmail, auth.RoleTheatreAdmin}, {demo.UsherEmail, auth.RoleTheatreAdmin}} {
		u, hash, err := s.UserByEmail(ctx, tc.email)
		if err != nil || u.Role != tc.role || !auth.DefaultHasher.Check(hash, demo.AdminPassword) {
			t.Errorf("%s: %+v, %v; want role %s and the demo password", tc.email, u, err, tc.role)
		}
	}
	granted := pgtest.Scalar[string](t, s.Pool(), `
		SELECT string_agg(u.email || ' ' || ta.role || ' of ' || t.name, ', ' ORDER BY u.email) FROM theatre_staff ta
		  JOIN theatres t ON t.id = ta.theatre_id JOIN users u ON u.id = ta.user_id`)
	want := demo.BoxOfficeEmail + " box_office of " + demo.AdminTheatre + ", " + demo.TheatreAdminEmail + " manager of " + demo.AdminTheatre +
		", " + demo.UsherEmail + " usher of " + demo.AdminTheatre
	if granted != want {
		t.Errorf("staff = %q, want %q", granted, want)
	}
	first := pgtest.Scalar[string](t, s.Pool(), `
		SELECT u.email || ' ' || a.action FROM audit_log a JOIN users u ON u.id = a.actor_id ORDER BY a.id LIMIT 1`)
	if first != demo.PlatformAdminEmail+" theatre_admin.grant" {
		t.Errorf("audit log starts with %q, want the platform admin's grant", first)
	}
}
