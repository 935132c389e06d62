package auth_test

import (
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/marquee-tickets/marquee/internal/auth"
)

func TestSignUpNormalize(t *testing.T) {
	got, err := auth.SignUp{Email: "  Ada@Example.COM ", Password: "correct horse", Name: " Ada "}.Normalize()
	if err != nil || got.Email != "ada@example.com" || got.Name != "Ada" {
		t.Fatalf("got %+v, %v", got, err)
	}
	for name, s := range map[string]auth.SignUp{
		"email":          {Email: "not-an-email", Password: "correct horse", Name: "A"},
		"display email":  {Email: "Ada <ada@example.com>", Password: "correct horse", Name: "A"},
		"name":           {Email: "a@example.com", Password: "correct horse", Name: "  "},
		"short password": {Email: "a@example.com", Password: "short", Name: "A"},
		"long password":  {Email: "a@example.com", Password: strings.Repeat("x", 73), Name: "A"},
	} {
		if _, err := s.Normalize(); !auth.IsInvalid(err) {
			t.Errorf("%s: err = %v, want invalid", name, err)
		}
	}
	t.Run("every field at fault is reported at once", func(t *testing.T) {
		_, err := auth.SignUp{Email: "nope", Password: "short", Name: "A\x00"}.Normalize()
		var fields []string
		for _, p := range auth.Problems(err) {
			fields = append(fields, p.Field)
		}
		if strings.Join(fields, ",") != "email,name,password" {
			t.Fatalf("problems of %v: %v, want email, name and password", err, fields)
		}
		_, err = auth.SignUp{Email: "a@example.com", Password: "correct horse"}.Normalize()
		if p := auth.Problems(err); len(p) != 1 || p[0].Field != "name" {
			t.Fatalf("a sign-up without a name: %v", p)
		}
	})
}

func TestHasher(t *testing.T) {
	h := auth.Hasher{Cost: bcrypt.MinCost}
	hash, err := h.Hash("password123")
	if err != nil {
		t.Fatal(err)
	}
	if !h.Check(hash, "password123") || h.Check(hash, "password124") || h.Check("garbage", "password123") {
		t.Fatal("Check accepts the wrong password or rejects the right one")
	}
}
