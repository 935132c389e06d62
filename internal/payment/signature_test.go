package payment_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/payment"
)

var (
	secret = []byte("whsec_test")
	body   = []byte(`{"payment_id":"pay_1","hold_id":"h","amount_minor":50000,"currency":"INR","status":"succeeded"}`)
	now    = time.Unix(1_800_000_000, 0)
)

func TestVerify(t *testing.T) {
	t.Parallel()
	signed := payment.Sign(secret, now, body)

	accept := []struct {
		name   string
		header string
		now    time.Time
	}{
		{"freshly signed", signed, now},
		{"exactly at the tolerance in the past", signed, now.Add(payment.DefaultTolerance)},
		{"exactly at the tolerance in the future", signed, now.Add(-payment.DefaultTolerance)},
		{"spaces around pairs", " " + strings.ReplaceAll(signed, ",", " , ") + " ", now},
		{"tabs around pairs", "\t" + strings.ReplaceAll(signed, ",", "\t,\t"), now},
		{"rotated secret: second v1 matches", fmt.Sprintf("t=%d,v1=%s,%s", now.Unix(), strings.Repeat("ab", 32), v1(signed)), now},
		{"rotated secret: first v1 matches", fmt.Sprintf("t=%d,%s,v1=%s", now.Unix(), v1(signed), strings.Repeat("00", 32)), now},
		{"unknown schemes are ignored", fmt.Sprintf("v0=xyz,t=%d,%s,v2=nothex", now.Unix(), v1(signed)), now},
		{"upper-case hex", fmt.Sprintf("t=%d,v1=%s", now.Unix(), strings.ToUpper(strings.TrimPrefix(v1(signed), "v1="))), now},
	}
	for _, tc := range accept {
		t.Run(tc.name, func(t *testing.T) {
			if err := payment.Verify(secret, tc.header, body, tc.now, payment.DefaultTolerance); err != nil {
				t.Fatalf("Verify(%q) = %v, want nil", tc.header, err)
			}
		})
	}

	reject := []struct {
		name   string
		header string
		secret []byte
		body   []byte
		now    time.Time
		want   error
	}{
		{"missing header", "", secret, body, now, payment.ErrMissingSignature},
		{"blank header", "   ", secret, body, now, payment.ErrMissingSignature},
		{"no timestamp", v1(signed), secret, body, now, payment.ErrMalformedSignature},
		{"no v1", fmt.Sprintf("t=%d", now.Unix()), secret, body, now, payment.ErrMalformedSignature},
		{"two timestamps", fmt.Sprintf("t=%d,t=%d,%s", now.Unix(), now.Unix(), v1(signed)), secret, body, now, payment.ErrMalformedSignature},
		{"timestamp not a number", "t=abc," + v1(signed), secret, body, now, payment.ErrMalformedSignature},
		{"negative timestamp", "t=-5," + v1(signed), secret, body, now, payment.ErrMalformedSignature},
		{"huge timestamp", "t=99999999999999999999," + v1(signed), secret, body, now, payment.ErrMalformedSignature},
		{"v1 not hex", fmt.Sprintf("t=%d,v1=%s", now.Unix(), strings.Repeat("zz", 32)), secret, body, now, payment.ErrMalformedSignature},
		{"v1 too short", fmt.Sprintf("t=%d,v1=abcd", now.Unix()), secret, body, now, payment.ErrMalformedSignature},
		{"pair without =", fmt.Sprintf("t=%d,%s,junk", now.Unix(), v1(signed)), secret, body, now, payment.ErrMalformedSignature},
		{"an unknown scheme of bytes that are not ASCII", fmt.Sprintf("t=%d,%s,v0=\xff", now.Unix(), v1(signed)), secret, body, now, payment.ErrMalformedSignature},
		{"an unknown scheme of UTF-8", fmt.Sprintf("t=%d,%s,v0=é", now.Unix(), v1(signed)), secret, body, now, payment.ErrMalformedSignature},
		{"a NUL", fmt.Sprintf("t=%d,%s,v0=\x00", now.Unix(), v1(signed)), secret, body, now, payment.ErrMalformedSignature},
		{"tampered body", signed, secret, append([]byte(nil), append(body, ' ')...), now, payment.ErrBadSignature},
		{"other secret", signed, []byte("whsec_other"), body, now, payment.ErrBadSignature},
		{"timestamp changed after signing", fmt.Sprintf("t=%d,%s", now.Unix()+1, v1(signed)), secret, body, now, payment.ErrBadSignature},
		{"leading zero in timestamp changes what is signed", fmt.Sprintf("t=0%d,%s", now.Unix(), v1(signed)), secret, body, now, payment.ErrBadSignature},
		{"one second too old", signed, secret, body, now.Add(payment.DefaultTolerance + time.Second), payment.ErrStaleSignature},
		{"one second too far in the future", signed, secret, body, now.Add(-payment.DefaultTolerance - time.Second), payment.ErrStaleSignature},
	}
	for _, tc := range reject {
		t.Run(tc.name, func(t *testing.T) {
			err := payment.Verify(tc.secret, tc.header, tc.body, tc.now, payment.DefaultTolerance)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify(%q) = %v, want %v", tc.header, err, tc.want)
			}
		})
	}
}

// v1 returns the v1=... pair of a signature header.
func v1(header string) string {
	_, after, _ := strings.Cut(header, ",")
	return after
}

func TestSign(t *testing.T) {
	t.Parallel()
	t.Run("known vector", func(t *testing.T) {
		// echo -n '1800000000.{}' | openssl dgst -sha256 -hmac whsec_test
		got := payment.Sign(secret, now, []byte("{}"))
		want := "t=1800000000,v1=482e6337ac5272392d375c6fdc4d52a7e615dc2facedab0ffe155ddfd6a56e66"
		if got != want {
			t.Fatalf("Sign = %q, want %q", got, want)
		}
	})
	t.Run("sub-second times sign their whole second", func(t *testing.T) {
		a := payment.Sign(secret, now, body)
		b := payment.Sign(secret, now.Add(999*time.Millisecond), body)
		if a != b {
			t.Fatalf("%q != %q", a, b)
		}
	})
}

func FuzzParseSignature(f *testing.F) {
	f.Add(payment.Sign(secret, now, body))
	f.Add("t=1,v1=" + strings.Repeat("a", 64) + ",v1=" + strings.Repeat("b", 64))
	f.Add("t=,v1=")
	f.Add(",,,")
	f.Add("t=1800000000,v0=x,v1=" + strings.Repeat("0", 64))
	f.Add("t=999999999999,v1=" + strings.Repeat("f", 64))
	f.Fuzz(func(t *testing.T, header string) {
		sig, err := payment.ParseSignature(header)
		if err != nil {
			if !errors.Is(err, payment.ErrMissingSignature) && !errors.Is(err, payment.ErrMalformedSignature) {
				t.Fatalf("ParseSignature(%q) = unexpected error %v", header, err)
			}
			return
		}
		if sig.Timestamp == "" || len(sig.V1) == 0 {
			t.Fatalf("ParseSignature(%q) accepted %+v without t or v1", header, sig)
		}
		for _, m := range sig.V1 {
			if len(m) != 32 {
				t.Fatalf("ParseSignature(%q): v1 of %d bytes", header, len(m))
			}
		}
		if sig.Time.Unix() < 0 {
			t.Fatalf("ParseSignature(%q): negative time %v", header, sig.Time)
		}
		for i := 0; i < len(header); i++ {
			if c := header[i]; (c < 0x20 && c != '\t') || c > 0x7e {
				t.Fatalf("ParseSignature accepted %q: byte %#x is not printable ASCII", header, c)
			}
		}
		// Written again as Sign writes it, it parses to the same.
		written := "t=" + sig.Timestamp
		for _, m := range sig.V1 {
			written += ",v1=" + hex.EncodeToString(m)
		}
		again, err := payment.ParseSignature(written)
		if err != nil || again.Timestamp != sig.Timestamp || !again.Time.Equal(sig.Time) || len(again.V1) != len(sig.V1) {
			t.Fatalf("ParseSignature(%q) = %+v; written again as %q it parses to %+v, %v", header, sig, written, again, err)
		}
		for i := range sig.V1 {
			if !bytes.Equal(again.V1[i], sig.V1[i]) {
				t.Fatalf("%q written again as %q: v1 %d differs", header, written, i)
			}
		}
		// Whatever was parsed, Verify must never accept a stale time.
		if err := payment.Verify(secret, header, body, now, payment.DefaultTolerance); err == nil {
			if d := sig.Time.Sub(now); d > payment.DefaultTolerance || d < -payment.DefaultTolerance {
				t.Fatalf("Verify accepted %q, %v away from now", header, d)
			}
		}
	})
}

func FuzzSignVerify(f *testing.F) {
	f.Add([]byte("k"), []byte("{}"), int64(1_800_000_000), int64(0))
	f.Add([]byte{}, []byte{}, int64(0), int64(299))
	f.Add([]byte("k"), []byte("x"), int64(1_800_000_000), int64(301))
	f.Fuzz(func(t *testing.T, key, msg []byte, sec, skew int64) {
		if sec < 0 || sec > 1e11 || skew < -1e6 || skew > 1e6 {
			t.Skip()
		}
		at := time.Unix(sec, 0)
		header := payment.Sign(key, at, msg)
		err := payment.Verify(key, header, msg, at.Add(time.Duration(skew)*time.Second), payment.DefaultTolerance)
		fresh := skew >= -300 && skew <= 300
		switch {
		case fresh && err != nil:
			t.Fatalf("Verify of a fresh signature (skew %ds) = %v", skew, err)
		case !fresh && !errors.Is(err, payment.ErrStaleSignature):
			t.Fatalf("Verify with skew %ds = %v, want ErrStaleSignature", skew, err)
		}
		if len(msg) > 0 {
			tampered := append([]byte(nil), msg...)
			tampered[0] ^= 1
			if err := payment.Verify(key, header, tampered, at, payment.DefaultTolerance); !errors.Is(err, payment.ErrBadSignature) {
				t.Fatalf("Verify of a tampered body = %v, want ErrBadSignature", err)
			}
		}
	})
}
