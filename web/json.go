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
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/readable"
)

var errBodyRequired = problem.New(http.StatusBadRequest, "body_required", "This request needs a JSON body.")

// ReadBody reads the whole request body, which BodyLimit caps.
func ReadBody(c echo.Context) ([]byte, error) {
	return readAll(c.Request().Body)
}

// readAll reads a request body, a refusal of the body limit as 413.
func readAll(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, problem.BodyError(err)
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
		return problem.ErrNotJSON
	}
	if !readable.JSON(body) {
		return problem.ErrInvalidText.With("in", "body")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badJSON(err)
	}
	if err := dec.Decode(&json.RawMessage{}); !errors.Is(err, io.EOF) {
		return problem.New(http.StatusBadRequest, "malformed_json", "The body must hold one JSON object and nothing after it.")
	}
	return nil
}

// badJSON explains why a body could not be decoded.
func badJSON(err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return problem.New(http.StatusBadRequest, "malformed_json",
			fmt.Sprintf("The body is not valid JSON (error at byte %d).", syntax.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return problem.New(http.StatusBadRequest, "malformed_json", "The body is not valid JSON: it ends too early.")
	case errors.As(err, &typ) && typ.Field == "":
		return problem.New(http.StatusBadRequest, "malformed_json", "The body must be a JSON object.")
	case errors.As(err, &typ):
		return problem.New(http.StatusBadRequest, "invalid_field_type",
			fmt.Sprintf("Field %q must be %s.", typ.Field, kindName(typ.Type))).With("field", typ.Field)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return problem.New(http.StatusBadRequest, "unknown_field",
			fmt.Sprintf("Field %q is not part of this request.", name)).With("field", name)
	}
	return problem.New(http.StatusBadRequest, "malformed_json", "The body is not valid JSON.")
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
