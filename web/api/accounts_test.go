package api_test

import (
	"net/http"
	"strings"
	"testing"

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
