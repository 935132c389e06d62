package places

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/marquee-tickets/marquee/internal/catalog"
)

// settingsOf reads the theatre form's settings, each from the field named
// by its form tag, so a setting added to catalog.TheatreSettings is read
// here as it is. A box is ticked when it is sent (one left unticked is
// not); a number must be a whole number. What cannot be read is named at
// its field, in the words of a person.
func settingsOf(form url.Values) (catalog.TheatreSettings, map[string]string) {
	var s catalog.TheatreSettings
	fields := map[string]string{}
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Tag.Get("form")
		if name == "" {
			continue
		}
		switch f := v.Field(i); f.Kind() {
		case reflect.Bool:
			f.SetBool(form.Has(name))
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(strings.TrimSpace(form.Get(name)), 10, 64)
			if err != nil {
				fields[name] = "Give a whole number."
				continue
			}
			f.SetInt(n)
		default:
			// A kind of setting this form has no field for yet: a mistake
			// in the setting's definition, found by the form's tests.
			panic(fmt.Sprintf("theatre form: setting %s of kind %s", name, f.Kind()))
		}
	}
	return s, fields
}
