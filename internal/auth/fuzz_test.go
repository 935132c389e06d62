package auth_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/marquee-tickets/marquee/internal/auth"
)

// printable is the property every accepted text must have: Postgres
// stores it as it is (valid UTF-8, no NUL), and no control character.
func printable(s string) bool {
	return utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0
}

// FuzzSignUpNormalize: a sign-up is refused with one *FieldError per field
// at fault, in the order email, name, password, or accepted as what was
// typed (the email lower-cased, email and name trimmed), never a repair of
// it, and as text Postgres stores.
func FuzzSignUpNormalize(f *testing.F) {
	f.Add(" Ada@Example.COM ", " Ada ", "correct horse")
	f.Add("ada@example.com", "Ada", "12345678")
	f.Fuzz(func(t *testing.T, email, name, password string) {
		su, err := auth.SignUp{Email: email, Name: name, Password: password}.Normalize()
		if err != nil {
			checkProblems(t, err)
			return
		}
		if !utf8.ValidString(email) || !utf8.ValidString(name) || !utf8.ValidString(password) {
			t.Fatalf("accepted text that is not UTF-8: %q %q %q", email, name, password)
		}
		if !printable(su.Email) || !printable(su.Name) || !printable(su.Password) || strings.ContainsRune(su.Email, utf8.RuneError) {
			t.Fatalf("accepted text Postgres or a person cannot use: %+v", su)
		}
		if su.Email != strings.ToLower(strings.TrimSpace(email)) || su.Name != strings.TrimSpace(name) || su.Password != password {
			t.Fatalf("Normalize(%q, %q, %q) = %+v: changed more than case and spaces", email, name, password, su)
		}
		if n := utf8.RuneCountInString(password); n < auth.MinPasswordChars || len(password) > auth.MaxPasswordBytes ||
			strings.TrimSpace(password) == "" || auth.IsCommonPassword(password) {
			t.Fatalf("accepted a password the rules refuse: %q", password)
		}
		if again, err := su.Normalize(); err != nil || again != su {
			t.Fatalf("a normalized sign-up %+v normalizes to %+v, %v", su, again, err)
		}
	})
}

// checkProblems fails unless err is what Normalize documents: *FieldError
// values only, at most one per field, in the order email, name, password,
// each with a message.
func checkProblems(t *testing.T, err error) {
	t.Helper()
	if !auth.IsInvalid(err) {
		t.Fatalf("refusal %v is not a field error", err)
	}
	var all []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		all = joined.Unwrap()
	} else {
		all = []error{err}
	}
	order := map[string]int{"email": 1, "name": 2, "password": 3}
	last := 0
	for _, e := range all {
		fe, ok := e.(*auth.FieldError) //nolint:errorlint // the joined errors themselves, unwrapped
		if !ok {
			t.Fatalf("refusal %v holds %T, not a *FieldError", err, e)
		}
		if order[fe.Field] <= last || fe.Message == "" {
			t.Fatalf("refusal %v: field %q out of order, twice, unknown or without a message", err, fe.Field)
		}
		last = order[fe.Field]
	}
	if len(auth.Problems(err)) != len(all) {
		t.Fatalf("Problems(%v) = %v, want all %d", err, auth.Problems(err), len(all))
	}
}

// FuzzCheckPassword: a password is refused with one *FieldError for
// "password", or meets every rule; the common list ignores the case of
// ASCII letters and the spaces around.
func FuzzCheckPassword(f *testing.F) {
	f.Add("correct horse", "ada@example.com", "Ada")
	f.Add("Password", "ada@example.com", "Ada")
	f.Fuzz(func(t *testing.T, password, email, name string) {
		err := auth.CheckPassword(password, email, name)
		if err != nil {
			fe, ok := err.(*auth.FieldError) //nolint:errorlint // one *FieldError, not one wrapped
			if !ok || fe.Field != "password" || fe.Message == "" {
				t.Fatalf("CheckPassword(%q) = %#v, want one *FieldError for password", password, err)
			}
		} else {
			trimmed := strings.TrimSpace(password)
			local, _, _ := strings.Cut(strings.TrimSpace(email), "@")
			switch {
			case !printable(password):
				t.Fatalf("accepted %q: not printable", password)
			case utf8.RuneCountInString(password) < auth.MinPasswordChars, len(password) > auth.MaxPasswordBytes:
				t.Fatalf("accepted %q: %d characters, %d bytes", password, utf8.RuneCountInString(password), len(password))
			case trimmed == "", auth.IsCommonPassword(password):
				t.Fatalf("accepted %q: only spaces or common", password)
			case strings.EqualFold(trimmed, strings.TrimSpace(email)), local != "" && strings.EqualFold(trimmed, local),
				strings.EqualFold(trimmed, strings.TrimSpace(name)):
				t.Fatalf("accepted %q as the password of %q, %q", password, email, name)
			}
		}
		if isASCII(password) {
			upper, lower := strings.ToUpper(password), strings.ToLower(password)
			if auth.IsCommonPassword(upper) != auth.IsCommonPassword(lower) || auth.IsCommonPassword(" "+password+" ") != auth.IsCommonPassword(password) {
				t.Fatalf("the common list tells %q from another case or its spaces", password)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FuzzValidEmailText: an address login may look up (and sign-up may
// lower-case) is text that lower-casing cannot merge with a repaired one:
// valid UTF-8 before and after, with no U+FFFD and no control character.
func FuzzValidEmailText(f *testing.F) {
	f.Add("Ada@Example.com")
	f.Fuzz(func(t *testing.T, email string) {
		if !auth.ValidEmailText(email) {
			return
		}
		lower := strings.ToLower(email)
		for _, s := range []string{email, lower} {
			if !printable(s) || strings.ContainsRune(s, utf8.RuneError) {
				t.Fatalf("ValidEmailText(%q): %q would reach the database", email, s)
			}
		}
	})
}
