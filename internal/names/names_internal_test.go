package names

import "testing"

// Names keep the joiners their scripts need and refuse every other
// hidden character, naming it.
func TestHiddenInName(t *testing.T) {
	for _, tc := range []struct {
		name, s string
		hidden  rune // 0: kept whole
	}{
		{"Latin", "Odeon Mall", 0},
		{"Malayalam chillu, a joiner after the virama", "കൊച്ചിന\u0d4d\u200d", 0},
		{"Devanagari half form, a joiner after the virama", "क\u094d\u200dष", 0},
		{"Devanagari, a non-joiner after the virama", "क\u094d\u200cष", 0},
		{"Persian, a non-joiner between letters", "کتاب\u200cخانه", 0},
		{"an emoji sequence", "Tech \U0001F469\u200d\U0001F4BB night", 0},
		{"an emoji sequence with a presentation selector", "\U0001F3F3\ufe0f\u200d\U0001F308 week", 0},
		{"a joiner between Latin letters", "Od\u200deon", '\u200d'},
		{"a non-joiner at the end", "Odeon\u200c", '\u200c'},
		{"a joiner at the start", "\u200d\U0001F3AC", '\u200d'},
		{"a non-joiner between Latin letters after Persian", "کتاب\u200cA", '\u200c'},
		{"a zero-width space", "Odeon\u200b", '\u200b'},
		{"a right-to-left override", "Odeon \u202e2", '\u202e'},
		{"a left-to-right isolate", "\u2066Odeon", '\u2066'},
		{"a soft hyphen", "Ode\u00adon", '\u00ad'},
		{"a byte order mark", "\ufeffOdeon", '\ufeff'},
		{"a line separator", "Odeon\u2028Mall", '\u2028'},
	} {
		r, hidden := Hidden(tc.s)
		if hidden != (tc.hidden != 0) || r != tc.hidden {
			t.Errorf("%s: Hidden(%+q) = %U, %v; want %U", tc.name, tc.s, r, hidden, tc.hidden)
		}
	}
	// Row labels take none of them: a seat's row is read, not written in
	// a script.
	if _, hidden := HiddenInLabel("क\u094d\u200dष"); !hidden {
		t.Error("a row label keeps a joiner")
	}
}
