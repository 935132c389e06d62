// Package waitroom is a show's waiting room: the rules of its queue, its
// signed tickets, and the estimate of a waiter's wait. It reads no
// database: the store keeps the queue (the database is the truth, shared by
// every instance) and the box office's use cases apply these rules to it.
//
// A room, while enabled, stands in front of a show's seat map and holds.
// Before its opening time it is a pre-queue: tickets have no number. The
// first admission step at or after the opening numbers them in a random
// order, so arriving a second before the opening earns nothing over
// arriving a quarter of an hour before, and refreshing earns nothing at
// all; later arrivals are numbered in arrival order behind them. Each step
// admits the lowest numbers still waiting, at the room's rate, while fewer
// than its cap of admissions are active, and publishes the front (through):
// every number up to it is admitted or gone. A waiting page knows its own
// number, so one broadcast of the front tells every page its place.
package waitroom

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Defaults and bounds of a room's settings and of its tickets.
const (
	// MaxRate and MaxActive bound the settings an admin may give.
	MaxRate   = 100000
	MaxActive = 100000
	// DefaultAdmissionTTL is how long an admission lasts unused: admitted
	// and holding nothing, a shopper loses the place after it.
	DefaultAdmissionTTL = 5 * time.Minute
	// SeenTimeout is how long a waiting ticket keeps its place unpolled
	// and with no page open.
	SeenTimeout = 5 * time.Minute
	// Repick is how long an admission lasts after its hold was released,
	// for choosing other seats.
	Repick = time.Minute
	// TicketLife bounds a ticket's signature: a ticket older than this is
	// refused whatever its state.
	TicketLife = 24 * time.Hour
)

// State is a ticket's place in the queue's life.
type State string

// A ticket waits, is admitted, and then ends: EXPIRED when it waited
// unseen too long, DONE when its admission ended (a booking, a release, a
// lapsed hold, or unused past its TTL).
const (
	Waiting  State = "WAITING"
	Admitted State = "ADMITTED"
	Expired  State = "EXPIRED"
	Done     State = "DONE"
)

// Settings are a room's as an admin sets them.
type Settings struct {
	Enabled        bool
	AdmitPerMinute int
	MaxActive      int
	// OpensAt, when set, makes the room a pre-queue until then.
	OpensAt time.Time
}

// Errors of the waiting room's rules.
var (
	// ErrQueueRequired is a hold or a seat map of a show whose room is on,
	// asked for without a ticket admitted now: none, forged, expired, of
	// another show, or used by another account.
	ErrQueueRequired = errors.New("waiting room: an admitted ticket is required")
	// ErrInvalidSettings is a rate or a cap out of bounds.
	ErrInvalidSettings = errors.New("waiting room: admit_per_minute and max_active must be between 1 and 100000")
)

// Check refuses settings out of bounds. A room switched off needs none.
func (s Settings) Check() error {
	if !s.Enabled {
		return nil
	}
	if s.AdmitPerMinute < 1 || s.AdmitPerMinute > MaxRate || s.MaxActive < 1 || s.MaxActive > MaxActive {
		return ErrInvalidSettings
	}
	return nil
}

// Room is a room's settings and where its queue stands.
type Room struct {
	ShowID int64
	Settings
	// Open: the pre-queue is over (or there was none).
	Open bool
	// Through is the front: every number up to it is admitted or gone.
	Through int64
	// Waiting, Active and AdmittedTotal count tickets now.
	Waiting, Active, AdmittedTotal int
	// PerMinute is the admission rate achieved lately, or the set rate
	// before there is one to measure (see Rate).
	PerMinute float64
}

// Channel is the NOTIFY channel each admission step announces its room's
// Front on, heard by every instance.
const Channel = "queue_fronts"

// Front is what an admission step announces: where the room's front
// stands, whether it is open, and the rate achieved, which every waiting
// page turns into its place and wait.
type Front struct {
	ShowID    int64   `json:"show_id"`
	Enabled   bool    `json:"enabled"`
	Open      bool    `json:"open"`
	Through   int64   `json:"through"`
	PerMinute float64 `json:"per_minute"`
}

// Ticket is one place in a room's queue as its holder's status shows it.
type Ticket struct {
	ID     int64
	ShowID int64
	// Number is the admission order; 0 in a pre-queue before its shuffle.
	Number      int64
	State       State
	ActiveUntil time.Time // zero unless admitted
	UserID      string    // the account it admitted, once one held with it
}

// Place is where a waiting ticket stands: how many are ahead of it (at
// most; some ahead may have gone) and the estimated wait, both unknown
// (ok false) in a pre-queue.
func Place(number, through int64, perMinute float64) (position int64, eta time.Duration, ok bool) {
	if number == 0 {
		return 0, 0, false
	}
	position = max(1, number-through)
	return position, Estimate(position, perMinute), true
}

// Estimate is the wait of the position-th in line at perMinute admissions
// a minute, rounded up to whole seconds. It errs long: the position counts
// anyone ahead who has gone, and the rate is the one achieved (see Rate).
func Estimate(position int64, perMinute float64) time.Duration {
	if position <= 0 {
		return 0
	}
	if perMinute <= 0 {
		perMinute = 1
	}
	secs := math.Ceil(float64(position) * 60 / perMinute)
	return time.Duration(secs) * time.Second
}

// Rate is the admission rate to estimate waits by: what the room achieved
// over its last window (admitted in it, over its length), once a window
// of at least minWindow has passed since it opened; the set rate before.
// A room held back by its cap admits slower than it is set to, and says
// so.
func Rate(set int, admitted int, window, minWindow time.Duration) float64 {
	if window < minWindow || window <= 0 {
		return float64(set)
	}
	achieved := float64(admitted) * float64(time.Minute) / float64(window)
	// One admission a minute at the least, not to promise forever.
	return max(math.Min(achieved, float64(set)), 1)
}

// Signer signs tickets with a secret key: a ticket carries only its show,
// its id and when it was issued, so it names a place in the queue and
// nothing a client could change.
type Signer struct{ key []byte }

// NewSigner returns a signer with key, which must be at least 16 bytes.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < 16 {
		return nil, fmt.Errorf("waiting room key: %d bytes, at least 16 needed", len(key))
	}
	return &Signer{key: key}, nil
}

const ticketPrefix = "q1."

// Sign returns the ticket string for ticket id of showID, issued at.
func (s *Signer) Sign(showID, id int64, issued time.Time) string {
	var body [24]byte
	binary.BigEndian.PutUint64(body[0:], uint64(showID))
	binary.BigEndian.PutUint64(body[8:], uint64(id))
	binary.BigEndian.PutUint64(body[16:], uint64(issued.Unix()))
	enc := base64.RawURLEncoding
	return ticketPrefix + enc.EncodeToString(body[:]) + "." + enc.EncodeToString(s.mac(body[:]))
}

func (s *Signer) mac(body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("marquee queue ticket\x00"))
	m.Write(body)
	return m.Sum(nil)[:16]
}

// Verify returns the id of the ticket t of showID, refusing (with
// ErrQueueRequired) one forged, of another show, or older than TicketLife
// at now.
func (s *Signer) Verify(t string, showID int64, now time.Time) (int64, error) {
	rest, ok := strings.CutPrefix(t, ticketPrefix)
	if !ok || len(t) > 128 {
		return 0, ErrQueueRequired
	}
	b64, sig, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, ErrQueueRequired
	}
	enc := base64.RawURLEncoding
	body, err := enc.DecodeString(b64)
	if err != nil || len(body) != 24 {
		return 0, ErrQueueRequired
	}
	mac, err := enc.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, s.mac(body)) {
		return 0, ErrQueueRequired
	}
	show := int64(binary.BigEndian.Uint64(body[0:]))
	id := int64(binary.BigEndian.Uint64(body[8:]))
	issued := time.Unix(int64(binary.BigEndian.Uint64(body[16:])), 0)
	if show != showID || id <= 0 || now.Sub(issued) > TicketLife || issued.Sub(now) > time.Minute {
		return 0, ErrQueueRequired
	}
	return id, nil
}
