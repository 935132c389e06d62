package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// A sign-up with several mistakes names them all: the code and field are
// the first's, as ever, and fields has every one.
func TestSignupReportsEveryField(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	r := e.Guest().Post("/api/v1/signup", map[string]string{"email": "nope", "password": "short", "name": " "})
	webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_email")
	if r.Str("field") != "email" {
		t.Fatalf("field = %q, want email", r.Str("field"))
	}
	fields, _ := r.JSON["fields"].(map[string]any)
	for field, want := range map[string]string{"email": "valid email", "name": "Enter your name", "password": "at least 8 characters"} {
		if got, _ := fields[field].(string); !strings.Contains(got, want) {
			t.Errorf("fields[%s] = %q, want it to say %q", field, got, want)
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM users WHERE email = 'nope'`); n != 0 {
		t.Fatal("an invalid sign-up made an account")
	}
}

// A name that holds a character nobody sees, or one that reverses the text
// after it, is refused in words a moviegoer understands; a name written in
// a script that needs a zero-width joiner keeps it.
func TestSignupNameCharacters(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	for _, name := range []string{"Ana \u202eevil", "Ana\u200b", "\ufeffAna"} {
		r := e.Guest().Post("/api/v1/signup", map[string]string{"email": "hidden@example.com", "password": "correct horse battery", "name": name})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_name")
		if msg := r.Str("message"); !strings.Contains(msg, "invisible character") || strings.Contains(msg, "U+") {
			t.Errorf("name %+q: message %q", name, msg)
		}
	}
	if n := e.Count(t, `SELECT count(*) FROM users WHERE email = 'hidden@example.com'`); n != 0 {
		t.Fatal("a refused sign-up made an account")
	}
	name := "ഷാന\u0d4d\u200d" // a chillu, written with a joiner after the virama
	r := e.Guest().Post("/api/v1/signup", map[string]string{"email": "shan@example.com", "password": "correct horse battery", "name": name})
	webtest.Want(t, r, http.StatusCreated)
	if got := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT name FROM users WHERE email = 'shan@example.com'`); got != name {
		t.Fatalf("stored the name %+q, want %+q", got, name)
	}
}

// A login with a field left empty is refused as the login page refuses it,
// naming each empty field, before any account is looked up.
func TestLoginRefusesEmptyFields(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	r := e.Guest().Post("/api/v1/login", map[string]string{"email": "  ", "password": ""})
	webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_email")
	fields, _ := r.JSON["fields"].(map[string]any)
	if fields["email"] != "Enter your email address." || fields["password"] != "Enter your password." {
		t.Fatalf("fields = %v, want email and password named", fields)
	}
	r = e.Guest().Post("/api/v1/login", map[string]string{"email": "someone@example.com", "password": ""})
	webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_password")
}
