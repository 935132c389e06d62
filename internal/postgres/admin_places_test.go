package postgres_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// An admin change and its audit entry commit together: an entry the log
// refuses (here an action its CHECK rejects) rolls the change back.
func TestAuditCommitsWithTheChange(t *testing.T) {
	w := newWorld(t)
	s := w.store
	admin := w.user()
	entry := func(action string) audit.Entry {
		return audit.Entry{ActorID: admin, Action: action, Object: "test"}
	}
	places := func() string {
		return pgtest.Scalar[string](t, s.Pool(), `
			SELECT format('%s %s %s %s %s', (SELECT count(*) FROM cities), (SELECT count(*) FROM theatres),
			       (SELECT count(*) FROM refund_tiers), (SELECT count(*) FROM theatre_staff),
			       (SELECT string_agg(t::text, ',' ORDER BY id) FROM theatres t))`)
	}
	entries := func() int { return count(t, s, `SELECT count(*) FROM audit_log`) }

	t.Run("a city and its entry", func(t *testing.T) {
		c, err := s.CreateCityAudited(ctx, "Pune", "pune", func(c catalog.City) audit.Entry { return entry("city.create") })
		if err != nil || c.ID == 0 || entries() != 1 {
			t.Fatalf("city %+v, %v; %d entries", c, err, entries())
		}
		before := places()
		_, err = s.CreateCityAudited(ctx, "Nashik", "nashik", func(catalog.City) audit.Entry { return entry("Not An Action") })
		if err == nil || places() != before || entries() != 1 {
			t.Fatalf("refused entry: err %v, %d entries, places %s -> %s", err, entries(), before, places())
		}
		_, err = s.CreateCityAudited(ctx, "Pune", "pune", func(catalog.City) audit.Entry { return entry("city.create") })
		if !errors.Is(err, catalog.ErrCityExists) || entries() != 1 {
			t.Fatalf("taken slug: %v, %d entries", err, entries())
		}
	})
	t.Run("a theatre and its entry", func(t *testing.T) {
		before := places()
		policy := &booking.RefundPolicy{Tiers: []booking.RefundTier{{Before: time.Hour, Percent: 10}}}
		_, err := s.CreateTheatreAudited(ctx, catalog.NewTheatre{City: "pune", Name: "Rolled Back", TimeZone: "UTC", Policy: policy},
			func(catalog.AdminTheatre) audit.Entry { return entry("bad action") })
		if err == nil || places() != before {
			t.Fatalf("refused entry: err %v, places %s -> %s", err, before, places())
		}
		buffer := 20 * time.Minute
		th, err := s.CreateTheatreAudited(ctx, catalog.NewTheatre{City: "pune", Name: "Kept", TimeZone: "UTC", CleaningBuffer: &buffer, Policy: policy},
			func(catalog.AdminTheatre) audit.Entry { return entry("theatre.create") })
		if err != nil || th.CleaningBuffer != buffer || th.CitySlug != "pune" || len(th.Policy.Tiers) != 1 || entries() != 2 {
			t.Fatalf("theatre %+v, %v", th, err)
		}
		before = places()
		name := "Renamed"
		_, err = s.UpdateTheatre(ctx, th.ID, catalog.TheatrePatch{Name: &name, Policy: &booking.DefaultRefundPolicy},
			func(_, _ catalog.AdminTheatre) audit.Entry { return entry("bad action") })
		if err == nil || places() != before || entries() != 2 {
			t.Fatalf("refused update entry: err %v, places %s -> %s", err, before, places())
		}
		var unknown *catalog.FieldError
		_, err = s.CreateTheatreAudited(ctx, catalog.NewTheatre{City: "atlantis", Name: "X", TimeZone: "UTC"},
			func(catalog.AdminTheatre) audit.Entry { return entry("theatre.create") })
		if !errors.As(err, &unknown) || unknown.Field != "city" || places() != before {
			t.Fatalf("unknown city: %v", err)
		}
	})
	t.Run("a grant and its entry", func(t *testing.T) {
		u, err := s.User(ctx, w.user())
		if err != nil {
			t.Fatal(err)
		}
		before := places()
		_, err = s.GrantStaff(ctx, w.venue.TheatreID, u.Email, auth.StaffUsher, func(auth.User, auth.StaffRole, auth.StaffRole) audit.Entry { return entry("bad action") })
		if err == nil || places() != before || role(t, s, u.ID) != auth.RoleMoviegoer {
			t.Fatalf("refused grant entry: err %v, places %s -> %s", err, before, places())
		}
	})
}

func role(t *testing.T, s *postgres.Store, userID string) auth.Role {
	t.Helper()
	return pgtest.Scalar[auth.Role](t, s.Pool(), `SELECT role FROM users WHERE id = $1`, userID)
}

// Grants and revocations of one account race from many goroutines over
// several theatres: its role always ends as its grants say, and every
// change that happened has its one entry.
func TestGrantsRace(t *testing.T) {
	w := newWorld(t)
	s := w.store
	platform := w.user()
	var theatres []int64
	for i := range 4 {
		id, err := s.CreateTheatre(ctx, catalog.Theatre{CityID: w.venue.CityID, Name: fmt.Sprintf("Race %d", i), TimeZone: "UTC"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		theatres = append(theatres, id)
	}
	manager, err := s.User(ctx, w.user())
	if err != nil {
		t.Fatal(err)
	}
	entry := func(action string) func(auth.User, auth.StaffRole) audit.Entry {
		return func(u auth.User, _ auth.StaffRole) audit.Entry {
			return audit.Entry{ActorID: platform, Action: action, Object: "admin " + u.ID}
		}
	}
	granted := func(u auth.User, _, _ auth.StaffRole) audit.Entry {
		return entry("theatre_admin.grant")(u, "")
	}
	for round := range 5 {
		errs := make([]error, 16)
		pgtest.Release(len(errs), func(i int) {
			theatre := theatres[i%len(theatres)]
			if (i+round)%3 == 0 {
				errs[i] = s.RevokeTheatre(ctx, theatre, manager.ID, entry("theatre_admin.revoke"))
			} else {
				_, errs[i] = s.GrantStaff(ctx, theatre, manager.Email, auth.StaffManager, granted)
			}
		})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		grants := count(t, s, `SELECT count(*) FROM theatre_staff WHERE user_id = $1`, manager.ID)
		want := auth.RoleMoviegoer
		if grants > 0 {
			want = auth.RoleTheatreAdmin
		}
		if got := role(t, s, manager.ID); got != want {
			t.Fatalf("round %d: %d grants, role %s", round, grants, got)
		}
		// Each grant that stands was made once more than it was revoked.
		balance := count(t, s, `
			SELECT count(*) FILTER (WHERE action = 'theatre_admin.grant') - count(*) FILTER (WHERE action = 'theatre_admin.revoke')
			  FROM audit_log`)
		if balance != grants {
			t.Fatalf("round %d: %d grants standing, entries say %d", round, grants, balance)
		}
	}
	// Every grant revoked at once: the account is a moviegoer again.
	pgtest.Release(len(theatres), func(i int) {
		if err := s.RevokeTheatre(ctx, theatres[i], manager.ID, entry("theatre_admin.revoke")); err != nil {
			t.Error(err)
		}
	})
	if got := role(t, s, manager.ID); got != auth.RoleMoviegoer {
		t.Fatalf("role with no grants left = %s", got)
	}
}

func TestSetPlatformAdmin(t *testing.T) {
	w := newWorld(t)
	s := w.store
	u, err := s.User(ctx, w.user())
	if err != nil {
		t.Fatal(err)
	}
	if was, err := s.SetPlatformAdmin(ctx, u.Email); err != nil || was != auth.RoleMoviegoer || role(t, s, u.ID) != auth.RolePlatformAdmin {
		t.Fatalf("was %s, %v; role %s", was, err, role(t, s, u.ID))
	}
	if _, err := s.SetPlatformAdmin(ctx, "nobody@example.com"); !errors.Is(err, booking.ErrNotFound) {
		t.Fatalf("unknown email: %v", err)
	}
}
