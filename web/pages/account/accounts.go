package account

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/auth"
)

// Accounts as pages: sign up, log in, log out. They share the accounts use
// case and the session code with the JSON API; a sign-in always
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
	LoginForm = accountPage{title: "Log in", page: components.LoginPage, form: func(c echo.Context) components.AccountForm {
		return components.AccountForm{Next: web.SafeNext(c.FormValue("next")), Email: c.FormValue("email")}
	}}
	SignupForm = accountPage{title: "Sign up", page: components.SignupPage, form: func(c echo.Context) components.AccountForm {
		return components.AccountForm{Next: web.SafeNext(c.FormValue("next")), Email: c.FormValue("email"), Name: c.FormValue("name")}
	}}
)

// again answers with the page's form as sent, status and all.
func (s *Handlers) again(c echo.Context, p accountPage, status int, f components.AccountForm) error {
	return web.Render(c, status, p.page(s.Meta(c, p.title), f))
}

// LoginPage shows the login form; a signed-in visitor goes on to next.
func (s *Handlers) LoginPage(c echo.Context) error {
	next := web.SafeNext(c.QueryParam("next"))
	if session.UserID(c) != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return web.Render(c, http.StatusOK, components.LoginPage(s.Meta(c, LoginForm.title), components.AccountForm{Next: next}))
}

// LoginSubmit signs in and goes on to next. A wrong password and an unknown
// email get the same answer, in about the same time; a field left empty is
// named as such.
func (s *Handlers) LoginSubmit(c echo.Context) error {
	f := LoginForm.form(c)
	u, err := s.Accounts.LogIn(c.Request().Context(), c.FormValue("email"), c.FormValue("password"))
	if problems := auth.Problems(err); len(problems) > 0 {
		return s.fixForm(c, LoginForm, f, problems)
	}
	if errors.Is(err, auth.ErrBadCredentials) {
		f.Error = "Wrong email or password."
		return s.again(c, LoginForm, http.StatusUnauthorized, f)
	}
	if err != nil {
		return err
	}
	if err := s.signInPage(c, u.ID); err != nil {
		return err
	}
	// An admin who logged in from the home page (or with nowhere to go
	// back to) came to work: to the admin's dashboard.
	if f.Next == "/" && (u.Role == auth.RoleTheatreAdmin || u.Role == auth.RolePlatformAdmin) {
		f.Next = "/admin"
	}
	return c.Redirect(http.StatusSeeOther, f.Next)
}

// signInPage starts a new session for userID (a new token: see signIn) and
// gives the browser a new CSRF token too.
func (s *Handlers) signInPage(c echo.Context, userID string) error {
	if err := s.Sessions.SignIn(c, userID); err != nil {
		return err
	}
	s.IssueCSRF(c)
	return nil
}

func (s *Handlers) SignupPage(c echo.Context) error {
	next := web.SafeNext(c.QueryParam("next"))
	if session.UserID(c) != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return web.Render(c, http.StatusOK, components.SignupPage(s.Meta(c, SignupForm.title), components.AccountForm{Next: next}))
}

// SignupSubmit creates an account, signs it in and goes on to next.
func (s *Handlers) SignupSubmit(c echo.Context) error {
	f := SignupForm.form(c)
	u, err := s.Accounts.SignUp(c.Request().Context(), auth.SignUp{Email: f.Email, Password: c.FormValue("password"), Name: f.Name})
	if problems := auth.Problems(err); len(problems) > 0 {
		return s.fixForm(c, SignupForm, f, problems)
	}
	if errors.Is(err, auth.ErrEmailTaken) {
		f.Fields = map[string]string{"email": "This email already has an account: log in, or use another email."}
		f.Error = "An account with this email already exists."
		return s.again(c, SignupForm, http.StatusConflict, f)
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
func (s *Handlers) fixForm(c echo.Context, p accountPage, f components.AccountForm, problems []*auth.FieldError) error {
	f.Fields = make(map[string]string, len(problems))
	for _, p := range problems {
		f.Fields[p.Field] = problem.Sentence(p.Message)
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

// KeepForm is limit for an account form: a post it refuses gets its form
// back, with what was typed and how long to wait, instead of an error page.
func (s *Handlers) KeepForm(limit echo.MiddlewareFunc, p accountPage) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			reached := false
			err := limit(func(c echo.Context) error {
				reached = true
				return next(c)
			})(c)
			var ae *problem.Error
			if reached || !errors.As(err, &ae) || ae.Status != http.StatusTooManyRequests {
				return err
			}
			f := p.form(c)
			f.Error = "Too many attempts from your network. Please try again in a moment."
			if wait, _ := strconv.Atoi(ae.Header["Retry-After"]); wait > 0 {
				c.Response().Header().Set("Retry-After", strconv.Itoa(wait))
				f.Error = fmt.Sprintf("Too many attempts from your network. Please wait %s, then try again.", waitFor(wait))
			}
			return s.again(c, p, http.StatusTooManyRequests, f)
		}
	}
}

// waitFor says a wait of n seconds: in seconds up to two minutes, else in
// minutes, rounded up (sign-up refills one attempt every 20 minutes).
func waitFor(n int) string {
	switch {
	case n == 1:
		return "1 second"
	case n < 120:
		return strconv.Itoa(n) + " seconds"
	}
	return strconv.Itoa((n+59)/60) + " minutes"
}

// LogoutSubmit ends the session and goes home.
func (s *Handlers) LogoutSubmit(c echo.Context) error {
	if err := s.Sessions.End(c); err != nil {
		return err
	}
	s.IssueCSRF(c)
	return web.SeeOther(c, "/")
}
