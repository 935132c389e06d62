// Package ticket owns what a ticket's QR code says: the booking's short
// code and its show, signed with Ed25519. A phone at the door that has lost
// the network can still tell a real ticket of its show from a forged one
// with the public keys it downloaded, and one sold after it downloaded the
// show's list is admitted all the same.
//
// A code reads MQ1.<key id>.<short code>.<show id>.<signature>: the key id
// names the key that signed it, so keys are rotated by signing with a new
// one while the old ones still verify the tickets already issued.
package ticket

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// prefix starts every signed code, and its version.
const prefix = "MQ1"

// ErrForged is a code that is not a ticket signed by a known key.
var ErrForged = errors.New("ticket: not a ticket code signed by this theatre system")

// Keys sign ticket codes with the first key and verify them with any.
type Keys struct {
	signer ed25519.PrivateKey
	kid    string
	verify map[string]ed25519.PublicKey
	public []PublicKey
}

// PublicKey is a verifying key by its id, as a phone downloads it.
type PublicKey struct {
	ID  string // the key id codes carry
	Key ed25519.PublicKey
}

// NewKeys returns keys signing with the first seed and verifying with all;
// each seed is ed25519.SeedSize bytes.
func NewKeys(seeds ...[]byte) (*Keys, error) {
	if len(seeds) == 0 {
		return nil, errors.New("ticket keys: none given")
	}
	k := &Keys{verify: map[string]ed25519.PublicKey{}}
	for i, seed := range seeds {
		if len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("ticket key %d: %d bytes, want %d", i+1, len(seed), ed25519.SeedSize)
		}
		priv := ed25519.NewKeyFromSeed(seed)
		pub := priv.Public().(ed25519.PublicKey)
		id := keyID(pub)
		if _, dup := k.verify[id]; dup {
			return nil, fmt.Errorf("ticket key %d: given twice", i+1)
		}
		if i == 0 {
			k.signer, k.kid = priv, id
		}
		k.verify[id] = pub
		k.public = append(k.public, PublicKey{ID: id, Key: pub})
	}
	return k, nil
}

// ParseKeys reads keys from a comma-separated list of base64 seeds, the
// signing one first (TICKET_SIGNING_KEYS).
func ParseKeys(list string) (*Keys, error) {
	var seeds [][]byte
	for i, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		seed, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			if seed, err = base64.RawURLEncoding.DecodeString(s); err != nil {
				return nil, fmt.Errorf("ticket key %d: not base64", i+1)
			}
		}
		seeds = append(seeds, seed)
	}
	return NewKeys(seeds...)
}

// keyID names a public key: 8 characters of its hash, enough to tell a
// theatre's few keys apart.
func keyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return base64.RawURLEncoding.EncodeToString(sum[:6])
}

// Public are the verifying keys, the signing one first.
func (k *Keys) Public() []PublicKey { return k.public }

// Code is the signed code of the booking with short code short, for show
// showID: what its QR code says.
func (k *Keys) Code(short string, showID int64) string {
	body := prefix + "." + k.kid + "." + short + "." + strconv.FormatInt(showID, 10)
	return body + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(k.signer, []byte(body)))
}

// Claim is what a genuine code says.
type Claim struct {
	Short  string // the booking's short code
	ShowID int64  // the show the booking was for when the code was made
}

// Signed reports whether code looks like a signed code at all (rather
// than a short code typed in).
func Signed(code string) bool { return strings.HasPrefix(code, prefix+".") }

// Verify returns what code says, or ErrForged unless a known key signed
// it.
func (k *Keys) Verify(code string) (Claim, error) {
	parts := strings.Split(code, ".")
	if len(parts) != 5 || parts[0] != prefix {
		return Claim{}, ErrForged
	}
	pub, ok := k.verify[parts[1]]
	if !ok {
		return Claim{}, ErrForged
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[4])
	if err != nil || !ed25519.Verify(pub, []byte(strings.Join(parts[:4], ".")), sig) {
		return Claim{}, ErrForged
	}
	show, err := strconv.ParseInt(parts[3], 10, 64)
	if err != nil || parts[2] == "" {
		return Claim{}, ErrForged // signed, so never: a key signed garbage
	}
	return Claim{Short: parts[2], ShowID: show}, nil
}

// devSeed is the development key's seed. It is public (it is in this
// file), so anyone can forge a ticket signed with it: development, demos
// and tests only, and marquee serve refuses it on a public site.
var devSeed = []byte("marquee-dev-ticket-key-not-prod!")

// DevKeys are keys of the public development seed (see devSeed).
func DevKeys() *Keys {
	k, err := NewKeys(devSeed)
	if err != nil {
		panic(err) // the seed is fixed and of the right length
	}
	return k
}
