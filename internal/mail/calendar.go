package mail

import (
	"fmt"
	"strings"

	ics "github.com/arran4/golang-ical"
)

// calendar is booking b's show as an iCalendar event, for the recipient's
// calendar: in UTC (every calendar shows it in the reader's zone), with
// the theatre as its place and the seats and code in its description. Its
// UID is the booking's, so a ticket sent again updates the same event.
func calendar(site Site, f Facts, b Booking) ([]byte, error) {
	cal := ics.NewCalendar()
	cal.SetMethod(ics.MethodPublish)
	cal.SetProductId("-//Marquee//Tickets//EN")
	ev := cal.AddEvent("booking-" + b.ID + "@" + domainOf(site.From.Address))
	ev.SetDtStampTime(f.Now)
	ev.SetStartAt(f.Show.StartsAt)
	ev.SetEndAt(f.Show.EndsAt)
	ev.SetSummary(f.Show.Movie + " at " + f.Theatre.Name)
	ev.SetLocation(strings.TrimSpace(f.Theatre.Name + ", " + f.Theatre.Address))
	ev.SetDescription(fmt.Sprintf("Screen %s. Seats %s. Ticket code %s.", f.Show.Screen, strings.Join(b.Seats, ", "), b.Code))
	ev.SetURL(site.PublicURL + "/bookings/" + b.ID)
	return []byte(cal.Serialize()), nil
}
