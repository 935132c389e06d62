package admin

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// AttendeeList is a show's attendees, for its theatre's staff.
type AttendeeList struct {
	Show      catalog.AdminShow
	Attendees []booking.Attendee
}

// Attendees lists showID's confirmed bookings with their names, e-mail
// addresses and whether they came in (the box office and managers of its
// theatre).
func (s *Service) Attendees(ctx context.Context, a Actor, showID int64) (AttendeeList, error) {
	if _, err := s.requireShowFor(ctx, a, showID, SeeAttendees); err != nil {
		return AttendeeList{}, err
	}
	var l AttendeeList
	var err error
	if l.Show, err = s.Store.AdminShow(ctx, showID); err != nil {
		return l, err
	}
	l.Attendees, err = s.Store.Attendees(ctx, showID)
	return l, err
}

// CSV is the list as a spreadsheet: times in the theatre's zone, which
// the header names; a name a spreadsheet would take for a formula is kept
// as text.
func (l AttendeeList) CSV() (data []byte, name string, err error) {
	loc, err := time.LoadLocation(l.Show.TimeZone)
	if err != nil {
		return nil, "", fmt.Errorf("show %d: time zone %q: %w", l.Show.ID, l.Show.TimeZone, err)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"booking_id", "name", "email", "seats", "channel", "checked_in_at (" + l.Show.TimeZone + ")"})
	for _, at := range l.Attendees {
		in := ""
		if at.CheckedInAt != nil {
			in = at.CheckedInAt.In(loc).Format("2006-01-02 15:04:05")
		}
		_ = w.Write([]string{at.BookingID, spreadsheetText(at.Name), spreadsheetText(at.Email),
			strings.Join(at.Seats, " "), string(at.Channel), in})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, "", fmt.Errorf("attendees CSV: %w", err)
	}
	return buf.Bytes(), fmt.Sprintf("attendees-show-%d.csv", l.Show.ID), nil
}
