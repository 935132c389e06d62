package accounts_test

import (
	"errors"
	"testing"

	"github.com/marquee-tickets/marquee/internal/accounts"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestAccounts(t *testing.T) {
	t.Parallel()
	store := pgtest.NewStore(t, 2)
	svc, err := accounts.New(store, auth.Hasher{Cost: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	u, err := svc.SignUp(ctx, auth.SignUp{Email: " Asha@Example.com ", Password: "correct horse", Name: " Asha "})
	if err != nil || u.Email != "asha@example.com" || u.Name != "Asha" || u.Role != auth.RoleMoviegoer {
		t.Fatalf("sign-up = %+v, %v", u, err)
	}

	t.Run("a second sign-up with the email is refused", func(t *testing.T) {
		if _, err := svc.SignUp(ctx, auth.SignUp{Email: "asha@example.com", Password: "another one", Name: "A"}); !errors.Is(err, auth.ErrEmailTaken) {
			t.Fatalf("err = %v, want ErrEmailTaken", err)
		}
	})
	t.Run("an invalid sign-up names every field", func(t *testing.T) {
		_, err := svc.SignUp(ctx, auth.SignUp{Email: "nope", Password: "short"})
		if got := len(auth.Problems(err)); got != 3 {
			t.Fatalf("problems = %v, want email, name and password", err)
		}
	})
	t.Run("log-in with the password", func(t *testing.T) {
		got, err := svc.LogIn(ctx, "  asha@example.com", "correct horse")
		if err != nil || got.ID != u.ID {
			t.Fatalf("log-in = %+v, %v", got, err)
		}
	})
	t.Run("a wrong password and an unknown email are alike", func(t *testing.T) {
		for _, email := range []string{"asha@example.com", "nobody@example.com", "bad\x00email"} {
			if _, err := svc.LogIn(ctx, email, "wrong horse"); !errors.Is(err, auth.ErrBadCredentials) {
				t.Errorf("log-in as %q = %v, want ErrBadCredentials", email, err)
			}
		}
	})
	t.Run("an email that is not UTF-8 is not lower-cased into another's", func(t *testing.T) {
		// An account made before sign-up refused such bytes: every one of
		// them had become U+FFFD.
		hash, err := auth.Hasher{Cost: 4}.Hash("correct horse")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.CreateUser(ctx, "\ufffd@example.com", "Old", hash, auth.RoleMoviegoer); err != nil {
			t.Fatal(err)
		}
		for _, email := range []string{"\xff@example.com", "\xfe@example.com", "\xfc@EXAMPLE.com"} {
			if _, err := svc.LogIn(ctx, email, "correct horse"); !errors.Is(err, auth.ErrBadCredentials) {
				t.Errorf("log-in as %q = %v, want ErrBadCredentials", email, err)
			}
			if _, err := svc.SignUp(ctx, auth.SignUp{Email: email, Password: "correct horse", Name: "New"}); !auth.IsInvalid(err) {
				t.Errorf("sign-up as %q = %v, want the email refused", email, err)
			}
		}
	})
	t.Run("a weak password makes no account", func(t *testing.T) {
		for _, pw := range []string{"12345678", "password", "        ", "weak@example.com"} {
			_, err := svc.SignUp(ctx, auth.SignUp{Email: "weak@example.com", Password: pw, Name: "Weak"})
			if p := auth.Problems(err); len(p) != 1 || p[0].Field != "password" {
				t.Errorf("password %q: %v, want the password refused", pw, err)
			}
		}
		if n := pgtest.Scalar[int](t, store.Pool(), `SELECT count(*) FROM users WHERE email = 'weak@example.com'`); n != 0 {
			t.Fatalf("%d accounts", n)
		}
	})
	t.Run("an empty field is named, not looked up", func(t *testing.T) {
		_, err := svc.LogIn(ctx, " ", "")
		problems := auth.Problems(err)
		if len(problems) != 2 || problems[0].Field != "email" || problems[1].Field != "password" {
			t.Fatalf("problems = %v, want email and password", err)
		}
	})
}
