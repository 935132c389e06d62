package admin

import (
	"fmt"
	"unicode"
)

// hiddenRune returns the first character of s that a reader cannot see or
// that silently reorders the text around it: Unicode's format characters
// (zero-width spaces and joiners, soft hyphens, the bidirectional marks,
// embeddings, overrides and isolates) and the line and paragraph
// separators. A row label "A\u200b" looks like "A" and is another row; a
// name with U+202E shows its end backwards. Names and labels refuse them.
func hiddenRune(s string) (rune, bool) {
	for _, r := range s {
		if unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return r, true
		}
	}
	return 0, false
}

// hiddenProblem says, for a person, that what (e.g. "the row label")
// holds the hidden character r.
func hiddenProblem(what string, r rune) string {
	return fmt.Sprintf("%s contains an invisible or text-direction character (U+%04X); type it again without that character", what, r)
}

// hasHidden reports whether s holds a character hiddenRune finds.
func hasHidden(s string) bool {
	_, ok := hiddenRune(s)
	return ok
}
