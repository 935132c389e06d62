package booking

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"time"
)

// The hold policy when none is configured: how long held seats stay held,
// how many seats one hold may take, and how many seats one client address
// may hold at once, on one show and over all shows (two full holds, and
// four: a household or an office behind one address still gets seats).
const (
	DefaultHoldTTL                  = 5 * time.Minute
	DefaultMaxSeatsPerHold          = 10
	DefaultMaxHeldPerAddressPerShow = 20
	DefaultMaxHeldPerAddress        = 40
)

// DefaultPaymentGrace is how long, when none is configured, a hold a
// checkout was opened for keeps its seats after its deadline, for a payment
// captured before the deadline whose report comes late (see
// Hold.PaidInTime). It is the longest such a report is waited for.
const DefaultPaymentGrace = 2 * time.Minute

// HoldRequest asks for seats of one show for one user, under an
// Idempotency-Key scoped to that user.
type HoldRequest struct {
	UserID string
	ShowID int64
	Seats  []string
	TTL    time.Duration
	Key    string
	// Client is the network the request came from (an IPv4 address, an
	// IPv6 /64): the hold records it, and Caps bound the seats it may
	// hold. Zero: none recorded, no cap.
	Client netip.Prefix
	Caps   ClientCaps
	// Best, instead of Seats, asks the server to choose the seats.
	Best *BestAvailable
	// Ticket is the holder's waiting-room ticket: a show whose room is on
	// is held only with one admitted. Not part of the request's
	// fingerprint: it is the pass, not what is asked for.
	Ticket string
}

// BestAvailable asks the server to choose and hold the best free seats:
// Count of them, of Category ("": any), of which Accessible are wheelchair
// spaces, each with a seat beside it.
type BestAvailable struct {
	Count      int
	Category   string
	Accessible int
}

// categoryPattern is a seat category as layouts name them.
var categoryPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,31}$`)

// Check refuses a party that cannot be: no seats, more than maxSeats, more
// wheelchair spaces than seats, or a category no layout could name.
func (b BestAvailable) Check(maxSeats int) error {
	switch {
	case b.Count < 1:
		return ErrNoSeats
	case b.Count > maxSeats:
		return &TooManySeatsError{Asked: b.Count, Max: maxSeats}
	case b.Accessible < 0 || b.Accessible > b.Count:
		return ErrInvalidParty
	case b.Category != "" && !categoryPattern.MatchString(b.Category):
		return ErrInvalidParty
	}
	return nil
}

// ClientCaps bound the seats one client network may hold at once, whoever's
// accounts hold them (a held seat is one in a hold still HELD and not
// lapsed): on one show, and over all shows. Without them one address could
// make accounts and hold a whole show, over and over. 0 is no cap.
type ClientCaps struct{ PerShow, Overall int }

// HeldSeatsCapError is a hold refused because its client network would
// hold more seats than its Caps allow: on this show (PerShow), or over all
// shows.
type HeldSeatsCapError struct {
	PerShow bool
	Max     int
	// FreesAt is when the soonest of the network's holds that count
	// lapses, unless paid for or released before; zero if none does.
	FreesAt time.Time
}

func (e *HeldSeatsCapError) Error() string {
	scope := "over all shows"
	if e.PerShow {
		scope = "on this show"
	}
	return fmt.Sprintf("client address holds as many seats as allowed %s (%d)", scope, e.Max)
}

var seatIDPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,16}$`)

// Normalize validates the seat list against the per-hold cap and returns it
// sorted. Sorting fixes the lock order and makes the fingerprint independent
// of the order the client listed the seats in.
func (r HoldRequest) Normalize(maxSeats int) ([]string, error) {
	if len(r.Seats) == 0 {
		return nil, ErrNoSeats
	}
	for _, s := range r.Seats {
		if !seatIDPattern.MatchString(s) {
			return nil, &InvalidSeatError{Seat: s}
		}
	}
	seats := slices.Clone(r.Seats)
	slices.Sort(seats)
	var dups []string
	for i := 1; i < len(seats); i++ {
		if seats[i] == seats[i-1] && (len(dups) == 0 || dups[len(dups)-1] != seats[i]) {
			dups = append(dups, seats[i])
		}
	}
	if len(dups) > 0 {
		return nil, &DuplicateSeatsError{Seats: dups}
	}
	if len(seats) > maxSeats {
		return nil, &TooManySeatsError{Asked: len(seats), Max: maxSeats}
	}
	return seats, nil
}

// Fingerprint identifies the request an Idempotency-Key was first used for:
// show, seat set, user and TTL. seats must be normalized.
func (r HoldRequest) Fingerprint(seats []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d", r.UserID, r.ShowID, r.TTL.Nanoseconds())
	if b := r.Best; b != nil {
		// What was asked for, not what was chosen: a retry asks the same.
		fmt.Fprintf(h, "\x00best\x00%d\x00%s\x00%d", b.Count, b.Category, b.Accessible)
	}
	for _, s := range seats {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HoldResult is the answer to a hold request: the hold, and whether it was
// created now or replayed from an earlier request with the same key.
type HoldResult struct {
	Hold     Hold
	Replayed bool
	// Terms are the show's refund terms at the hold's answer, read with it
	// so that whoever wins the seats does not queue again to learn them.
	Terms CancellationTerms
	// Together: a best-available hold's seats are side by side in one row.
	Together bool
}

// ValidKey reports whether an Idempotency-Key is 1-255 printable ASCII characters.
func ValidKey(key string) bool {
	if len(key) == 0 || len(key) > 255 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}
