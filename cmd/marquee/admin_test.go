package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// adminRun is one `marquee admin ...` with stdin not a terminal.
func adminRun(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	var out, errOut bytes.Buffer
	code = runAdmin(args, env(vars), devNull, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestAdminCreateUsage(t *testing.T) {
	unreachable := "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"
	for _, tc := range []struct {
		name     string
		args     []string
		vars     map[string]string
		wantCode int
		wantErr  string
	}{
		{"no subcommand", nil, nil, 2, "usage: marquee admin create"},
		{"unknown subcommand", []string{"delete"}, nil, 2, "usage: marquee admin create"},
		{"no email", []string{"create"}, map[string]string{"DATABASE_URL": unreachable}, 2, "--email is required"},
		{"no database", []string{"create", "--email", "a@example.com"}, nil, 2, "DATABASE_URL is required"},
		{"stray argument", []string{"create", "--email", "a@example.com", "now"}, nil, 2, `unexpected argument "now"`},
		{"bad email", []string{"create", "--email", "not an email"}, map[string]string{"DATABASE_URL": unreachable}, 2, "email: enter a valid email"},
		{"unreachable database", []string{"create", "--email", "a@example.com"},
			map[string]string{"DATABASE_URL": unreachable, adminPasswordVar: "long enough password"}, 1, "marquee admin create:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := adminRun(t, tc.vars, tc.args...)
			if code != tc.wantCode || !strings.Contains(stderr, tc.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.wantCode, tc.wantErr)
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if code := run([]string{"admin", "--help"}, env(nil), &out, &errOut); code != 0 || !strings.Contains(out.String(), adminPasswordVar) {
			t.Fatalf("exit %d, stdout %q", code, &out)
		}
	})
}

func TestAdminCreate(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	pool, err := postgres.Connect(context.Background(), url, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.NewStore(pool)
	users := func() int { return pgtest.Scalar[int](t, pool, `SELECT count(*) FROM users`) }
	vars := func(password string) map[string]string {
		return map[string]string{"DATABASE_URL": url, adminPasswordVar: password}
	}

	t.Run("refuses a weak password, and the email as password", func(t *testing.T) {
		for _, pw := range []string{"short", "password", "eleven char", strings.Repeat("x", 73), strings.Repeat("a", 12), "Boss@Example.com",
			"1qaz2wsx3edc", "Platform Admin", strings.Repeat("é", 12), strings.Repeat(" ", 12)} {
			code, _, stderr := adminRun(t, vars(pw), "create", "--email", "boss@example.com")
			if code != 2 || !strings.Contains(stderr, "password:") {
				t.Errorf("password %q: exit %d, stderr %q", pw, code, stderr)
			}
		}
		if n := users(); n != 0 {
			t.Fatalf("%d accounts after refusals", n)
		}
	})
	t.Run("without the variable, refuses off a terminal", func(t *testing.T) {
		code, _, stderr := adminRun(t, vars(""), "create", "--email", "boss@example.com")
		if code != 2 || !strings.Contains(stderr, adminPasswordVar) || !strings.Contains(stderr, "terminal") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if n := users(); n != 0 {
			t.Fatalf("%d accounts", n)
		}
	})
	t.Run("creates a platform admin with the password from the environment", func(t *testing.T) {
		code, stdout, stderr := adminRun(t, vars("a long secret"), "create", "--email", "Boss@Example.com", "--name", "The Boss")
		if code != 0 || !strings.Contains(stdout, "Created platform admin boss@example.com") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		u, hash, err := store.UserByEmail(context.Background(), "boss@example.com")
		if err != nil || u.Role != auth.RolePlatformAdmin || u.Name != "The Boss" || !auth.DefaultHasher.Check(hash, "a long secret") {
			t.Fatalf("account %+v, %v", u, err)
		}
	})
	t.Run("makes an existing account platform admin, keeping its password", func(t *testing.T) {
		goer := pgtest.User(t, store)
		email := pgtest.Scalar[string](t, pool, `SELECT email FROM users WHERE id = $1`, goer)
		code, stdout, _ := adminRun(t, vars(""), "create", "--email", email)
		if code != 0 || !strings.Contains(stdout, "now a platform admin") || !strings.Contains(stdout, "password is unchanged") {
			t.Fatalf("exit %d, stdout %q", code, stdout)
		}
		u, hash, err := store.UserByEmail(context.Background(), email)
		if err != nil || u.Role != auth.RolePlatformAdmin || !auth.DefaultHasher.Check(hash, pgtest.FixturePassword) {
			t.Fatalf("account %+v, %v", u, err)
		}
		code, stdout, _ = adminRun(t, vars(""), "create", "--email", email)
		if code != 0 || !strings.Contains(stdout, "already a platform admin") {
			t.Fatalf("again: exit %d, stdout %q", code, stdout)
		}
	})
	t.Run("through marquee admin", func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := run([]string{"admin", "create", "--email", "second@example.com"}, env(vars("another secret")), &out, &errOut)
		if code != 0 || pgtest.Scalar[string](t, pool, `SELECT role FROM users WHERE email = 'second@example.com'`) != "platform_admin" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, &out, &errOut)
		}
	})
}

// --demo prints the demo admins and their password when it loads the demo,
// and not when it leaves a database as it was.
func TestDemoPrintsItsAdmins(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	pool, err := postgres.Connect(context.Background(), url, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.NewStore(pool)
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	if err := loadDemoData(context.Background(), store, "http://demo.test", log); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{demo.PlatformAdminEmail, demo.TheatreAdminEmail, demo.BoxOfficeEmail, demo.UsherEmail,
		"password=" + demo.AdminPassword, "http://demo.test/login"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("start-up log does not say %q:\n%s", want, &logged)
		}
	}
	logged.Reset()
	if err := loadDemoData(context.Background(), store, "http://demo.test", log); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logged.String(), demo.AdminPassword) {
		t.Errorf("a database left as it was still prints the demo password:\n%s", &logged)
	}
}
