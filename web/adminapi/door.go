package adminapi

import (
	"encoding/base64"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

// CheckIn admits a ticket at a show's door:
// POST /api/v1/admin/shows/{show_id}/checkins {"code","gate"}.
func (h *Handlers) CheckIn(c echo.Context) error {
	id, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	var req struct {
		Code string `json:"code"`
		Gate string `json:"gate"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	a, err := h.Admin.CheckIn(c.Request().Context(), actor(c), id, req.Code, req.Gate)
	if err != nil {
		return problem.Lookup("show", err)
	}
	if err := AdmissionProblem(a); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, admissionView(a))
}

type admissionJSON struct {
	Result     booking.CheckinResult `json:"result"`
	BookingID  string                `json:"booking_id"`
	Seats      []string              `json:"seats"`
	Name       string                `json:"name"`
	AdmittedAt time.Time             `json:"admitted_at"`
}

func admissionView(a booking.Admission) admissionJSON {
	return admissionJSON{Result: a.Result, BookingID: a.BookingID, Seats: problem.NonNil(a.Seats), Name: a.Name,
		AdmittedAt: a.AdmittedAt.UTC()}
}

// AdmissionProblem is the error answer to a scan that admitted nobody, in
// words an usher reads at arm's length; nil for an admission.
func AdmissionProblem(a booking.Admission) *problem.Error {
	switch a.Result {
	case booking.Admitted:
		return nil
	case booking.AlreadyAdmitted:
		return problem.New(http.StatusConflict, string(a.Result), "Already admitted.").
			With("admitted_at", a.AdmittedAt.UTC()).With("by", a.By).With("gate", a.Gate).
			With("booking_id", a.BookingID).With("seats", problem.NonNil(a.Seats))
	case booking.WrongShow:
		return problem.New(http.StatusConflict, string(a.Result), "This ticket is for another show.").
			With("show_id", a.OtherShow.ID).With("movie", a.OtherShow.Movie).
			With("starts_at", a.OtherShow.StartsAt.UTC()).With("screen", a.OtherShow.Screen)
	case booking.TicketCancelled:
		return problem.New(http.StatusConflict, string(a.Result), "This ticket was cancelled or refunded.").
			With("booking_id", a.BookingID)
	}
	return problem.New(http.StatusNotFound, string(booking.UnknownTicket), "This is not a ticket of ours.")
}

type doorJSON struct {
	ShowID   int64            `json:"show_id"`
	Movie    string           `json:"movie"`
	Screen   string           `json:"screen"`
	StartsAt time.Time        `json:"starts_at"`
	TimeZone string           `json:"timezone"`
	Status   string           `json:"status"`
	Admitted int              `json:"admitted"`
	Keys     []doorKeyJSON    `json:"keys"`
	Tickets  []doorTicketJSON `json:"tickets"`
	Doubles  []doubleJSON     `json:"admitted_twice"`
}

type doorKeyJSON struct {
	ID        string `json:"id"`
	PublicKey string `json:"public_key"` // raw Ed25519, base64url
}

type doorTicketJSON struct {
	Code       string     `json:"code"` // the short code
	BookingID  string     `json:"booking_id"`
	Seats      []string   `json:"seats"`
	Name       string     `json:"name"`
	Status     string     `json:"status"`
	AdmittedAt *time.Time `json:"admitted_at"`
}

type doubleJSON struct {
	BookingID string    `json:"booking_id"`
	Seats     []string  `json:"seats"`
	Name      string    `json:"name"`
	First     time.Time `json:"first_admitted_at"`
	FirstBy   string    `json:"first_by"`
	FirstGate string    `json:"first_gate"`
	Again     time.Time `json:"again_at"`
	AgainBy   string    `json:"again_by"`
	AgainGate string    `json:"again_gate"`
}

// DoorView is a show's door as a phone downloads it, to answer scans by
// itself while it has no network.
func DoorView(d admin.Door) doorJSON {
	out := doorJSON{ShowID: d.Show.ID, Movie: d.Show.MovieTitle, Screen: d.Show.ScreenName, StartsAt: d.Show.StartsAt.UTC(),
		TimeZone: d.TimeZone, Status: d.Show.Status, Admitted: d.Admitted,
		Keys: make([]doorKeyJSON, len(d.Keys)), Tickets: make([]doorTicketJSON, len(d.Tickets)), Doubles: make([]doubleJSON, len(d.Doubles))}
	for i, k := range d.Keys {
		out.Keys[i] = doorKeyJSON{ID: k.ID, PublicKey: base64.RawURLEncoding.EncodeToString(k.Key)}
	}
	for i, t := range d.Tickets {
		out.Tickets[i] = doorTicketJSON{Code: t.Short, BookingID: t.BookingID, Seats: t.Seats, Name: t.Name, Status: string(t.Status), AdmittedAt: t.AdmittedAt}
	}
	for i, x := range d.Doubles {
		out.Doubles[i] = doubleJSON{BookingID: x.BookingID, Seats: x.Seats, Name: x.Name, First: x.First.UTC(), FirstBy: x.FirstBy,
			FirstGate: x.FirstGate, Again: x.Again.UTC(), AgainBy: x.AgainBy, AgainGate: x.AgainGate}
	}
	return out
}

// Door is a show's door list: GET /api/v1/admin/shows/{show_id}/door.
func (h *Handlers) Door(c echo.Context) error {
	id, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	d, err := h.Admin.Door(c.Request().Context(), actor(c), id)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, DoorView(d))
}

// SyncCheckIns records the scans a phone made offline:
// POST /api/v1/admin/shows/{show_id}/checkins/sync
// {"scans":[{"code","gate","scanned_at","answer"}]}.
func (h *Handlers) SyncCheckIns(c echo.Context) error {
	id, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	var req struct {
		Scans []struct {
			Code      string                `json:"code"`
			Gate      string                `json:"gate"`
			ScannedAt time.Time             `json:"scanned_at"`
			Answer    booking.CheckinResult `json:"answer"`
		} `json:"scans"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	scans := make([]admin.OfflineScan, len(req.Scans))
	for i, s := range req.Scans {
		scans[i] = admin.OfflineScan{Code: s.Code, Gate: s.Gate, At: s.ScannedAt, Answer: s.Answer}
	}
	answers, err := h.Admin.SyncCheckIns(c.Request().Context(), actor(c), id, scans)
	if err != nil {
		return problem.Lookup("show", err)
	}
	out := make([]any, len(answers))
	for i, a := range answers {
		if p := AdmissionProblem(a); p != nil {
			out[i] = p.Body()
		} else {
			out[i] = admissionView(a)
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"results": out})
}
