package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// CreateUser adds an account with an already hashed password. An email
// already registered fails with auth.ErrEmailTaken.
func (s *Store) CreateUser(ctx context.Context, email, name, passwordHash string, role auth.Role) (auth.User, error) {
	u := auth.User{Email: strings.ToLower(email), Name: name, Role: role}
	err := s.pool.QueryRow(ctx, `
		INSERT INTO users (email, name, password_hash, role) VALUES ($1, $2, $3, $4) RETURNING id::text`,
		u.Email, name, passwordHash, role).Scan(&u.ID)
	if code, constraint := pgCode(err); code == codeUniqueViolation && constraint == "users_email_key" {
		return u, auth.ErrEmailTaken
	}
	if err != nil {
		return u, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

// UserByEmail returns the account registered under email and its password hash.
func (s *Store) UserByEmail(ctx context.Context, email string) (auth.User, string, error) {
	var u auth.User
	var hash string
	if strings.ContainsRune(email, 0) {
		return u, "", booking.ErrNotFound // Postgres text cannot hold NUL: no such account
	}
	err := s.pool.QueryRow(ctx, `
		SELECT id::text, email, name, role, password_hash FROM users WHERE email = $1`,
		strings.ToLower(strings.TrimSpace(email))).Scan(&u.ID, &u.Email, &u.Name, &u.Role, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, "", booking.ErrNotFound
	}
	if err != nil {
		return u, "", fmt.Errorf("read user: %w", err)
	}
	return u, hash, nil
}

// User returns the account with id.
func (s *Store) User(ctx context.Context, id string) (auth.User, error) {
	var u auth.User
	if !validID(id) {
		return u, booking.ErrNotFound
	}
	err := s.pool.QueryRow(ctx, `SELECT id::text, email, name, role FROM users WHERE id = $1`, id).
		Scan(&u.ID, &u.Email, &u.Name, &u.Role)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, booking.ErrNotFound
	}
	if err != nil {
		return u, fmt.Errorf("read user: %w", err)
	}
	return u, nil
}
