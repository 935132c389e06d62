// Package readable refuses requests whose text is not text.
//
// A request's text must be valid UTF-8 without control characters, but for
// the tabs and line breaks of a text area in form fields and JSON strings.
// Percent-escapes in a path, a query or a form decode into any bytes at
// all, and nobody typed %FF or %00. Let through, such bytes either reach
// Postgres, which refuses NUL and invalid UTF-8 in text (an internal error,
// 500), or are "repaired" on the way: strings.ToLower and encoding/json
// turn every invalid byte into U+FFFD, so that "\xff@x" and "\xfe@x" would
// be one and the same account. They are refused instead, before anything
// is read or changed (Error, which the server answers 400 invalid_text).
package readable

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// Error is a request refused for text that is not readable. In says where
// (path, query, form, body or header); Name is the param, field or header
// at fault, of kind Key (param, field or header), when its name is readable
// itself.
type Error struct {
	In, Key, Name string
}

func (e *Error) Error() string {
	if e.Name == "" {
		return "unreadable text in the " + e.In
	}
	return fmt.Sprintf("unreadable text in the %s, %s %q", e.In, e.Key, e.Name)
}

// ErrUnreadableBody is a form body that could not be read (too large, or
// cut short), wrapped with what went wrong.
var ErrUnreadableBody = errors.New("the request body could not be read")

// unreadable is an Error in in, naming name as key when name is readable.
func unreadable(in, key, name string) *Error {
	if name == "" || !String(name, false) {
		return &Error{In: in}
	}
	return &Error{In: in, Key: key, Name: name}
}

// String reports whether s is valid UTF-8 without control characters;
// lines allows tabs, line feeds and carriage returns.
func String(s string, lines bool) bool {
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

// JSON reports whether the strings of a JSON body are readable text (see
// String, lines allowed). encoding/json would take any bytes: it decodes
// invalid UTF-8 and lone surrogates (\ud800) as U+FFFD, and \u0000 as NUL.
// Raw control characters in a string, an unknown escape or a truncated one
// are syntax errors, left to the decoder to report.
func JSON(body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	in := false // inside a string
	for i := 0; i < len(body); i++ {
		b := body[i]
		switch {
		case !in:
			in = b == '"'
		case b == '"':
			in = false
		case b == 0x7f:
			// DEL, a control character JSON lets a string carry raw (the
			// others below 0x20 are syntax errors).
			return false
		case b >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(body[i:])
			if unicode.IsControl(r) { // U+0080 to U+009F
				return false
			}
			i += size - 1
		case b == '\\' && i+1 < len(body):
			i++
			switch body[i] {
			case 'b', 'f':
				return false // backspace, form feed
			case 'u':
				r, ok := hex4(body[i+1:])
				if !ok {
					return true // a syntax error
				}
				i += 4
				switch {
				case utf16.IsSurrogate(r):
					// Only a high surrogate escaped and then a low one is a character.
					low, ok := rune(0), false
					if r < 0xdc00 && i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
						low, ok = hex4(body[i+3:])
					}
					if !ok || low < 0xdc00 || low > 0xdfff {
						return false
					}
					i += 6
				case r == '\t' || r == '\n' || r == '\r':
				case unicode.IsControl(r):
					return false
				}
			}
		}
	}
	return true
}

// hex4 reads the four hex digits of a \u escape at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(n), err == nil
}

// Config is what Requests checks beyond the path and the query.
type Config struct {
	// Headers are the request headers whose values are read as text (an
	// Idempotency-Key is stored; a signature is parsed).
	Headers []string
	// SkipForms are the routes whose handlers cap and check their bodies
	// themselves.
	SkipForms []string
}

// Requests refuses, with an *Error, a request whose decoded path, path
// parameters, query, text headers or form fields are not readable text
// (JSON bodies are checked where they are decoded, see JSON). A form body
// is read here and put back as it was, for the handler to read as if
// nothing had happened; one that cannot be read is ErrUnreadableBody.
func Requests(cfg Config) echo.MiddlewareFunc {
	skipForm := map[string]bool{}
	for _, r := range cfg.SkipForms {
		skipForm[r] = true
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if !String(req.URL.Path, false) {
				return unreadable("path", "", "")
			}
			for i, v := range c.ParamValues() {
				if !String(v, false) {
					var name string
					if names := c.ParamNames(); i < len(names) {
						name = names[i]
					}
					return unreadable("path", "param", name)
				}
			}
			if key, found := unreadableIn(c.QueryParams(), false); found {
				return unreadable("query", "param", key)
			}
			for _, h := range cfg.Headers {
				for _, v := range req.Header.Values(h) {
					// A tab is whitespace in a header (RFC 9110), left to the
					// header's own check; Go's server refuses other ASCII
					// control characters itself.
					if !String(strings.ReplaceAll(v, "\t", " "), false) {
						return unreadable("header", "header", h)
					}
				}
			}
			if !skipForm[c.Path()] {
				if err := readableForm(req); err != nil {
					return err
				}
			}
			return next(c)
		}
	}
}

// unreadableIn finds a key of vs that is not readable, or whose values
// are not: found, and the key if it is readable itself ("" if not).
func unreadableIn(vs url.Values, lines bool) (key string, found bool) {
	for k, values := range vs {
		if !String(k, false) {
			return "", true
		}
		for _, v := range values {
			if !String(v, lines) {
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
	if req.MultipartForm != nil {
		// Parsed already, as it came in (a large upload): its fields are
		// checked where they are, the body being read.
		if key, found := unreadableIn(url.Values(req.MultipartForm.Value), true); found {
			return unreadable("form", "field", key)
		}
		return nil
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnreadableBody, err)
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
		return unreadable("form", "field", key)
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
		if !String(name, false) {
			return "", true
		}
		if part.FileName() != "" {
			continue // a file's bytes are its own
		}
		value, err := io.ReadAll(part)
		if err != nil {
			return "", false
		}
		if !String(string(value), true) {
			return name, true
		}
	}
}
