package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// Accounts as pages: sign up, log in, log out. They share the store and
// session code of the JSON API (accounts.go, sessions.go); a sign-in always
// starts a new session token and a new CSRF token.

// loginPage shows the login form; a signed-in visitor goes on to next.
func (s *server) loginPage(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if userID(c) != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return render(c, http.StatusOK, components.LoginPage(s.meta(c, "Log in"), components.AccountForm{Next: next}))
}

// loginSubmit signs in and goes on to next. A wrong password and an unknown
// email get the same answer, in about the same time.
func (s *server) loginSubmit(c echo.Context) error {
	email, password := c.FormValue("email"), c.FormValue("password")
	f := components.AccountForm{Next: safeNext(c.FormValue("next")), Email: email}
	var (
		u    auth.User
		hash string
		err  error
	)
	if hasControl(email) || len(email) > 254 || email == "" {
		err = booking.ErrNotFound
	} else {
		u, hash, err = s.store.UserByEmail(c.Request().Context(), email)
	}
	ok := false
	switch {
	case errors.Is(err, booking.ErrNotFound):
		s.hasher.Check(s.dummyHash, password)
	case err != nil:
		return err
	default:
		ok = s.hasher.Check(hash, password)
	}
	if !ok {
		f.Error = "Wrong email or password."
		f.Fields = map[string]string{"email": f.Error}
		return render(c, http.StatusUnauthorized, components.LoginPage(s.meta(c, "Log in"), f))
	}
	if err := s.signInPage(c, u.ID); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, f.Next)
}

// signInPage starts a new session for userID (a new token: see signIn) and
// gives the browser a new CSRF token too.
func (s *server) signInPage(c echo.Context, userID string) error {
	if err := s.signIn(c, userID); err != nil {
		return err
	}
	s.issueCSRF(c)
	return nil
}

func (s *server) signupPage(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if userID(c) != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return render(c, http.StatusOK, components.SignupPage(s.meta(c, "Sign up"), components.AccountForm{Next: next}))
}

// signupSubmit creates an account, signs it in and goes on to next.
func (s *server) signupSubmit(c echo.Context) error {
	f := components.AccountForm{
		Next: safeNext(c.FormValue("next")), Email: c.FormValue("email"), Name: c.FormValue("name"),
	}
	fail := func(field, msg string) error {
		f.Fields = map[string]string{field: msg}
		f.Error = "Please fix the highlighted field."
		return render(c, http.StatusUnprocessableEntity, components.SignupPage(s.meta(c, "Sign up"), f))
	}
	if hasControl(f.Email) {
		return fail("email", "Enter a valid email address.")
	}
	if hasControl(f.Name) {
		return fail("name", "Enter your name without control characters.")
	}
	su, err := auth.SignUp{Email: f.Email, Password: c.FormValue("password"), Name: f.Name}.Normalize()
	var invalid *auth.ErrInvalid
	if errors.As(err, &invalid) {
		return fail(invalid.Field, sentence(invalid.Message))
	}
	if err != nil {
		return err
	}
	hash, err := s.hasher.Hash(su.Password)
	if err != nil {
		return err
	}
	u, err := s.store.CreateUser(c.Request().Context(), su.Email, su.Name, hash, auth.RoleMoviegoer)
	if errors.Is(err, booking.ErrEmailTaken) {
		f.Fields = map[string]string{"email": "An account with this email already exists."}
		f.Error = "An account with this email already exists. Log in instead."
		return render(c, http.StatusConflict, components.SignupPage(s.meta(c, "Sign up"), f))
	}
	if err != nil {
		return err
	}
	if err := s.signInPage(c, u.ID); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, f.Next)
}

// logoutSubmit ends the session and goes home.
func (s *server) logoutSubmit(c echo.Context) error {
	if err := s.sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	if err := s.saveSession(c); err != nil {
		return err
	}
	s.issueCSRF(c)
	return seeOther(c, "/")
}
