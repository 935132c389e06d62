package catalog_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/catalog"
)

func TestTheatreSettings(t *testing.T) {
	on, off := true, false
	d := catalog.DefaultTheatreSettings()
	if !d.OrphanRule {
		t.Fatal("a new theatre's orphan rule is on")
	}
	if got := d.With(catalog.TheatreSettingsPatch{OrphanRule: &off}); got.OrphanRule {
		t.Fatalf("With(orphan_rule off) = %+v", got)
	}
	if got := d.With(catalog.TheatreSettingsPatch{}); got != d {
		t.Fatalf("an empty patch changed %+v to %+v", d, got)
	}
	if doc := string((catalog.TheatreSettingsPatch{}).Document()); doc != "{}" {
		t.Fatalf("an empty patch's document is %s, want {}", doc)
	}
	if doc := string((catalog.TheatreSettingsPatch{OrphanRule: &off}).Document()); doc != `{"orphan_rule":false}` {
		t.Fatalf("a patch's document is %s", doc)
	}
	if p := d.Changes(d); !p.Empty() {
		t.Fatalf("no change made a patch %+v", p)
	}
	if p := d.Changes(catalog.TheatreSettings{OrphanRule: false}); p.OrphanRule == nil || *p.OrphanRule {
		t.Fatalf("turning the rule off made the patch %+v", p)
	}
	if p := (catalog.TheatreSettings{}).Patch(); p.OrphanRule == nil || *p.OrphanRule != off {
		t.Fatalf("a full patch of the zero settings is %+v: every setting set", p)
	}
	if p := d.Patch(); p.OrphanRule == nil || *p.OrphanRule != on {
		t.Fatalf("the defaults' full patch is %+v", p)
	}

	// A stored document: missing settings take their defaults, unknown
	// keys (a setting since removed) are ignored.
	for doc, want := range map[string]catalog.TheatreSettings{
		``:                                  d,
		`{}`:                                d,
		`{"orphan_rule": false}`:            {OrphanRule: false},
		`{"orphan_rule": true, "gone": 12}`: {OrphanRule: true},
	} {
		got, err := catalog.ReadTheatreSettings([]byte(doc))
		if err != nil || got != want {
			t.Errorf("ReadTheatreSettings(%s) = %+v, %v; want %+v", doc, got, err, want)
		}
	}
	if _, err := catalog.ReadTheatreSettings([]byte(`{"orphan_rule": "maybe"}`)); err == nil {
		t.Error("a setting of the wrong type was read")
	}
}
