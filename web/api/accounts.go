package api

import (
	"errors"
	"net/http"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"

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

// Signup creates an account and signs it in.
func (s *Handlers) Signup(c echo.Context) error {
	var req struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Name     string `json:"name"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	u, err := s.Accounts.SignUp(c.Request().Context(), auth.SignUp{Email: req.Email, Password: req.Password, Name: req.Name})
	if err != nil {
		return err
	}
	if err := s.Sessions.SignIn(c, u.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, userView(u))
}

// Login signs an account in. A wrong password and an unknown email get the
// same answer, in about the same time.
func (s *Handlers) Login(c echo.Context) error {
	var req struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	u, err := s.Accounts.LogIn(c.Request().Context(), req.Email, req.Password)
	if err != nil {
		return err
	}
	if err := s.Sessions.SignIn(c, u.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, userView(u))
}

// Logout ends the caller's session, if any.
func (s *Handlers) Logout(c echo.Context) error {
	if err := web.DecodeJSON(c, &struct{}{}, false); err != nil {
		return err
	}
	if err := s.Sessions.End(c); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// Me returns the signed-in account.
func (s *Handlers) Me(c echo.Context) error {
	u, err := s.Store.User(c.Request().Context(), session.UserID(c))
	if errors.Is(err, booking.ErrNotFound) {
		// The account behind a live session is gone.
		return problem.ErrUnauthenticated
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, userView(u))
}
