package ticket_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/ticket"
)

func seed(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func TestCodes(t *testing.T) {
	old, err := ticket.NewKeys(seed(1))
	if err != nil {
		t.Fatal(err)
	}
	issued := old.Code("ABCD2345EFGH", 42)
	if !ticket.Signed(issued) || ticket.Signed("ABCD2345EFGH") {
		t.Fatalf("Signed(%q) wrong", issued)
	}
	c, err := old.Verify(issued)
	if err != nil || c != (ticket.Claim{Short: "ABCD2345EFGH", ShowID: 42}) {
		t.Fatalf("Verify = %+v, %v", c, err)
	}

	// Rotated: a new key signs, the old one still verifies what it issued.
	rotated, err := ticket.NewKeys(seed(2), seed(1))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := rotated.Verify(issued); err != nil || c.ShowID != 42 {
		t.Fatalf("an issued ticket after rotation: %+v, %v", c, err)
	}
	fresh := rotated.Code("ABCD2345EFGH", 42)
	if fresh == issued {
		t.Fatal("the rotated keys sign with the old key")
	}
	if _, err := old.Verify(fresh); !errors.Is(err, ticket.ErrForged) {
		t.Fatalf("a key that was never given verified a code: %v", err)
	}
	if got := rotated.Public(); len(got) != 2 || !strings.Contains(fresh, "."+got[0].ID+".") {
		t.Fatalf("public keys %+v do not start with the signing one of %s", got, fresh)
	}

	// Forgeries: another show, another booking, another signature, junk.
	parts := strings.Split(issued, ".")
	other := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, ".")
	}
	stranger, _ := ticket.NewKeys(seed(9))
	for _, forged := range []string{
		other(3, "43"), other(2, "ABCD2345EFGX"), other(4, parts[4][:10]), other(1, "AAAAAAAA"),
		stranger.Code("ABCD2345EFGH", 42), "", "MQ1", "MQ1....", issued + ".x",
	} {
		if _, err := rotated.Verify(forged); !errors.Is(err, ticket.ErrForged) {
			t.Errorf("Verify(%q) = %v, want ErrForged", forged, err)
		}
	}
}

func TestParseKeys(t *testing.T) {
	k, err := ticket.ParseKeys("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=, AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI")
	if err != nil || len(k.Public()) != 2 {
		t.Fatalf("ParseKeys: %v", err)
	}
	want, _ := ticket.NewKeys(seed(1))
	if k.Code("X", 1) != want.Code("X", 1) {
		t.Fatal("the first key listed does not sign")
	}
	for _, bad := range []string{"", "not base64!", "AQID", "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=,AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="} {
		if _, err := ticket.ParseKeys(bad); err == nil {
			t.Errorf("ParseKeys(%q) accepted", bad)
		}
	}
}
