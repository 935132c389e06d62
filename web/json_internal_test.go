package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/readable"
)

// The request bodies of sign-up, login and a hold, as their handlers
// declare them.
type (
	signupBody struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Name     string `json:"name"`
	}
	loginBody struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	holdBody struct {
		Seats []string `json:"seats"`
	}
)

// FuzzParseJSON: a body is refused with one of ParseJSON's 400s, or it
// decodes into strings that are readable text (not a repair of what was
// sent: a body that is not UTF-8 is always refused), which encode and
// decode again to the same.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"email":"ada@example.com","password":"correct horse","name":"Ada"}`))
	f.Add([]byte(`{"seats":["A1","A2"]}`))
	codes := map[string]bool{"body_required": true, "malformed_json": true, "invalid_field_type": true,
		"unknown_field": true, "invalid_text": true}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, v := range []any{&signupBody{}, &loginBody{}, &holdBody{}} {
			err := ParseJSON(echo.MIMEApplicationJSON, body, v, true)
			if err != nil {
				var ae *problem.Error
				if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || !codes[ae.Code] || ae.Message == "" {
					t.Fatalf("ParseJSON(%q) = %v: not a documented refusal", body, err)
				}
				continue
			}
			if !utf8.Valid(body) {
				t.Fatalf("accepted %q, which is not UTF-8", body)
			}
			for _, s := range stringsOf(v) {
				if !readable.String(s, true) {
					t.Fatalf("ParseJSON(%q) decoded the unreadable %q", body, s)
				}
			}
			again := reflect.New(reflect.TypeOf(v).Elem()).Interface()
			encoded, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if err := ParseJSON(echo.MIMEApplicationJSON, encoded, again, true); err != nil || !reflect.DeepEqual(v, again) {
				t.Fatalf("%q decoded to %+v, encoded as %s, decodes to %+v, %v", body, v, encoded, again, err)
			}
		}
	})
}

// stringsOf lists the strings a decoded body holds.
func stringsOf(v any) []string {
	switch b := v.(type) {
	case *signupBody:
		return []string{b.Email, b.Password, b.Name}
	case *loginBody:
		return []string{b.Email, b.Password}
	case *holdBody:
		return b.Seats
	}
	panic("unknown body")
}
