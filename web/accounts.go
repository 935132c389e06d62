package web

import (
	"errors"
	"net/http"

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
	u, err := s.accounts.SignUp(c.Request().Context(), auth.SignUp{Email: req.Email, Password: req.Password, Name: req.Name})
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
	u, err := s.accounts.LogIn(c.Request().Context(), req.Email, req.Password)
	if err != nil {
		return err
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
