package web

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/payment"
)

// A request's text must be text: valid UTF-8 without control characters,
// but for the tabs and line breaks of a text area in form fields and JSON
// strings. Percent-escapes in a path, a query or a form decode into any
// bytes at all, and nobody typed %FF or %00. Let through, such bytes either
// reach Postgres, which refuses NUL and invalid UTF-8 in text (an internal
// error, 500), or are "repaired" on the way: strings.ToLower and
// encoding/json turn every invalid byte into U+FFFD, so that "\xff@x" and
// "\xfe@x" would be one and the same account. They are refused instead,
// before anything is read or changed, with 400 invalid_text.

// errInvalidText refuses a request with unreadable text; in says where
// (path, query, form, body or header).
var errInvalidText = NewError(http.StatusBadRequest, "invalid_text",
	"This request contains characters we can't read. Check what you typed, or the link you followed, and try again.")

// textHeaders are the request headers whose values are read as text (an
// Idempotency-Key is stored; a signature is parsed).
var textHeaders = []string{"Idempotency-Key", payment.SignatureHeader}

// invalidText is errInvalidText for in, naming the param, field or header
// at fault as detail key when its name is readable.
func invalidText(in, key, name string) *Error {
	e := errInvalidText.With("in", in)
	if name != "" && readable(name, false) {
		e = e.With(key, name)
	}
	return e
}

// readable reports whether s is valid UTF-8 without control characters;
// lines allows tabs, line feeds and carriage returns.
func readable(s string, lines bool) bool {
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b < 0x20 || b == 0x7f {
				if !lines || (b != '\t' && b != '\n' && b != '\r') {
					return false
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unicode.IsControl(r) {
			return false
		}
		i += size
	}
	return true
}

// readableText refuses, with 400 invalid_text, a request whose decoded
// path, path parameters, query, text headers or form fields are not
// readable text (JSON bodies are checked where they are decoded, see
// ParseJSON). A form body is read here and put back as it was, for the
// handler to read as if nothing had happened.
func readableText(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if !readable(req.URL.Path, false) {
			return invalidText("path", "", "")
		}
		for i, v := range c.ParamValues() {
			if !readable(v, false) {
				var name string
				if names := c.ParamNames(); i < len(names) {
					name = names[i]
				}
				return invalidText("path", "param", name)
			}
		}
		if key, found := unreadableIn(c.QueryParams(), false); found {
			return invalidText("query", "param", key)
		}
		for _, h := range textHeaders {
			for _, v := range req.Header.Values(h) {
				// A tab is whitespace in a header (RFC 9110), left to the
				// header's own check; Go's server refuses other ASCII
				// control characters itself.
				if !readable(strings.ReplaceAll(v, "\t", " "), false) {
					return invalidText("header", "header", h)
				}
			}
		}
		if c.Path() != PosterRoute { // its handler caps its body itself
			if err := readableForm(req); err != nil {
				return err
			}
		}
		return next(c)
	}
}

// unreadableIn finds a key of vs that is not readable, or whose values
// are not: found, and the key if it is readable itself ("" if not).
func unreadableIn(vs url.Values, lines bool) (key string, found bool) {
	for k, values := range vs {
		if !readable(k, false) {
			return "", true
		}
		for _, v := range values {
			if !readable(v, lines) {
				return k, true
			}
		}
	}
	return "", false
}

// readableForm checks the fields of a URL-encoded or multipart form body,
// files aside, and puts the body back. A body that is not a well-formed
// form is left for the handler to refuse its own way.
func readableForm(req *http.Request) error {
	// A type that cannot be parsed is no form (a bad parameter leaves no
	// boundary, so no part can be read either).
	mt, params, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if (mt != echo.MIMEApplicationForm && mt != echo.MIMEMultipartForm) || req.Body == nil {
		return nil
	}
	body, err := readAll(req.Body)
	if err != nil {
		return err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	var (
		key   string
		found bool
	)
	if mt == echo.MIMEApplicationForm {
		// Malformed pairs are dropped, as the handler's own parse does.
		vs, _ := url.ParseQuery(string(body))
		key, found = unreadableIn(vs, true)
	} else {
		key, found = unreadablePart(multipart.NewReader(bytes.NewReader(body), params["boundary"]))
	}
	if found {
		return invalidText("form", "field", key)
	}
	return nil
}

// unreadablePart finds a field of a multipart form whose name or value is
// not readable: found, and its name if readable. It reads up to the first
// part it cannot read, where the handler's own parse fails too.
func unreadablePart(mr *multipart.Reader) (name string, found bool) {
	for {
		part, err := mr.NextPart()
		if err != nil {
			return "", false // the end, or a form the handler will fail to read
		}
		name := part.FormName()
		if !readable(name, false) {
			return "", true
		}
		if part.FileName() != "" {
			continue // a file's bytes are its own
		}
		value, err := io.ReadAll(part)
		if err != nil {
			return "", false
		}
		if !readable(string(value), true) {
			return name, true
		}
	}
}
