package admin

import (
	"fmt"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// hiddenRune returns the first character of s that a reader cannot see or
// that silently reorders the text around it: Unicode's format characters
// (zero-width spaces and joiners, soft hyphens, the bidirectional marks,
// embeddings, overrides and isolates) and the line and paragraph
// separators. A row label "A\u200b" looks like "A" and is another row; a
// name with U+202E shows its end backwards. Row labels refuse them all.
func hiddenRune(s string) (rune, bool) {
	for _, r := range s {
		if unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return r, true
		}
	}
	return 0, false
}

// hasHidden reports whether s holds a character hiddenRune finds.
func hasHidden(s string) bool {
	_, ok := hiddenRune(s)
	return ok
}

const (
	zwnj = '\u200c' // zero-width non-joiner
	zwj  = '\u200d' // zero-width joiner
)

// hiddenInName is hiddenRune for names and titles, which may be written in
// any script: there a zero-width joiner or non-joiner is part of the word
// where it chooses how letters are drawn, and is kept:
//
//   - after a virama, the sign that joins consonants in Devanagari, Bengali,
//     Malayalam and the other Indic scripts, where it picks a conjunct's or
//     a chillu's form (the rule RFC 5892 calls CONTEXTJ);
//   - a non-joiner between two Arabic-script letters (Persian, Urdu), where
//     it keeps them apart;
//   - a joiner between two symbols, binding an emoji sequence.
//
// Anywhere else, and every other character hiddenRune finds, is hidden.
func hiddenInName(s string) (rune, bool) {
	rs := []rune(s)
	for i, r := range rs {
		if unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) && !joinsLetters(rs, i) {
			return r, true
		}
	}
	return 0, false
}

// joinsLetters reports whether rs[i], a joiner or non-joiner, sits where
// hiddenInName keeps it.
func joinsLetters(rs []rune, i int) bool {
	r := rs[i]
	if r != zwnj && r != zwj || i == 0 {
		return false
	}
	before := rs[i-1]
	const viramaClass = 9 // the canonical combining class of a virama
	if norm.NFC.PropertiesString(string(before)).CCC() == viramaClass {
		return true // even last: a chillu ends a word
	}
	if i == len(rs)-1 {
		return false
	}
	after := rs[i+1]
	if r == zwnj {
		return unicode.Is(unicode.Arabic, before) && unicode.IsLetter(before) && unicode.Is(unicode.Arabic, after) && unicode.IsLetter(after)
	}
	// An emoji before the joiner may carry a presentation selector or a
	// skin tone: the symbol is the one they follow.
	for j := i - 1; j > 0 && (before == '\ufe0f' || before >= 0x1f3fb && before <= 0x1f3ff); j-- {
		before = rs[j-1]
	}
	return unicode.Is(unicode.So, before) && unicode.Is(unicode.So, after)
}

// hiddenProblem says, for a person, that what (e.g. "the row label")
// holds the hidden character r.
func hiddenProblem(what string, r rune) string {
	return fmt.Sprintf("%s contains an invisible or text-direction character (U+%04X); type it again without that character", what, r)
}
