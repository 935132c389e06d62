package readable

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
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
		if got := [2]bool{String(s, false), String(s, true)}; got != want {
			t.Errorf("String(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzReadableText: a request goes through Requests to its handler, which
// then reads nothing but readable text, its form body exactly as it was
// sent; or it is refused with an *Error (which the server answers 400
// invalid_text) and the handler never runs. Printable ASCII is never
// refused.
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
	e.Use(Requests(Config{Headers: []string{"Idempotency-Key"}}))
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
			var unreadable *Error
			if !errors.As(refused, &unreadable) || ran {
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
