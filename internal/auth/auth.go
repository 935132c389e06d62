// Package auth owns accounts: who a user is, and how a password is checked.
// Sessions are server-side (see web), stored in Postgres.
package auth

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// Role decides what a user may administer.
type Role string

const (
	RoleMoviegoer     Role = "moviegoer"
	RoleTheatreAdmin  Role = "theatre_admin"
	RolePlatformAdmin Role = "platform_admin"
)

// User is an account.
type User struct {
	ID    string
	Email string
	Name  string
	Role  Role
}

// Hasher hashes and checks passwords with bcrypt at a fixed cost.
type Hasher struct{ Cost int }

// DefaultHasher uses bcrypt's default cost.
var DefaultHasher = Hasher{Cost: bcrypt.DefaultCost}

// Hash returns the bcrypt hash of password.
func (h Hasher) Hash(password string) (string, error) {
	b, err := bcrypt.GenerateFromPassword([]byte(password), h.Cost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(b), nil
}

// Check reports whether password matches hash.
func (h Hasher) Check(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// SignUp is a request to create an account.
type SignUp struct {
	Email    string
	Password string
	Name     string
}

// ErrInvalid describes a sign-up a person must correct.
type ErrInvalid struct{ Field, Message string }

func (e *ErrInvalid) Error() string { return e.Field + ": " + e.Message }

// Normalize validates a sign-up and returns it with the email lower-cased
// and the name trimmed.
func (s SignUp) Normalize() (SignUp, error) {
	s.Email = strings.ToLower(strings.TrimSpace(s.Email))
	s.Name = strings.TrimSpace(s.Name)
	if a, err := mail.ParseAddress(s.Email); err != nil || a.Address != s.Email || len(s.Email) > 254 {
		return s, &ErrInvalid{Field: "email", Message: "enter a valid email address"}
	}
	if s.Name == "" || len([]rune(s.Name)) > 100 {
		return s, &ErrInvalid{Field: "name", Message: "enter your name (up to 100 characters)"}
	}
	if len(s.Password) < 8 {
		return s, &ErrInvalid{Field: "password", Message: "use at least 8 characters"}
	}
	if len(s.Password) > 72 {
		// bcrypt reads only 72 bytes; a longer password would be silently truncated.
		return s, &ErrInvalid{Field: "password", Message: "use at most 72 characters"}
	}
	return s, nil
}

// IsInvalid reports whether err is a sign-up a person must correct.
func IsInvalid(err error) bool {
	var e *ErrInvalid
	return errors.As(err, &e)
}
