package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// Accounts as pages: sign up, log in, log out. They share the store and
// session code of the JSON API (accounts.go, sessions.go); a sign-in always
// starts a new session token and a new CSRF token. A form sent with
// mistakes comes back with every one of them named at its field, and with
// what was typed (never the password).

// accountPage is the login or the sign-up page: its form as sent, and how
// it is drawn.
type accountPage struct {
	title string
	form  func(echo.Context) components.AccountForm
	page  func(components.Meta, components.AccountForm) templ.Component
}

var (
	loginPage = accountPage{title: "Log in", page: components.LoginPage, form: func(c echo.Context) components.AccountForm {
		return components.AccountForm{Next: safeNext(c.FormValue("next")), Email: c.FormValue("email")}
	}}
	signupPage = accountPage{title: "Sign up", page: components.SignupPage, form: func(c echo.Context) components.AccountForm {
		return components.AccountForm{Next: safeNext(c.FormValue("next")), Email: c.FormValue("email"), Name: c.FormValue("name")}
	}}
)

// again answers with the page's form as sent, status and all.
func (s *server) again(c echo.Context, p accountPage, status int, f components.AccountForm) error {
	return render(c, status, p.page(s.meta(c, p.title), f))
}

// loginPage shows the login form; a signed-in visitor goes on to next.
func (s *server) loginPage(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if userID(c) != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return render(c, http.StatusOK, components.LoginPage(s.meta(c, loginPage.title), components.AccountForm{Next: next}))
}

// loginSubmit signs in and goes on to next. A wrong password and an unknown
// email get the same answer, in about the same time; a field left empty is
// named as such.
func (s *server) loginSubmit(c echo.Context) error {
	f := loginPage.form(c)
	u, err := s.accounts.LogIn(c.Request().Context(), c.FormValue("email"), c.FormValue("password"))
	if problems := auth.Problems(err); len(problems) > 0 {
		return s.fixForm(c, loginPage, f, problems)
	}
	if errors.Is(err, booking.ErrBadCredentials) {
		f.Error = "Wrong email or password."
		return s.again(c, loginPage, http.StatusUnauthorized, f)
	}
	if err != nil {
		return err
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
	return render(c, http.StatusOK, components.SignupPage(s.meta(c, signupPage.title), components.AccountForm{Next: next}))
}

// signupSubmit creates an account, signs it in and goes on to next.
func (s *server) signupSubmit(c echo.Context) error {
	f := signupPage.form(c)
	u, err := s.accounts.SignUp(c.Request().Context(), auth.SignUp{Email: f.Email, Password: c.FormValue("password"), Name: f.Name})
	if problems := auth.Problems(err); len(problems) > 0 {
		return s.fixForm(c, signupPage, f, problems)
	}
	if errors.Is(err, booking.ErrEmailTaken) {
		f.Fields = map[string]string{"email": "This email already has an account: log in, or use another email."}
		f.Error = "An account with this email already exists."
		return s.again(c, signupPage, http.StatusConflict, f)
	}
	if err != nil {
		return err
	}
	if err := s.signInPage(c, u.ID); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, f.Next)
}

// fixForm answers with form f as sent, each of its problems named at its
// field.
func (s *server) fixForm(c echo.Context, p accountPage, f components.AccountForm, problems []*auth.ErrInvalid) error {
	f.Fields = make(map[string]string, len(problems))
	for _, p := range problems {
		f.Fields[p.Field] = sentence(p.Message)
	}
	f.Error = fixThese(len(problems))
	return s.again(c, p, http.StatusUnprocessableEntity, f)
}

// fixThese heads the list of a form's mistakes.
func fixThese(n int) string {
	if n == 1 {
		return "Please fix this to continue:"
	}
	return fmt.Sprintf("Please fix these %d things to continue:", n)
}

// keepForm is limit for an account form: a post it refuses gets its form
// back, with what was typed and how long to wait, instead of an error page.
func (s *server) keepForm(limit echo.MiddlewareFunc, p accountPage) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			reached := false
			err := limit(func(c echo.Context) error {
				reached = true
				return next(c)
			})(c)
			var ae *apiError
			if reached || !errors.As(err, &ae) || ae.Status != http.StatusTooManyRequests {
				return err
			}
			f := p.form(c)
			f.Error = "Too many attempts from your network. Please try again in a moment."
			if wait, _ := strconv.Atoi(ae.Header["Retry-After"]); wait > 0 {
				c.Response().Header().Set("Retry-After", strconv.Itoa(wait))
				f.Error = fmt.Sprintf("Too many attempts from your network. Please wait %s, then try again.", seconds(wait))
			}
			return s.again(c, p, http.StatusTooManyRequests, f)
		}
	}
}

func seconds(n int) string {
	if n == 1 {
		return "1 second"
	}
	return strconv.Itoa(n) + " seconds"
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
