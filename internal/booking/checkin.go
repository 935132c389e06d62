package booking

import "time"

// CheckinResult is what the door answers a scanned ticket.
type CheckinResult string

// The answers, as the admin API names them.
const (
	Admitted        CheckinResult = "ADMITTED"
	AlreadyAdmitted CheckinResult = "already_admitted"
	WrongShow       CheckinResult = "wrong_show"
	TicketCancelled CheckinResult = "ticket_cancelled"
	UnknownTicket   CheckinResult = "unknown_ticket"
)

// Scan is one ticket scanned (or typed) at the door of a show.
type Scan struct {
	ShowID int64
	// Short is the booking's short code, read from the signed code or
	// typed in.
	Short string
	By    string // the usher's account
	Gate  string // which door, if the usher named it
	// At is when it was scanned: zero for now; a phone's time when it
	// scanned offline and syncs later.
	At time.Time
	// Offline is a scan a phone answered by itself, PhoneResult its
	// answer then.
	Offline     bool
	PhoneResult CheckinResult
}

// Admission is the answer to a scan.
type Admission struct {
	Result    CheckinResult
	BookingID string
	Seats     []string
	Name      string // the ticket holder
	// AdmittedAt, By and Gate are the admission: this scan's, or the one
	// before it (AlreadyAdmitted).
	AdmittedAt time.Time
	By         string // the name of who admitted it
	Gate       string
	// The ticket's show, when it is another one (WrongShow).
	OtherShow Showing
}

// Attendance is how many of a show's sold seats came in at its door, as
// its occupancy page follows it. A booking is admitted whole: every seat
// of it at once.
type Attendance struct {
	Admitted int // seats of the show's confirmed bookings that were admitted
	Sold     int // seats of its confirmed bookings
	// Open: the show is scheduled and has not ended, so more may still
	// come in.
	Open bool
}

// Showing names a show to a person: its movie and when it starts.
type Showing struct {
	ID       int64
	Movie    string
	Screen   string
	StartsAt time.Time
	TimeZone string
}

// DoorTicket is one booking of a show as a phone at the door downloads it,
// to answer scans by itself while it has no network.
type DoorTicket struct {
	Short      string
	BookingID  string
	Seats      []string
	Name       string
	Status     BookingStatus
	AdmittedAt *time.Time
}

// DoubleAdmission is a ticket a phone admitted offline after another scan
// had admitted it: two people may have come in on one ticket.
type DoubleAdmission struct {
	BookingID string
	Seats     []string
	Name      string
	First     time.Time // the admission that stands
	FirstBy   string
	FirstGate string
	Again     time.Time // the phone's offline admission
	AgainBy   string
	AgainGate string
}

// Attendee is a confirmed booking of a show as its staff list it.
type Attendee struct {
	BookingID   string
	Name        string
	Email       string // "" for a counter sale without one
	Seats       []string
	Channel     Channel
	CheckedInAt *time.Time
}
