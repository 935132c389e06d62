// Package auth owns accounts: who a user is, and how a password is checked.
// Sessions are server-side (see web), stored in Postgres.
package auth

import (
	"errors"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/marquee-tickets/marquee/internal/names"
	"golang.org/x/crypto/bcrypt"
)

// What an account's owner or an admin can run into. The web layer maps
// each to a status code and a message a person understands.
var (
	// ErrEmailTaken is a sign-up with the email of another account.
	ErrEmailTaken = errors.New("email already registered")
	// ErrBadCredentials is a log-in with a wrong password or an unknown
	// email: the two are one answer, so that it tells nobody which
	// accounts exist.
	ErrBadCredentials = errors.New("wrong email or password")
	// ErrUnknownAccount is a grant to an email no account has.
	ErrUnknownAccount = errors.New("no account with this email")
)

// Role decides what a user may administer.
type Role string

const (
	RoleMoviegoer     Role = "moviegoer"
	RoleTheatreAdmin  Role = "theatre_admin"
	RolePlatformAdmin Role = "platform_admin"
)

// StaffRole is what an account does for one theatre it works for (an
// account with any is a RoleTheatreAdmin). What each may do is decided by
// the admin package.
type StaffRole string

const (
	// StaffManager runs the theatre: places, schedule, prices, sales
	// figures and the theatre's staff.
	StaffManager StaffRole = "manager"
	// StaffBoxOffice sells at the counter, refunds one booking, resends a
	// ticket, and sees the shows' occupancy and attendees.
	StaffBoxOffice StaffRole = "box_office"
	// StaffUsher checks tickets in and sees the shows' occupancy.
	StaffUsher StaffRole = "usher"
)

// StaffRoles are the staff roles, most powerful first.
var StaffRoles = []StaffRole{StaffManager, StaffBoxOffice, StaffUsher}

// Valid reports whether r is a staff role.
func (r StaffRole) Valid() bool { return slices.Contains(StaffRoles, r) }

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

// FieldError names a field of a sign-up a person must correct.
type FieldError struct{ Field, Message string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Normalize validates a sign-up and returns it with the email lower-cased
// and the name trimmed. It reports every field at fault at once, so a
// person fixes them in one go: the error joins one *FieldError per field,
// in the order email, name, password (errors.As finds the first; Problems
// lists them all). The password follows CheckPassword.
//
// Text that is not valid UTF-8 is refused, never repaired: strings.ToLower
// and encoding/json turn every invalid byte into U+FFFD, so "\xff@x" and
// "\xfe@x" would both become the account "\ufffd@x".
func (s SignUp) Normalize() (SignUp, error) {
	s, problems := s.normalizeIdentity()
	if err := CheckPassword(s.Password, s.Email, s.Name); err != nil {
		problems = append(problems, err)
	}
	return s, errors.Join(problems...)
}

// NormalizeIdentity is Normalize without the password: the email and the
// name, for a caller that asks for the password later.
func (s SignUp) NormalizeIdentity() (SignUp, error) {
	s, problems := s.normalizeIdentity()
	return s, errors.Join(problems...)
}

func (s SignUp) normalizeIdentity() (SignUp, []error) {
	s.Email = strings.TrimSpace(s.Email)
	s.Name = strings.TrimSpace(s.Name)
	var problems []error
	bad := func(field, message string) { problems = append(problems, &FieldError{Field: field, Message: message}) }
	switch {
	case s.Email == "":
		bad("email", "enter your email address")
	case !ValidEmailText(s.Email):
		bad("email", "enter a valid email address, like name@example.com")
	default:
		s.Email = strings.ToLower(s.Email)
		if a, err := mail.ParseAddress(s.Email); err != nil || a.Address != s.Email || len(s.Email) > 254 {
			bad("email", "enter a valid email address, like name@example.com")
		}
	}
	switch {
	case s.Name == "":
		bad("name", "enter your name")
	case !utf8.ValidString(s.Name) || hasControl(s.Name):
		// NUL above all, which Postgres text cannot hold, and bytes that
		// are not UTF-8, which it refuses too.
		bad("name", "enter your name without control characters")
	case utf8.RuneCountInString(s.Name) > 100:
		bad("name", "enter your name in at most 100 characters")
	default:
		// Pasted text can carry a character nobody sees, or one that turns
		// the rest of the name around where staff and the door read it.
		if _, hidden := names.Hidden(s.Name); hidden {
			bad("name", "type your name again: it holds an invisible character, or one that reverses the text")
		}
	}
	return s, problems
}

// ValidEmailText reports whether email can be an address at all: valid
// UTF-8 without control characters or U+FFFD, the mark of bytes some
// layer could not read (no mailbox has it in its name). Only then may it
// be lower-cased and looked up.
func ValidEmailText(email string) bool {
	return utf8.ValidString(email) && !hasControl(email) && !strings.ContainsRune(email, utf8.RuneError)
}

// Problems lists each field of err a person must correct, in the order
// Normalize checks them; none if err is not about the sign-up's fields.
func Problems(err error) []*FieldError {
	var all []*FieldError
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			all = append(all, Problems(e)...)
		}
		return all
	}
	var one *FieldError
	if errors.As(err, &one) {
		all = append(all, one)
	}
	return all
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// IsInvalid reports whether err is a sign-up a person must correct.
func IsInvalid(err error) bool {
	var e *FieldError
	return errors.As(err, &e)
}
