package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

var (
	errNotJSON = NewError(http.StatusUnsupportedMediaType, "unsupported_media_type",
		"Send the request body as JSON, with Content-Type: application/json.")
	errBodyRequired = NewError(http.StatusBadRequest, "body_required", "This request needs a JSON body.")
)

// ReadBody reads the whole request body, which BodyLimit caps.
func ReadBody(c echo.Context) ([]byte, error) {
	return readAll(c.Request().Body)
}

// readAll reads a request body, a refusal of the body limit as 413.
func readAll(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		var he *echo.HTTPError
		var mb *http.MaxBytesError
		if errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge || errors.As(err, &mb) {
			return nil, errBodyTooLarge
		}
		return nil, NewError(http.StatusBadRequest, "unreadable_body", "The request body could not be read.")
	}
	return body, nil
}

// DecodeJSON reads the request body into v: one JSON object with only the
// fields v has, sent as application/json. An empty body is refused when
// required, else it leaves v as it is (a POST without a body may send
// nothing or {}).
func DecodeJSON(c echo.Context, v any, required bool) error {
	body, err := ReadBody(c)
	if err != nil {
		return err
	}
	return ParseJSON(c.Request().Header.Get(echo.HeaderContentType), body, v, required)
}

func ParseJSON(contentType string, body []byte, v any, required bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		if required {
			return errBodyRequired
		}
		return nil
	}
	if mt, _, err := mime.ParseMediaType(contentType); err != nil || mt != echo.MIMEApplicationJSON {
		return errNotJSON
	}
	if !readableJSON(body) {
		return errInvalidText.With("in", "body")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badJSON(err)
	}
	if err := dec.Decode(&json.RawMessage{}); !errors.Is(err, io.EOF) {
		return NewError(http.StatusBadRequest, "malformed_json", "The body must hold one JSON object and nothing after it.")
	}
	return nil
}

// readableJSON reports whether the strings of a JSON body are readable
// text (see readable, lines allowed). encoding/json would take any bytes:
// it decodes invalid UTF-8 and lone surrogates (\ud800) as U+FFFD, and
// \u0000 as NUL. Raw control characters in a string, an unknown escape
// or a truncated one are syntax errors, left to the decoder to report.
func readableJSON(body []byte) bool {
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

// badJSON explains why a body could not be decoded.
func badJSON(err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return NewError(http.StatusBadRequest, "malformed_json",
			fmt.Sprintf("The body is not valid JSON (error at byte %d).", syntax.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return NewError(http.StatusBadRequest, "malformed_json", "The body is not valid JSON: it ends too early.")
	case errors.As(err, &typ) && typ.Field == "":
		return NewError(http.StatusBadRequest, "malformed_json", "The body must be a JSON object.")
	case errors.As(err, &typ):
		return NewError(http.StatusBadRequest, "invalid_field_type",
			fmt.Sprintf("Field %q must be %s.", typ.Field, kindName(typ.Type))).With("field", typ.Field)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return NewError(http.StatusBadRequest, "unknown_field",
			fmt.Sprintf("Field %q is not part of this request.", name)).With("field", name)
	}
	return NewError(http.StatusBadRequest, "malformed_json", "The body is not valid JSON.")
}

func kindName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number in range"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "of another type"
}
