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
		"email":          {Email: "not-an-email", Password: "password1", Name: "A"},
		"display email":  {Email: "Ada <ada@example.com>", Password: "password1", Name: "A"},
		"name":           {Email: "a@example.com", Password: "password1", Name: "  "},
		"short password": {Email: "a@example.com", Password: "short", Name: "A"},
		"long password":  {Email: "a@example.com", Password: strings.Repeat("x", 73), Name: "A"},
	} {
		if _, err := s.Normalize(); !auth.IsInvalid(err) {
			t.Errorf("%s: err = %v, want invalid", name, err)
		}
	}
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
