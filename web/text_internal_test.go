package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

func TestReadable(t *testing.T) {
	for s, want := range map[string][2]bool{ // readable as a line, as lines
		"":                  {true, true},
		"Asha Rao":          {true, true},
		"बेंगलुरु":          {true, true},
		"🎬 \ufffd":          {true, true},
		"two\nlines\r\n\t.": {false, true},
		"\x00":              {false, false},
		"\x7f":              {false, false},
		"\u0085":            {false, false},
		"\xff":              {false, false},
		"\xc0\x80":          {false, false},
		"\xed\xa0\x80":      {false, false}, // a surrogate's bytes
		"ab\xe2\x82":        {false, false}, // cut short
	} {
		if got := [2]bool{readable(s, false), readable(s, true)}; got != want {
			t.Errorf("readable(%q) = %v, want %v", s, got, want)
		}
	}
}

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
				var ae *Error
				if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || !codes[ae.Code] || ae.Message == "" {
					t.Fatalf("ParseJSON(%q) = %v: not a documented refusal", body, err)
				}
				continue
			}
			if !utf8.Valid(body) {
				t.Fatalf("accepted %q, which is not UTF-8", body)
			}
			for _, s := range stringsOf(v) {
				if !readable(s, true) {
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

// FuzzReadableText: a request goes through readableText to its handler,
// which then reads nothing but readable text, its form body exactly as it
// was sent; or it is refused with invalid_text and the handler never runs.
// Printable ASCII is never refused.
func FuzzReadableText(f *testing.F) {
	f.Add("42", "city=pune&date=2026-01-01", "key-1", "email=a%40example.com&name=Asha+Rao", false)
	f.Add("%FF", "", "", "", false)
	// One server for every input: the handler reports to cur.
	type run struct {
		t       *testing.T
		body    []byte
		ran     bool
		refused error
	}
	var cur run
	e := echo.New()
	e.HTTPErrorHandler = func(err error, _ echo.Context) { cur.refused = err }
	e.Use(readableText)
	handler := func(c echo.Context) error {
		t := cur.t
		cur.ran = true
		got, err := io.ReadAll(c.Request().Body)
		if err != nil || !bytes.Equal(got, cur.body) {
			t.Fatalf("the handler read %q, not the body sent %q", got, cur.body)
		}
		c.Request().Body = io.NopCloser(bytes.NewReader(got))
		texts := slices.Concat(c.ParamValues(), []string{c.Request().URL.Path, c.Request().Header.Get("Idempotency-Key")})
		for k, vs := range c.QueryParams() {
			texts = append(texts, k)
			texts = append(texts, vs...)
		}
		fields, _ := c.FormParams()
		for k, vs := range fields {
			texts = append(texts, k)
			texts = append(texts, vs...)
		}
		for _, s := range texts {
			if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
				t.Fatalf("the handler read %q", s)
			}
		}
		return nil
	}
	e.POST("/things/:id", handler)
	e.POST("/things/*", handler)
	f.Fuzz(func(t *testing.T, segment, query, key, form string, multi bool) {
		if strings.Contains(segment, "/") {
			segment = url.PathEscape(segment)
		}
		var body []byte
		contentType := echo.MIMEApplicationForm
		if multi {
			fields, _ := url.ParseQuery(form)
			var buf bytes.Buffer
			w := multipart.NewWriter(&buf)
			for k, vs := range fields {
				for _, v := range vs {
					_ = w.WriteField(k, v)
				}
			}
			_ = w.Close()
			body, contentType = buf.Bytes(), w.FormDataContentType()
		} else {
			body = []byte(form)
		}
		path, err := url.PathUnescape(segment)
		if err != nil {
			return // no client sends it: Go's server answers 400 itself
		}
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.URL = &url.URL{Path: "/things/" + path, RawPath: "/things/" + segment, RawQuery: query}
		req.Header.Set(echo.HeaderContentType, contentType)
		req.Header.Set("Idempotency-Key", key)

		cur = run{t: t, body: body}
		e.ServeHTTP(httptest.NewRecorder(), req)
		refused, ran := cur.refused, cur.ran

		if refused != nil {
			var ae *Error
			if !errors.As(refused, &ae) || ae.Code != "invalid_text" || ae.Status != http.StatusBadRequest || ran {
				t.Fatalf("refused with %v (the handler ran: %v)", refused, ran)
			}
			if printableASCII(path) && printableASCII(query) && printableASCII(key) && printableASCII(form) && !strings.Contains(query+form, "%") {
				t.Fatalf("refused plain text: %q %q %q %q", path, query, key, form)
			}
		} else if !ran {
			t.Fatal("neither refused nor handled")
		}
	})
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
