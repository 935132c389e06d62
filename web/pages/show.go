package pages

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/gzjoin"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web/clientaddr"
	"github.com/marquee-tickets/marquee/web/compress"
	"github.com/marquee-tickets/marquee/web/session"
)

// The show page: the seat map, the selection form, holding and releasing.
// The interactive part (#booking) is one fragment that every step answers
// with, so htmx swaps it whole and a page without htmx renders the same.

// showState is what a rendering of a show's booking section needs.
type showState struct {
	show  catalog.Show
	seats []booking.Seat
	now   time.Time
	hold  *booking.Hold // the viewer's live hold of this show
	// waiting is the viewer's hold of this show past its deadline, in its
	// payment grace: it can no longer be paid, but a payment made in time
	// may still confirm it.
	waiting   *booking.Hold
	otherHold *booking.Hold // the viewer's live hold of another show
	policy    booking.RefundPolicy
	movie     catalog.Movie
	citySlug  string
	// snap is the seat map in memory the seats come from (nil: read from
	// the database); shared tells that seats is its Seats as they are, so
	// what is rendered from them alone is rendered once per snapshot.
	snap *live.Snapshot
	// admittedUntil is when the viewer's admission from the show's
	// waiting room lapses unused (zero: no room, or not known here).
	admittedUntil time.Time
	shared        bool
}

// loadShow reads what the show page shows the viewer. The seats come from
// the seat map this instance keeps in memory when the live seat map runs,
// else from the database; the viewer's own hold, read from the database, is
// laid over them (live.Snapshot.ViewedBy), so the page right after a hold or
// a release (freed: the seats the viewer has just let go) shows it even
// before the change feed brings it.
func (s *Handlers) loadShow(ctx context.Context, showID int64, viewer string, freed ...string) (showState, error) {
	var st showState
	info, err := s.showInfo(ctx, showID)
	if err != nil {
		return st, problem.Lookup("show", err)
	}
	st.show, st.movie, st.citySlug, st.policy = info.show, info.movie, info.citySlug, info.policy
	st.now = s.Now()
	if st.show.Cancelled {
		// Nothing of it is for sale, and its cancellation ended every hold
		// of it: no seats to show, no hold to look for.
		return st, nil
	}
	if hub := s.Config.Live; hub != nil {
		if st.snap, err = hub.Map(ctx, showID); err != nil {
			return st, problem.Lookup("show", err)
		}
	} else if st.seats, err = s.Store.SeatMap(ctx, showID, viewer); err != nil {
		return st, problem.Lookup("show", err)
	}
	if viewer != "" {
		h, err := s.Store.ActiveHold(ctx, viewer)
		switch {
		case errors.Is(err, booking.ErrNotFound):
		case err != nil:
			return st, err
		case h.ShowID == showID && !h.Payable(st.now):
			st.waiting = &h
		case h.ShowID == showID:
			st.hold = &h
		default:
			st.otherHold = &h
		}
	}
	if st.snap != nil {
		hold := st.hold
		if hold == nil {
			hold = st.waiting
		}
		st.seats, st.shared = st.snap.ViewedBy(viewer, hold, freed)
	}
	return st, nil
}

func (st showState) closed() bool { return !st.now.Before(st.show.StartsAt) }

// selection is the shopper's intent to show in the form: seats picked, and
// seats to flag as just taken.
type selection struct {
	seats  []string
	taken  []string
	notice *components.Notice
	// party is what the best available form asked for, kept in it.
	party party
	// chosen: the viewer's hold is the seats best available chose just
	// now (see heldByBest for later).
	chosen bool
}

// newKey is the idempotency key of one rendering of the hold form: a double
// submit of that form asks for the same hold, and gets it back.
func newKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "page-" + hex.EncodeToString(b)
}

// bookingView builds the booking section for the viewer.
func (s *Handlers) bookingView(c echo.Context, st showState, sel selection) components.BookingView {
	v := components.BookingView{
		ShowID: st.show.ID, CSRF: web.CSRFToken(c), Guest: session.UserID(c) == "", Notice: sel.notice, Key: newKey(),
		AdmittedUntil: admittedUntil(st),
	}
	switch {
	case st.show.Cancelled:
		v.Mode = "cancelled"
		v.Notice = &components.Notice{
			Kind: "warning", Title: "This show was cancelled by the theatre",
			Text:     "None of its seats are on sale. Everyone who booked it was refunded in full.",
			LinkHref: s.showHeading(st.show, st.movie, st.citySlug).MovieHref, LinkText: "See other showtimes of " + st.show.MovieTitle,
		}
	case st.closed():
		v.Mode = "closed"
		v.ClosedMsg = "This show has started, so its seats are no longer on sale."
		v.Map, v.MapHTML = s.seatMap(st, false, nil, nil)
	case st.waiting != nil:
		v.Mode = "closed"
		v.ClosedMsg = "Your time to pay has run out."
		v.Map, v.MapHTML = s.seatMap(st, false, nil, nil)
		v.Notice = &components.Notice{
			Kind: "info", Title: "Waiting for your payment",
			Text: "If you paid before the time ran out, your booking is being confirmed. " +
				"If not, these seats are released in a few minutes and nothing is charged.",
			LinkHref: s.BoxOffice.ReturnURL(st.waiting.ID), LinkText: "See your payment",
		}
	case st.hold != nil:
		v.Mode = "checkout"
		v.Map, v.MapHTML = s.seatMap(st, false, nil, nil)
		v.Checkout = s.checkoutView(st, *st.hold)
		if sel.chosen || heldByBest(c, st.hold.ID) {
			chosenView(&v, st, *st.hold)
		}
	default:
		v.Mode = "select"
		picked := map[string]bool{}
		for _, id := range sel.seats {
			picked[id] = true
		}
		taken := map[string]bool{}
		for _, id := range sel.taken {
			taken[id] = true
		}
		v.Map, v.MapHTML = s.seatMap(st, true, picked, taken)
		var total int64
		for _, seat := range st.seats {
			if picked[seat.ID] && seat.Status == booking.SeatAvailable && !seat.Mine {
				v.Selected = append(v.Selected, seat.ID)
				total += seat.PriceMinor // at most MaxPriceMinor each, for a show's seats: no int64 overflow
			}
		}
		v.Summary = selectionSummary(v.Selected)
		v.Total = format.Money(total, st.show.Currency)
		v.Best = s.bestSeatsView(c, st, sel.party)
		if v.Notice == nil && st.otherHold != nil {
			v.Notice = &components.Notice{
				Kind: "warning", Title: "You're holding seats for another show",
				Text:     "You can hold seats for one show at a time. Pay for those or release them first.",
				LinkHref: "/shows/" + strconv.FormatInt(st.otherHold.ShowID, 10), LinkText: "Go to your held seats",
			}
		}
	}
	return v
}

func selectionSummary(seats []string) string {
	switch len(seats) {
	case 0:
		return "No seats selected yet."
	case 1:
		return "1 seat: " + seats[0]
	}
	return strconv.Itoa(len(seats)) + " seats: " + strings.Join(seats, ", ")
}

// seatMap is the show's seat map for this viewer: its view (see
// components.SeatMapOf), or, when the viewer sees what every viewer without picks
// or seats of their own sees, the map rendered once per snapshot of the
// seats in memory (its view then carries only MaxSeats).
func (s *Handlers) seatMap(st showState, selectable bool, picked, taken map[string]bool) (components.SeatMapView, templ.Component) {
	if st.shared && len(picked) == 0 && len(taken) == 0 {
		key := "page-map:" + strconv.FormatBool(selectable)
		piece, err := st.snap.Memo(key, func() (any, error) {
			var b strings.Builder
			err := components.SeatMap(s.seatMapView(st, selectable, nil, nil)).Render(context.Background(), &b)
			return gzjoin.NewPiece(b.String()), err
		})
		if err == nil {
			return components.SeatMapView{MaxSeats: s.Config.MaxSeatsPerHold}, compress.Shared{Piece: piece.(*gzjoin.Piece)}
		}
	}
	return s.seatMapView(st, selectable, picked, taken), nil
}

// seatMapView is the show's seat map for this viewer (see components.SeatMapOf).
func (s *Handlers) seatMapView(st showState, selectable bool, picked, taken map[string]bool) components.SeatMapView {
	v := components.SeatMapOf(st.seats, st.show.Currency, picked, taken)
	v.ShowID, v.Selectable, v.MaxSeats = st.show.ID, selectable, s.Config.MaxSeatsPerHold
	return v
}

// checkoutView is the checkout panel of the viewer's live hold h.
func (s *Handlers) checkoutView(st showState, h booking.Hold) *components.CheckoutView {
	bySeat := map[string]booking.Seat{}
	for _, seat := range st.seats {
		bySeat[seat.ID] = seat
	}
	left := max(0, int(math.Ceil(h.ExpiresAt.Sub(st.now).Seconds())))
	v := &components.CheckoutView{
		HoldID: h.ID, ShowID: h.ShowID, Total: format.Money(h.AmountMinor, h.Currency),
		ExpiresAt: h.ExpiresAt.UTC().Format(time.RFC3339Nano),
		ServerNow: st.now.UTC().Format(time.RFC3339Nano),
		Remaining: fmt.Sprintf("%d:%02d", left/60, left%60),
		Until:     format.Clock(h.ExpiresAt, st.show.TimeZone),
		PayAction: "/holds/" + url.PathEscape(h.ID) + "/pay",
		Release:   "/holds/" + url.PathEscape(h.ID) + "/release",
		Fees:      "None", // Marquee charges no booking fee: the total is the seats' prices
		RefundNow: format.RefundNow(st.policy, st.show.StartsAt, st.now, st.show.TimeZone),
	}
	for _, id := range format.SeatOrder(h.Seats) {
		seat := bySeat[id]
		v.Lines = append(v.Lines, components.CheckoutLine{
			Seat: id, Category: format.CategoryName(seat.Category), Price: format.Money(seat.PriceMinor, h.Currency),
		})
	}
	return v
}

func (s *Handlers) showHeading(sh catalog.Show, movie catalog.Movie, citySlug string) components.ShowHeading {
	return components.ShowHeading{
		Movie: sh.MovieTitle, MovieHref: moviePath(sh.MovieID, citySlug, sh.StartsAt.In(format.Zone(sh.TimeZone)).Format(time.DateOnly)),
		Rating: movie.Rating, Duration: format.Duration(movie.DurationMinutes),
		Theatre: sh.TheatreName, TheatreHref: theatrePath(sh.TheatreID),
		Screen: sh.ScreenName, Date: format.Date(sh.StartsAt, sh.TimeZone), Time: format.Clock(sh.StartsAt, sh.TimeZone),
		Zone: format.ZoneAbbrev(sh.StartsAt, sh.TimeZone), StartsAt: sh.StartsAt.In(format.Zone(sh.TimeZone)).Format(time.RFC3339),
	}
}

// renderBooking answers with the booking section: the fragment for htmx,
// else the whole show page. Neither is ever kept: a show page restored from
// the browser's cache would offer seats and a hold that have moved on.
func (s *Handlers) renderBooking(c echo.Context, status int, st showState, v components.BookingView) error {
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	if web.IsHTMX(c) {
		return renderWithMap(c, status, v, components.BookingSection(v))
	}
	title := st.show.MovieTitle + ", " + format.Date(st.show.StartsAt, st.show.TimeZone) + " " + format.Clock(st.show.StartsAt, st.show.TimeZone)
	if st.show.Cancelled {
		// Nothing to follow live and no booking to cancel.
		m := s.Meta(c, "Cancelled: "+title)
		m.Wide = true
		return web.Render(c, status, components.ShowPage(m, components.ShowView{
			Heading: s.showHeading(st.show, st.movie, st.citySlug), Booking: v, Cancelled: true,
		}))
	}
	m := s.Meta(c, title)
	m.Wide = true
	return renderWithMap(c, status, v, components.ShowPage(m, components.ShowView{
		Heading: s.showHeading(st.show, st.movie, st.citySlug), Booking: v, Live: s.Config.Live != nil,
		Policy: policyLines(st.policy), RefundNow: format.RefundNow(st.policy, st.show.StartsAt, st.now, st.show.TimeZone),
	}))
}

// renderWithMap writes comp, a page or fragment showing booking section v,
// with v's seat map put in when it is one rendered and compressed once for
// every viewer (compress.Shared).
func renderWithMap(c echo.Context, status int, v components.BookingView, comp templ.Component) error {
	if part, ok := v.MapHTML.(compress.Shared); ok {
		return compress.RenderShared(c, status, comp, part)
	}
	return web.Render(c, status, comp)
}

// policyLines says a refund policy's rules in a moviegoer's words, the
// earliest tier first: "Full refund if you cancel more than 48 hours before
// the show", "75% back if you cancel more than 6 hours before", "No
// cancellation in the last 6 hours". A tier ends at its deadline exactly
// (booking.RefundPolicy.Deadlines), hence "more than".
func policyLines(p booking.RefundPolicy) []string {
	tiers := slices.Clone(p.Tiers)
	slices.SortFunc(tiers, func(a, b booking.RefundTier) int { return int(b.Before - a.Before) })
	var lines []string
	for i, t := range tiers {
		back := strconv.Itoa(t.Percent) + "% back"
		if t.Percent == 100 {
			back = "Full refund"
		}
		before := "before the show"
		if i > 0 {
			before = "before"
		}
		if t.Before <= 0 {
			lines = append(lines, back+" if you cancel any time before the show")
			continue
		}
		lines = append(lines, back+" if you cancel more than "+span(t.Before)+" "+before)
	}
	if len(tiers) == 0 {
		return []string{"Bookings cannot be cancelled"}
	}
	if last := tiers[len(tiers)-1]; last.Before > 0 {
		lines = append(lines, "No cancellation in the last "+span(last.Before))
	}
	return lines
}

// span writes a duration of a refund tier: "48 hours", "90 minutes".
func span(d time.Duration) string {
	if d%time.Hour == 0 {
		return format.Plural(int(d/time.Hour), "hour")
	}
	return format.Plural(int(d/time.Minute), "minute")
}

// seatList reads a comma-separated list of seat ids (?seats=A1,A2), keeping
// only ids that can name a seat, each once, at most max of them.
func seatList(raw string, max int) []string {
	var out []string
	for _, id := range strings.Split(raw, ",") {
		id = strings.TrimSpace(id)
		if seatIDPattern.MatchString(id) && !slices.Contains(out, id) && len(out) < max {
			out = append(out, id)
		}
	}
	return out
}

var seatIDPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,16}$`)

func parseShowParam(c echo.Context) (int64, error) {
	id, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return 0, problem.NotFound("show")
	}
	return id, nil
}

// viewerShow is the show of the address as the caller sees it.
func (s *Handlers) viewerShow(c echo.Context) (showState, error) {
	showID, err := parseShowParam(c)
	if err != nil {
		return showState{}, err
	}
	return s.loadShow(c.Request().Context(), showID, session.UserID(c))
}

// ShowPage is the show page. ?seats=A1,A2 preselects seats (a guest who
// logged in to hold them comes back so); seats taken meanwhile are named.
// ?count=3&category=PREMIUM&wheelchairs=1 fills in the best available form
// (the same guest, having asked for the best seats).
func (s *Handlers) ShowPage(c echo.Context) error {
	queued, admittedUntil, err := s.queued(c)
	if queued || err != nil {
		return err
	}
	st, err := s.viewerShow(c)
	if err != nil {
		return err
	}
	st.admittedUntil = admittedUntil
	sel := selection{seats: seatList(c.QueryParam("seats"), s.Config.MaxSeatsPerHold)}
	sel.party, _ = readParty(c.QueryParams(), s.Config.MaxSeatsPerHold) // a guest's party, back from logging in
	if len(sel.seats) > 0 && st.hold == nil && !st.closed() {
		var gone []string
		for _, seat := range st.seats {
			if slices.Contains(sel.seats, seat.ID) && (seat.Status != booking.SeatAvailable || seat.Mine) {
				gone = append(gone, seat.ID)
			}
		}
		if len(gone) > 0 {
			sel.taken = gone
			sel.notice = &components.Notice{
				Kind: "warning", Title: seatsNoLongerFree(gone),
				Text: "We kept the rest of your selection. Pick other seats to replace them.",
			}
		}
	}
	return s.renderBooking(c, http.StatusOK, st, s.bookingView(c, st, sel))
}

// BookingFragment is the booking section alone. The countdown asks for it
// when a hold runs out (?expired=1), to show the seats freed.
func (s *Handlers) BookingFragment(c echo.Context) error {
	st, err := s.viewerShow(c)
	if err != nil {
		return err
	}
	var sel selection
	if c.QueryParam("expired") != "" && st.hold == nil && !st.closed() {
		sel.notice = &components.Notice{
			Kind: "warning", Title: "Your hold expired",
			Text: "The seats were released and nothing was charged. Pick seats again to continue.",
		}
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	v := s.bookingView(c, st, sel)
	return renderWithMap(c, http.StatusOK, v, components.BookingSection(v))
}

// SeatMapFragment is the seat map alone, as it is now for the viewer.
func (s *Handlers) SeatMapFragment(c echo.Context) error {
	st, err := s.viewerShow(c)
	if err != nil {
		return err
	}
	if st.show.Cancelled {
		return catalog.ErrShowCancelled
	}
	selectable := st.hold == nil && st.waiting == nil && !st.closed()
	view, html := s.seatMap(st, selectable, nil, nil)
	if part, ok := html.(compress.Shared); ok {
		return compress.SharedBlob(c, http.StatusOK, echo.MIMETextHTMLCharsetUTF8, part.Piece)
	}
	return web.Render(c, http.StatusOK, components.SeatMap(view))
}

// seatsNoLongerFree names taken seats in a sentence.
func seatsNoLongerFree(seats []string) string {
	if len(seats) == 1 {
		return "Seat " + seats[0] + " is no longer available"
	}
	return "Seats " + joinAnd(seats) + " are no longer available"
}

func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// HoldSeatsPage holds the selected seats (form fields seat, key). A guest
// is sent to log in, and comes back to the show with the selection kept.
func (s *Handlers) HoldSeatsPage(c echo.Context) error {
	showID, err := parseShowParam(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return problem.New(http.StatusBadRequest, "bad_form", "The form could not be read. Reload the page and try again.")
	}
	seats := form["seat"]
	if session.UserID(c) == "" {
		next := "/shows/" + strconv.FormatInt(showID, 10)
		if keep := seatList(strings.Join(seats, ","), s.Config.MaxSeatsPerHold); len(keep) > 0 {
			next += "?seats=" + url.QueryEscape(strings.Join(keep, ","))
		}
		return web.SeeOther(c, web.LoginPath(next))
	}
	ctx := c.Request().Context()
	key := form.Get("key")
	if !booking.ValidKey(key) {
		key = newKey() // an old form without a key: this request gets its own
	}
	hold := func(key string) (booking.HoldResult, error) {
		return s.BoxOffice.Hold(ctx, booking.HoldRequest{
			UserID: session.UserID(c), ShowID: showID, Seats: seats, Key: key, Client: clientaddr.Net(c),
			Ticket: web.QueueTicket(c, showID),
		})
	}
	res, holdErr := hold(key)
	if errors.Is(holdErr, booking.ErrKeyReused) {
		// A form's key covers a double submit of that form. Sent with
		// other seats (a page restored from the browser's cache, an old
		// tab), it is a new request: it gets a key of its own.
		res, holdErr = hold(newKey())
	}
	if errors.Is(holdErr, booking.ErrNotFound) {
		return problem.NotFound("show")
	}
	if errors.Is(holdErr, waitroom.ErrQueueRequired) {
		return web.SeeOther(c, queuePath(showID))
	}
	st, err := s.loadShow(ctx, showID, session.UserID(c))
	if err != nil {
		return err
	}

	var (
		taken   *booking.SeatsUnavailableError
		unknown *booking.UnknownSeatsError
		active  *booking.ActiveHoldError
		capped  *booking.HeldSeatsCapError
		orphan  *booking.OrphanSeatError
	)
	sel := selection{seats: seats}
	status := http.StatusOK
	switch {
	case holdErr == nil && res.Hold.State == booking.HoldHeld:
		if !web.IsHTMX(c) {
			return c.Redirect(http.StatusSeeOther, "/shows/"+strconv.FormatInt(showID, 10))
		}
	case holdErr == nil:
		// A replayed request whose hold has ended since.
		sel.seats = nil
		sel.notice = &components.Notice{Kind: "warning", Title: "That hold has ended",
			Text: "Those seats are no longer held for you. Pick seats again to continue."}
	case errors.As(holdErr, &taken):
		status = http.StatusConflict
		sel.taken = taken.Seats
		sel.seats = slices.DeleteFunc(slices.Clone(seats), func(id string) bool { return slices.Contains(taken.Seats, id) })
		sel.notice = &components.Notice{Kind: "error", Title: seatsNoLongerFree(taken.Seats),
			Text: "Someone else got there first, so nothing was held. We kept the rest of your selection: pick other seats and try again."}
	case errors.As(holdErr, &active):
		status = http.StatusConflict
		// loadShow shows one of ours for this show as the checkout panel;
		// one for another show as a notice with a link to it.
		if st.hold != nil {
			sel.notice = &components.Notice{Kind: "info", Title: "You already hold seats for this show"}
		}
	case errors.As(holdErr, &unknown):
		status = http.StatusUnprocessableEntity
		sel.seats = slices.DeleteFunc(slices.Clone(seats), func(id string) bool { return slices.Contains(unknown.Seats, id) })
		sel.notice = &components.Notice{Kind: "error", Title: "This show has no seat " + joinAnd(unknown.Seats),
			Text: "Pick seats on the map below."}
	case errors.Is(holdErr, booking.ErrShowClosed):
		status = http.StatusConflict
		sel.notice = &components.Notice{Kind: "error", Title: "This show is no longer on sale"}
	case errors.As(holdErr, &orphan):
		return s.orphanRefused(c, st, seats, orphan)
	case errors.As(holdErr, &capped):
		// Seats held from the shopper's address, maybe by others: the
		// selection is kept for when some are let go.
		ae, _ := problem.For(holdErr)
		status = ae.Status
		for k, v := range ae.Header {
			c.Response().Header().Set(k, v)
		}
		sel.notice = &components.Notice{Kind: "error", Title: "We couldn't hold those seats", Text: ae.Message}
	default:
		ae, internal := problem.For(holdErr)
		if internal || ae.Status >= 500 {
			return holdErr
		}
		status = ae.Status
		sel.seats = nil
		var tooMany *booking.TooManySeatsError
		if errors.As(holdErr, &tooMany) {
			sel.seats = seats[:min(len(seats), tooMany.Max)]
		}
		sel.notice = &components.Notice{Kind: "error", Title: "We couldn't hold those seats", Text: holdProblem(ae)}
	}
	return s.renderBooking(c, status, st, s.bookingView(c, st, sel))
}

// holdProblem says in a moviegoer's words why a hold was refused: the
// API's messages speak to programmers (ids, keys), the page's never do.
func holdProblem(ae *problem.Error) string {
	switch ae.Code {
	case "too_many_seats", "no_seats", "show_closed", "active_hold_exists":
		return ae.Message // already plain
	case "duplicate_seats":
		return "A seat was picked twice. Check your selection and try again."
	case "invalid_seat", "unknown_seats":
		return "Some of those seats are not on this map. Pick seats on the map below."
	}
	return "Please pick your seats again and press Hold."
}

// ReleaseHoldPage gives the caller's held seats back, and shows the booking
// section of the show the form was on (form field show).
func (s *Handlers) ReleaseHoldPage(c echo.Context) error {
	ctx := c.Request().Context()
	res, err := s.BoxOffice.Release(ctx, session.UserID(c), c.Param("hold_id"))
	h := res.Hold
	sel := selection{}
	switch {
	case errors.Is(err, booking.ErrHoldConfirmed):
		sel.notice = &components.Notice{Kind: "info", Title: "These seats are already paid for",
			LinkHref: "/bookings", LinkText: "See your bookings"}
	case err != nil:
		return problem.Lookup("hold", err)
	case h.State == booking.HoldCancelled:
		// The selection starts empty: the released seats are not picked
		// again behind the shopper's back.
		sel.notice = &components.Notice{Kind: "success", Title: "Seats released", Text: "Nothing was charged. Pick seats again whenever you like."}
	default:
		sel.notice = &components.Notice{Kind: "info", Title: "This hold had already ended", Text: "Nothing was charged."}
	}
	showID := h.ShowID
	if id, err := web.ParseID(c.FormValue("show")); err == nil {
		showID = id
	}
	if !web.IsHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/shows/"+strconv.FormatInt(showID, 10))
	}
	var freed []string
	if err == nil && h.State == booking.HoldCancelled {
		freed = h.Seats
	}
	st, err := s.loadShow(ctx, showID, session.UserID(c), freed...)
	if err != nil {
		return err
	}
	return s.renderBooking(c, http.StatusOK, st, s.bookingView(c, st, sel))
}

// admittedUntil says, to a viewer let in from the show's waiting room who
// holds nothing yet, by when to hold seats: "22:35".
func admittedUntil(st showState) string {
	if st.admittedUntil.IsZero() || st.hold != nil || st.closed() {
		return ""
	}
	return format.Clock(st.admittedUntil, st.show.TimeZone)
}
