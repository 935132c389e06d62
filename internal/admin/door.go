package admin

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/ticket"
)

// MaxGate bounds a door's name, as the usher types it.
const MaxGate = 40

// maxCode bounds a scanned or typed code: a signed code is about 120
// characters; anything much longer is not a ticket.
const maxCode = 200

// MaxSyncScans bounds one phone's sync: more scans than any hall has seats.
const MaxSyncScans = 5000

func (s *Service) tickets() *ticket.Keys {
	if s.Tickets == nil {
		return ticket.DevKeys()
	}
	return s.Tickets
}

// CheckIn answers a ticket scanned or typed at the door of showID (ushers,
// the box office and managers of its theatre), and records it: see
// postgres.(*Store).Admit. A forged or unknown code is
// booking.UnknownTicket.
func (s *Service) CheckIn(ctx context.Context, a Actor, showID int64, code, gate string) (booking.Admission, error) {
	if _, err := s.requireShowFor(ctx, a, showID, CheckIn); err != nil {
		return booking.Admission{}, err
	}
	gate, err := checkGate(gate)
	if err != nil {
		return booking.Admission{}, err
	}
	return s.Store.Admit(ctx, booking.Scan{ShowID: showID, Short: s.short(code), By: a.UserID, Gate: gate})
}

// OfflineScan is a scan a phone answered by itself while it had no
// network, as it reports it when back.
type OfflineScan struct {
	Code string
	Gate string
	At   time.Time
	// Answer is what the phone said then: ADMITTED when it let the
	// holder in.
	Answer booking.CheckinResult
}

// SyncCheckIns records the scans a phone made offline at showID's door,
// in the order they were made, and answers each as the door would have
// then: a ticket the phone admitted that another scan had admitted first
// comes back AlreadyAdmitted, and the show's page lists it as admitted
// twice.
func (s *Service) SyncCheckIns(ctx context.Context, a Actor, showID int64, scans []OfflineScan) ([]booking.Admission, error) {
	if _, err := s.requireShowFor(ctx, a, showID, CheckIn); err != nil {
		return nil, err
	}
	if len(scans) > MaxSyncScans {
		return nil, &catalog.FieldError{Field: "scans", Message: fmt.Sprintf("send at most %d scans at a time", MaxSyncScans)}
	}
	now := s.now()
	for i := range scans {
		gate, err := checkGate(scans[i].Gate)
		if err != nil {
			return nil, err
		}
		scans[i].Gate = gate
		// A phone's clock may be off: a scan is never later than its
		// report, and its time is the phone's otherwise.
		if scans[i].At.IsZero() || scans[i].At.After(now) {
			scans[i].At = now
		}
	}
	order := slices.Clone(scans)
	slices.SortStableFunc(order, func(x, y OfflineScan) int { return x.At.Compare(y.At) })
	answers := make([]booking.Admission, 0, len(order))
	for _, sc := range order {
		phone := sc.Answer
		if phone != booking.Admitted {
			phone = "" // only an admission the phone made matters later
		}
		ad, err := s.Store.Admit(ctx, booking.Scan{ShowID: showID, Short: s.short(sc.Code), By: a.UserID,
			Gate: sc.Gate, At: sc.At, Offline: true, PhoneResult: phone})
		if err != nil {
			return nil, err
		}
		answers = append(answers, ad)
	}
	return answers, nil
}

// short is the booking's short code a scanned or typed code names, or ""
// for a forgery: a signed code must verify, a typed one is the short code
// with any spaces or dashes a person adds.
func (s *Service) short(code string) string {
	code = strings.TrimSpace(code)
	if len(code) > maxCode {
		return ""
	}
	if ticket.Signed(code) {
		c, err := s.tickets().Verify(code)
		if err != nil {
			return ""
		}
		return c.Short
	}
	return strings.Map(func(r rune) rune {
		if r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToUpper(r)
	}, code)
}

func checkGate(gate string) (string, error) {
	gate = strings.TrimSpace(gate)
	if len([]rune(gate)) > MaxGate || hasControl(gate) {
		return "", &catalog.FieldError{Field: "gate", Message: fmt.Sprintf("name the door in at most %d characters", MaxGate)}
	}
	return gate, nil
}

// Door is what a phone at a show's door needs: the show, its tickets, the
// keys that sign real ones, and how the evening goes.
type Door struct {
	Show     catalog.AdminShow
	TimeZone string
	Tickets  []booking.DoorTicket
	Keys     []ticket.PublicKey
	Admitted int
	Doubles  []booking.DoubleAdmission
}

// Door reads showID's door (ushers, the box office and managers of its
// theatre).
func (s *Service) Door(ctx context.Context, a Actor, showID int64) (Door, error) {
	theatre, err := s.requireShowFor(ctx, a, showID, CheckIn)
	if err != nil {
		return Door{}, err
	}
	var d Door
	if d.Show, err = s.Store.AdminShow(ctx, showID); err != nil {
		return d, err
	}
	t, err := s.Store.Theatre(ctx, theatre)
	if err != nil {
		return d, err
	}
	d.TimeZone = t.TimeZone
	if d.Tickets, err = s.Store.DoorList(ctx, showID); err != nil {
		return d, err
	}
	for _, tk := range d.Tickets {
		if tk.AdmittedAt != nil {
			d.Admitted++
		}
	}
	if d.Doubles, err = s.Store.DoubleAdmissions(ctx, showID); err != nil {
		return d, err
	}
	d.Keys = s.tickets().Public()
	return d, nil
}

// Attendance is how many of showID's sold seats were admitted at its door
// (whoever may see the show's occupancy: every staff role).
func (s *Service) Attendance(ctx context.Context, a Actor, showID int64) (booking.Attendance, error) {
	if _, err := s.requireShowFor(ctx, a, showID, SeeShows); err != nil {
		return booking.Attendance{}, err
	}
	return s.Store.Attendance(ctx, showID)
}

// StaffShow is a scheduled show of one of the actor's theatres, with the
// theatre it plays at.
type StaffShow struct {
	catalog.TheatreShow
	Theatre  string
	TimeZone string
}

// StaffShows are the scheduled shows starting between now+from and
// now+to, at the theatres where the actor may do what needs p, soonest
// first: the door's list (shows started lately included, for latecomers)
// and the box office's.
func (s *Service) StaffShows(ctx context.Context, a Actor, p Power, from, to time.Duration) ([]StaffShow, error) {
	theatres, err := s.Theatres(ctx, a)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var list []StaffShow
	for _, t := range theatres {
		if !a.Can(p, t.ID) {
			continue
		}
		loc, err := time.LoadLocation(t.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("theatre %d: time zone %q: %w", t.ID, t.TimeZone, err)
		}
		shows, err := s.TheatreShows(ctx, a, t.ID, now.Add(from).In(loc), now.Add(to).In(loc))
		if err != nil {
			return nil, err
		}
		for _, sh := range shows {
			if sh.Status == "SCHEDULED" && sh.StartsAt.After(now.Add(from)) && !sh.StartsAt.After(now.Add(to)) {
				list = append(list, StaffShow{TheatreShow: sh, Theatre: t.Name, TimeZone: t.TimeZone})
			}
		}
	}
	slices.SortStableFunc(list, func(x, y StaffShow) int { return x.StartsAt.Compare(y.StartsAt) })
	return list, nil
}
