// Package accounts signs moviegoers up and in, for the JSON API and the
// pages alike, below HTTP: sessions are the web layer's.
package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Service is the accounts use case on a store.
type Service struct {
	store  *postgres.Store
	hasher auth.Hasher
	// dummyHash is checked against when a login names no account, so that
	// the answer takes as long as a wrong password.
	dummyHash string
}

// New returns the accounts service hashing passwords with hasher.
func New(store *postgres.Store, hasher auth.Hasher) (*Service, error) {
	hash, err := hasher.Hash("not a password: equalizes login timing")
	if err != nil {
		// Only an invalid cost fails here: a wiring mistake.
		return nil, fmt.Errorf("accounts: %w", err)
	}
	return &Service{store: store, hasher: hasher, dummyHash: hash}, nil
}

// SignUp creates a moviegoer's account. Its errors: *auth.FieldError (one
// per field at fault, see auth.Problems), auth.ErrEmailTaken.
func (s *Service) SignUp(ctx context.Context, su auth.SignUp) (auth.User, error) {
	su, err := su.Normalize()
	if err != nil {
		return auth.User{}, err
	}
	hash, err := s.hasher.Hash(su.Password)
	if err != nil {
		return auth.User{}, err
	}
	return s.store.CreateUser(ctx, su.Email, su.Name, hash, auth.RoleMoviegoer)
}

// LogIn returns the account of email if password is its own. A field left
// empty is an *auth.FieldError (both, joined, when both are); a wrong
// password and an unknown email are auth.ErrBadCredentials alike, in
// about the same time.
func (s *Service) LogIn(ctx context.Context, email, password string) (auth.User, error) {
	email = strings.TrimSpace(email)
	var empty []error
	if email == "" {
		empty = append(empty, &auth.FieldError{Field: "email", Message: "enter your email address"})
	}
	if password == "" {
		empty = append(empty, &auth.FieldError{Field: "password", Message: "enter your password"})
	}
	if len(empty) > 0 {
		return auth.User{}, errors.Join(empty...)
	}
	var (
		u    auth.User
		hash string
		err  error
	)
	if !auth.ValidEmailText(email) || len(email) > 254 {
		// No account has such an address; and one with bytes that are not
		// UTF-8 must not be lower-cased into another's (every invalid byte
		// becomes U+FFFD).
		err = booking.ErrNotFound
	} else {
		u, hash, err = s.store.UserByEmail(ctx, email)
	}
	switch {
	case errors.Is(err, booking.ErrNotFound):
		s.hasher.Check(s.dummyHash, password)
		return auth.User{}, auth.ErrBadCredentials
	case err != nil:
		return auth.User{}, err
	case !s.hasher.Check(hash, password):
		return auth.User{}, auth.ErrBadCredentials
	}
	return u, nil
}
