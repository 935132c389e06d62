package web

import (
	"errors"
	"net/http"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
)

type userJSON struct {
	UserID string `json:"user_id"`
	Email  string `json:"email"`
	Name   string `json:"name"`
}

func userView(u auth.User) userJSON {
	return userJSON{UserID: u.ID, Email: u.Email, Name: u.Name}
}

// signup creates an account and signs it in.
func (s *server) signup(c echo.Context) error {
	var req struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Name     string `json:"name"`
	}
	if err := decodeJSON(c, &req, true); err != nil {
		return err
	}
	su, err := auth.SignUp{Email: req.Email, Password: req.Password, Name: req.Name}.Normalize()
	if err != nil {
		return err
	}
	hash, err := s.hasher.Hash(su.Password)
	if err != nil {
		return err
	}
	u, err := s.store.CreateUser(c.Request().Context(), su.Email, su.Name, hash, auth.RoleMoviegoer)
	if err != nil {
		return err
	}
	if err := s.signIn(c, u.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, userView(u))
}

// login signs an account in. A wrong password and an unknown email get the
// same answer, in about the same time.
func (s *server) login(c echo.Context) error {
	var req struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := decodeJSON(c, &req, true); err != nil {
		return err
	}
	var (
		u    auth.User
		hash string
		err  error
	)
	if hasControl(req.Email) || len(req.Email) > 254 {
		err = booking.ErrNotFound // no account has such an address
	} else {
		u, hash, err = s.store.UserByEmail(c.Request().Context(), req.Email)
	}
	switch {
	case errors.Is(err, booking.ErrNotFound):
		s.hasher.Check(s.dummyHash, req.Password)
		return errBadCredentials
	case err != nil:
		return err
	case !s.hasher.Check(hash, req.Password):
		return errBadCredentials
	}
	if err := s.signIn(c, u.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, userView(u))
}

// logout ends the caller's session, if any.
func (s *server) logout(c echo.Context) error {
	if err := decodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	if err := s.sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	if err := s.saveSession(c); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// me returns the signed-in account.
func (s *server) me(c echo.Context) error {
	u, err := s.store.User(c.Request().Context(), userID(c))
	if errors.Is(err, booking.ErrNotFound) {
		// The account behind a live session is gone.
		return errUnauthenticated
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, userView(u))
}
