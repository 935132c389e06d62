package postgres

import (
	"encoding/hex"
	"strings"
	"testing"
)

// FuzzValidID: a hold, booking or user id reaches SQL only as the text of
// a uuid (8-4-4-4-12 hex digits, either case), which Postgres casts
// without an error; and the text of any 16 bytes is one.
func FuzzValidID(f *testing.F) {
	f.Add("6f1c1d2e-0000-4000-8000-000000000001", []byte("0123456789abcdef"))
	f.Fuzz(func(t *testing.T, s string, raw []byte) {
		if validID(s) {
			if len(s) != 36 {
				t.Fatalf("validID(%q): %d bytes", s, len(s))
			}
			for i := 0; i < len(s); i++ {
				dash := i == 8 || i == 13 || i == 18 || i == 23
				if c := s[i]; dash != (c == '-') || !dash && !strings.ContainsRune("0123456789abcdefABCDEF", rune(c)) {
					t.Fatalf("validID(%q): byte %d is %q", s, i, c)
				}
			}
		}
		if len(raw) >= 16 {
			h := hex.EncodeToString(raw[:16])
			id := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
			if !validID(id) || !validID(strings.ToUpper(id)) {
				t.Fatalf("validID(%q) = false", id)
			}
		}
	})
}
