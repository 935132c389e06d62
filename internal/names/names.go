// Package names decides which characters a name may hold: a person's, a
// theatre's, a city's, a screen's, a movie's title, a row's label. Any
// script, but no character a reader cannot see or that silently reorders
// the text around it.
package names

import (
	"fmt"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// HiddenInLabel returns the first character of s that a reader cannot see
// or that silently reorders the text around it: Unicode's format
// characters (zero-width spaces and joiners, soft hyphens, the
// bidirectional marks, embeddings, overrides and isolates) and the line and
// paragraph separators. A row label "A\u200b" looks like "A" and is
// another row; a name with U+202E shows its end backwards. Labels, read
// rather than written in a script, refuse them all.
func HiddenInLabel(s string) (rune, bool) {
	for _, r := range s {
		if unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return r, true
		}
	}
	return 0, false
}

const (
	zwnj = '\u200c' // zero-width non-joiner
	zwj  = '\u200d' // zero-width joiner
)

// Hidden is HiddenInLabel for names and titles, which may be written in any
// script: there a zero-width joiner or non-joiner is part of the word
// where it chooses how letters are drawn, and is kept:
//
//   - after a virama, the sign that joins consonants in Devanagari, Bengali,
//     Malayalam and the other Indic scripts, where it picks a conjunct's or
//     a chillu's form (the rule RFC 5892 calls CONTEXTJ);
//   - a non-joiner between two Arabic-script letters (Persian, Urdu), where
//     it keeps them apart;
//   - a joiner between two symbols, binding an emoji sequence.
//
// Anywhere else, and every other character HiddenInLabel finds, is hidden.
func Hidden(s string) (rune, bool) {
	rs := []rune(s)
	for i, r := range rs {
		if unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) && !joinsLetters(rs, i) {
			return r, true
		}
	}
	return 0, false
}

// joinsLetters reports whether rs[i], a joiner or non-joiner, sits where
// Hidden keeps it.
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

// Problem says, for staff, that what (e.g. "the row label") holds the
// hidden character r, naming it.
func Problem(what string, r rune) string {
	return fmt.Sprintf("%s contains an invisible or text-direction character (U+%04X); type it again without that character", what, r)
}
