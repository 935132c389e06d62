package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
)

// TheatreSettings are the rules a theatre chooses for its own sales. Each
// is one field here, named for the admin API and the stored document by
// its json tag and for the theatre form by its form tag, with its default
// in DefaultTheatreSettings and its bounds in Validate. The store keeps
// them as one document (theatres.settings) and the admin's use cases, API
// and form pass them whole, so a new setting is a field here, its box in
// the theatre form, and the rule that reads it.
type TheatreSettings struct {
	// OrphanRule: a hold of seats picked by hand that would leave one seat
	// alone in its row is refused, with a better choice offered (see
	// booking.OrphanSeatError).
	OrphanRule bool `json:"orphan_rule" form:"orphan_rule"`
}

// DefaultTheatreSettings are a new theatre's settings, and those of a
// stored theatre for any setting its document does not name (one added
// after it was stored). A rule that reads a setting in SQL coalesces to
// the same default.
func DefaultTheatreSettings() TheatreSettings {
	return TheatreSettings{OrphanRule: true}
}

// Validate reports the first setting out of its bounds as a *FieldError.
func (s TheatreSettings) Validate() error { return nil }

// TheatreSettingsPatch is a change to some of a theatre's settings: each
// nil field stays as it is. Its fields are TheatreSettings', as pointers,
// with the same json tags, so the admin API reads a change of any setting
// where it reads the theatre's other fields.
type TheatreSettingsPatch struct {
	OrphanRule *bool `json:"orphan_rule,omitempty"`
}

// With returns s changed by p.
func (s TheatreSettings) With(p TheatreSettingsPatch) TheatreSettings {
	recode(p, &s)
	return s
}

// Document is p as the stored document's keys that it changes (a JSON
// object; {} for no change), for the store to merge into what it holds.
func (p TheatreSettingsPatch) Document() []byte {
	doc, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("catalog: encode theatre settings patch: %v", err))
	}
	return doc
}

// Empty reports whether p changes nothing.
func (p TheatreSettingsPatch) Empty() bool { return p == TheatreSettingsPatch{} }

// Patch returns the patch that sets every setting to s's.
func (s TheatreSettings) Patch() TheatreSettingsPatch {
	var p TheatreSettingsPatch
	recode(s, &p)
	return p
}

// Changes returns the patch that turns s into to: only the settings that
// differ, so a form sent back unchanged changes (and audits) nothing.
func (s TheatreSettings) Changes(to TheatreSettings) TheatreSettingsPatch {
	var from, next map[string]json.RawMessage
	recode(s, &from)
	recode(to, &next)
	maps.DeleteFunc(next, func(k string, v json.RawMessage) bool { return string(from[k]) == string(v) })
	var p TheatreSettingsPatch
	recode(next, &p)
	return p
}

// recode copies from into to through JSON, by the tags the settings and
// their patch share. Both are this package's plain fields, so it cannot
// fail but by a mistake in them.
func recode(from, to any) {
	b, err := json.Marshal(from)
	if err == nil {
		err = json.Unmarshal(b, to)
	}
	if err != nil {
		panic(fmt.Sprintf("catalog: theatre settings: %v", err))
	}
}

// ReadTheatreSettings reads a stored settings document over the defaults.
func ReadTheatreSettings(doc []byte) (TheatreSettings, error) {
	s := DefaultTheatreSettings()
	if len(doc) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		return s, fmt.Errorf("read theatre settings: %w", err)
	}
	return s, nil
}
