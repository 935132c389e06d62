package auth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
)

func TestCheckPassword(t *testing.T) {
	const email, name = "ada.lovelace@example.com", "Ada Lovelace"
	for _, tc := range []struct {
		name, password string
		want           string // a part of the message; "" = accepted
	}{
		{"a passphrase", "correct horse", ""},
		{"eight characters", "tr0ub4dor", ""},
		{"spaces inside", "  lights on  ", ""},
		{"eight accented characters", "éàüöçñøå", ""},
		{"eight characters of four bytes", strings.Repeat("🎬", 8), ""},
		{"72 bytes", strings.Repeat("ab", 36), ""},
		{"the email with more", "ada.lovelace@example.com!", ""},

		{"empty", "", "at least 8 characters"},
		{"seven characters", "abcdefg", "at least 8 characters"},
		{"seven accented characters, 14 bytes", "éàüöçñø", "at least 8 characters"},
		{"73 bytes", strings.Repeat("ab", 36) + "c", "at most 72 characters"},
		{"19 emoji, 76 bytes", strings.Repeat("🎬", 19), "at most 72 characters"},
		{"eight spaces", "        ", "more than spaces"},
		{"eight no-break and ideographic spaces", "\u00a0\u3000\u00a0\u3000\u00a0\u3000\u00a0\u3000", "more than spaces"},
		{"12345678", "12345678", "most common"},
		{"password", "password", "most common"},
		{"password, shouted", "PASSWORD", "most common"},
		{"password, mixed case", "PassWord", "most common"},
		{"password with spaces around", " password ", "most common"},
		{"password1", "password1", "most common"},
		{"qwertyuiop", "qwertyuiop", "most common"},
		{"iloveyou", "iloveyou", "most common"},
		{"the email", email, "email address or your name"},
		{"the email, shouted", strings.ToUpper(email), "email address or your name"},
		{"the email's local part", "Ada.Lovelace", "email address or your name"},
		{"the name", name, "email address or your name"},
		{"the name, lower case", "ada lovelace", "email address or your name"},
		{"a NUL", "correct\x00horse", "letters, digits, spaces and symbols"},
		{"a tab", "correct\thorse", "letters, digits, spaces and symbols"},
		{"a newline", "correct horse\n", "letters, digits, spaces and symbols"},
		{"invalid UTF-8", "correct \xff horse", "letters, digits, spaces and symbols"},
		{"a lone surrogate's bytes", "correct \xed\xa0\x80 horse", "letters, digits, spaces and symbols"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := auth.CheckPassword(tc.password, email, name)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *auth.FieldError
			if !errors.As(err, &fe) || fe.Field != "password" || !strings.Contains(fe.Message, tc.want) {
				t.Fatalf("err = %v, want a password error saying %q", err, tc.want)
			}
		})
	}
}

func TestCommonPasswordList(t *testing.T) {
	for _, p := range []string{"password", "12345678", "baseball", "trustno1", "1qaz2wsx3edc"} {
		if !auth.IsCommonPassword(p) {
			t.Errorf("%q is not in the list", p)
		}
	}
	for _, p := range []string{"correct horse", "", "1234567", "marquee tickets at eight"} {
		if auth.IsCommonPassword(p) {
			t.Errorf("%q is in the list", p)
		}
	}
}

// Every rule is applied at sign-up, each field's problem named at once.
func TestSignUpPasswordRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		su   auth.SignUp
		want []string // fields at fault
	}{
		{"a common password", auth.SignUp{Email: "a@example.com", Name: "A", Password: "12345678"}, []string{"password"}},
		{"eight spaces", auth.SignUp{Email: "a@example.com", Name: "A", Password: "        "}, []string{"password"}},
		{"the email as password", auth.SignUp{Email: " Someone@Example.com ", Name: "A", Password: "someone@example.com"}, []string{"password"}},
		{"the name as password", auth.SignUp{Email: "a@example.com", Name: " Margaret Hamilton ", Password: "margaret hamilton"}, []string{"password"}},
		{"a bad email and a common password", auth.SignUp{Email: "nope", Name: "A", Password: "password"}, []string{"email", "password"}},
		{"all three", auth.SignUp{Email: "\xff@example.com", Name: "\xfe", Password: "\xfc\xfc\xfc\xfc\xfc\xfc\xfc\xfc"}, []string{"email", "name", "password"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.su.Normalize()
			var got []string
			for _, p := range auth.Problems(err) {
				got = append(got, p.Field)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("problems of %v: %v, want %v", err, got, tc.want)
			}
		})
	}
}

// Bytes that are not UTF-8 are refused, never repaired into U+FFFD: two
// different invalid addresses must not become one account.
func TestSignUpRefusesInvalidText(t *testing.T) {
	for _, email := range []string{"\xff@example.com", "\xfe@example.com", "\xfc@example.com", "a\xc0\x80@example.com",
		"\ufffd@example.com", "a\x00@example.com", "a\u0085@example.com"} {
		_, err := auth.SignUp{Email: email, Name: "A", Password: "correct horse"}.Normalize()
		if p := auth.Problems(err); len(p) != 1 || p[0].Field != "email" {
			t.Errorf("email %q: %v, want the email refused", email, err)
		}
	}
	for _, name := range []string{"\xff\xfe", "Ada\x00", "Ada\u009b", "Ada\nLovelace"} {
		_, err := auth.SignUp{Email: "a@example.com", Name: name, Password: "correct horse"}.Normalize()
		if p := auth.Problems(err); len(p) != 1 || p[0].Field != "name" {
			t.Errorf("name %q: %v, want the name refused", name, err)
		}
	}
}

func TestNormalizeIdentity(t *testing.T) {
	su, err := auth.SignUp{Email: " Grace@Example.com ", Name: " Grace "}.NormalizeIdentity()
	if err != nil || su.Email != "grace@example.com" || su.Name != "Grace" {
		t.Fatalf("got %+v, %v", su, err)
	}
	if _, err := (auth.SignUp{Email: "nope", Name: ""}).NormalizeIdentity(); len(auth.Problems(err)) != 2 {
		t.Fatalf("problems = %v, want email and name", err)
	}
}
