// Package payment is Marquee's side of a payment provider: the Provider
// interface, its types, and webhook signing and verification (the Stripe
// scheme).
package payment

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a webhook's signature:
// t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>.
const SignatureHeader = "Payment-Signature"

// DefaultTolerance is how far a webhook's timestamp may be from now.
const DefaultTolerance = 300 * time.Second

// Why a webhook signature was refused.
var (
	ErrMissingSignature   = errors.New("payment: missing signature header")
	ErrMalformedSignature = errors.New("payment: malformed signature header")
	ErrBadSignature       = errors.New("payment: signature does not match")
	ErrStaleSignature     = errors.New("payment: signature timestamp outside tolerance")
)

// Sign returns the signature header value of body sent at t.
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

// mac is HMAC-SHA256(secret, "<ts>.<body>"), ts exactly as it was sent.
func mac(secret []byte, ts string, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Signature is a parsed signature header.
type Signature struct {
	// Timestamp is the t= value as sent: the MAC covers these exact digits.
	Timestamp string
	// Time is Timestamp as a time.
	Time time.Time
	// V1 are the v1= MACs; a provider rotating its secret sends one per secret.
	V1 [][]byte
}

// maxTimestampDigits keeps t= within years a time.Time represents without
// overflow (12 digits reach the year 33658).
const maxTimestampDigits = 12

// ParseSignature reads a signature header: comma-separated key=value pairs,
// exactly one t (unix seconds) and at least one v1 (64 hex digits). Pairs of
// other schemes (v0, ...) are ignored, as the Stripe scheme asks, but the
// whole header must be printable ASCII (spaces and tabs between pairs
// allowed): a header with other bytes was never made by Sign.
func ParseSignature(header string) (Signature, error) {
	var sig Signature
	if strings.TrimSpace(header) == "" {
		return sig, ErrMissingSignature
	}
	for i := 0; i < len(header); i++ {
		if c := header[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return sig, ErrMalformedSignature
		}
	}
	seenT := false
	for item := range strings.SplitSeq(header, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return sig, ErrMalformedSignature
		}
		switch key {
		case "t":
			if seenT || !validTimestamp(value) {
				return sig, ErrMalformedSignature
			}
			seenT = true
			sec, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return sig, ErrMalformedSignature
			}
			sig.Timestamp, sig.Time = value, time.Unix(sec, 0)
		case "v1":
			if len(value) != 2*sha256.Size {
				return sig, ErrMalformedSignature
			}
			b, err := hex.DecodeString(value)
			if err != nil {
				return sig, ErrMalformedSignature
			}
			sig.V1 = append(sig.V1, b)
		}
	}
	if !seenT || len(sig.V1) == 0 {
		return sig, ErrMalformedSignature
	}
	return sig, nil
}

func validTimestamp(s string) bool {
	if s == "" || len(s) > maxTimestampDigits {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Verify checks that header signs body with secret and was made within
// tolerance of now, either way. Any v1 entry may match (secret rotation);
// MACs are compared in constant time. It returns nil or one of
// ErrMissingSignature, ErrMalformedSignature, ErrBadSignature and
// ErrStaleSignature.
func Verify(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	sig, err := ParseSignature(header)
	if err != nil {
		return err
	}
	want := mac(secret, sig.Timestamp, body)
	matched := false
	for _, got := range sig.V1 {
		// No early exit: the time taken says nothing about which entry matched.
		if hmac.Equal(got, want) {
			matched = true
		}
	}
	if !matched {
		return ErrBadSignature
	}
	if sig.Time.Before(now.Add(-tolerance)) || sig.Time.After(now.Add(tolerance)) {
		return ErrStaleSignature
	}
	return nil
}
