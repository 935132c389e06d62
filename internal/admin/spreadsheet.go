package admin

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// spreadsheetText keeps a name a spreadsheet would read as a formula (a
// movie called "=HYPERLINK(...)") text, with a leading apostrophe.
// Spreadsheets skip leading spaces and read full-width and small forms
// ("＝", "﹢") as the ASCII signs, so a name is a formula whatever
// whitespace or invisible characters come before its first sign, in any
// of those forms; a leading tab or line break is refused as well.
func spreadsheetText(s string) string {
	if s == "" {
		return s
	}
	if first, _ := utf8.DecodeRuneInString(s); first == '\t' || first == '\r' || first == '\n' {
		return "'" + s
	}
	rest := strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) })
	if rest == "" {
		return s
	}
	first, size := utf8.DecodeRuneInString(rest)
	// NFKC folds the full-width and small forms into the ASCII sign.
	if sign := norm.NFKC.String(rest[:size]); first == '\u2212' || (sign != "" && strings.ContainsRune("=+-@", rune(sign[0]))) {
		return "'" + s
	}
	return s
}
