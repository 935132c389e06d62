package pages

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/seating"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/clientaddr"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"
)

// Best available on the show page: the form asking for a party, the hold
// of the seats the server chooses for it (the use case the API's
// best_available runs), and the checkout panel saying where they are.

// party is what the best available form asks for: count seats of category
// ("": any), of which wheelchairs are wheelchair spaces.
type party struct {
	count, wheelchairs int
	category           string
}

// defaultPartySize is the form's count before anything was asked.
const defaultPartySize = 2

// query is p as the show page's address carries it back to the form.
func (p party) query() string {
	q := url.Values{"count": {strconv.Itoa(p.count)}}
	if p.category != "" {
		q.Set("category", p.category)
	}
	if p.wheelchairs > 0 {
		q.Set("wheelchairs", strconv.Itoa(p.wheelchairs))
	}
	return q.Encode()
}

// readParty reads a party from the form's fields (or the address's):
// count 1 to max, wheelchairs 0 to count. What it could read is kept even
// when it says what is wrong ("" when nothing is).
func readParty(form url.Values, max int) (party, string) {
	p := party{category: strings.TrimSpace(form.Get("category"))}
	n, err := strconv.Atoi(form.Get("count"))
	if err != nil || n < 1 || n > max {
		return p, fmt.Sprintf("Choose how many seats you want, from 1 to %d.", max)
	}
	p.count = n
	if w := form.Get("wheelchairs"); w != "" {
		n, err := strconv.Atoi(w)
		if err != nil || n < 0 || n > p.count {
			return p, "Choose how many of your party use a wheelchair: at most as many as the seats you want."
		}
		p.wheelchairs = n
	}
	return p, ""
}

// bestSeatsView is the best available form for the show of st, showing
// party p (a zero count: the default).
func (s *Handlers) bestSeatsView(c echo.Context, st showState, p party) *components.BestSeatsView {
	most := s.Config.MaxSeatsPerHold
	v := &components.BestSeatsView{
		Action: "/shows/" + strconv.FormatInt(st.show.ID, 10) + "/best", Key: newKey(), Guest: session.UserID(c) == "",
		Count: p.count, Type: p.category, Wheelchair: p.wheelchairs,
	}
	if v.Count < 1 || v.Count > most {
		v.Count = min(defaultPartySize, most)
	}
	for n := 1; n <= most; n++ {
		v.Counts = append(v.Counts, n)
	}
	prices := map[string]int64{}
	spaces := 0
	for _, seat := range st.seats {
		prices[seat.Category] = seat.PriceMinor
		if seat.Accessible {
			spaces++
		}
	}
	categories := make([]string, 0, len(prices))
	for cat := range prices {
		categories = append(categories, cat)
	}
	// Cheapest first, as the seat map's legend.
	slices.SortFunc(categories, func(a, b string) int { return cmp.Or(cmp.Compare(prices[a], prices[b]), strings.Compare(a, b)) })
	v.Types = append(v.Types, components.BestSeatsType{Value: "", Label: "Any"})
	for _, cat := range categories {
		v.Types = append(v.Types, components.BestSeatsType{
			Value: cat, Label: format.CategoryName(cat) + " · " + format.Money(prices[cat], st.show.Currency),
		})
	}
	if spaces > 0 {
		for n := 0; n <= min(spaces, most); n++ {
			v.Wheelchairs = append(v.Wheelchairs, n)
		}
	}
	return v
}

// BestSeatsPage holds the best free seats for the party the form asks for
// (fields count, category, wheelchairs, key), as the API's best_available
// does, and shows them held. A guest is sent to log in, and comes back to
// the show with the form as it was.
func (s *Handlers) BestSeatsPage(c echo.Context) error {
	showID, err := parseShowParam(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return problem.New(http.StatusBadRequest, "bad_form", "The form could not be read. Reload the page and try again.")
	}
	p, partyProblem := readParty(form, s.Config.MaxSeatsPerHold)
	showPath := "/shows/" + strconv.FormatInt(showID, 10)
	user := session.UserID(c)
	if user == "" {
		next := showPath
		if partyProblem == "" {
			next += "?" + p.query()
		}
		return web.SeeOther(c, web.LoginPath(next))
	}
	ctx := c.Request().Context()
	if partyProblem != "" {
		st, err := s.loadShow(ctx, showID, user)
		if err != nil {
			return err
		}
		sel := selection{party: p, notice: &components.Notice{Kind: "error", Title: "We couldn't look for seats", Text: partyProblem}}
		return s.renderBooking(c, http.StatusUnprocessableEntity, st, s.bookingView(c, st, sel))
	}

	key := form.Get("key")
	if !booking.ValidKey(key) {
		key = newKey()
	}
	hold := func(key string) (booking.HoldResult, error) {
		return s.BoxOffice.Hold(ctx, booking.HoldRequest{
			UserID: user, ShowID: showID, Key: key, Client: clientaddr.Net(c), Ticket: web.QueueTicket(c, showID),
			Best: &booking.BestAvailable{Count: p.count, Category: p.category, Accessible: p.wheelchairs},
		})
	}
	res, holdErr := hold(key)
	if errors.Is(holdErr, booking.ErrKeyReused) {
		// The form's key covers a double submit; sent again for another
		// party (a page restored from the browser's cache), it is a new
		// request.
		res, holdErr = hold(newKey())
	}
	if errors.Is(holdErr, booking.ErrNotFound) {
		return problem.NotFound("show")
	}
	if errors.Is(holdErr, waitroom.ErrQueueRequired) {
		return web.SeeOther(c, queuePath(showID))
	}
	held := holdErr == nil && res.Hold.State == booking.HoldHeld
	if held {
		s.rememberBest(c, res.Hold.ID)
		if !web.IsHTMX(c) {
			return c.Redirect(http.StatusSeeOther, showPath)
		}
	}
	st, err := s.loadShow(ctx, showID, user)
	if err != nil {
		return err
	}

	var (
		active *booking.ActiveHoldError
		capped *booking.HeldSeatsCapError
	)
	sel := selection{party: p, chosen: held}
	status := http.StatusOK
	switch {
	case held:
	case holdErr == nil:
		// A replayed request whose hold has ended since.
		sel.notice = &components.Notice{Kind: "warning", Title: "That hold has ended",
			Text: "Those seats are no longer held for you. Find seats again to continue."}
	case errors.Is(holdErr, booking.ErrNotEnoughSeats), errors.Is(holdErr, booking.ErrInvalidParty):
		status, sel.notice = tooFew(st, p)
	case errors.As(holdErr, &active):
		status = http.StatusConflict
		// loadShow shows one of ours for this show as the checkout panel;
		// one for another show as a notice with a link to it.
		if st.hold != nil {
			sel.notice = &components.Notice{Kind: "info", Title: "You already hold seats for this show"}
		}
	case errors.Is(holdErr, booking.ErrShowClosed):
		status = http.StatusConflict
		sel.notice = &components.Notice{Kind: "error", Title: "This show is no longer on sale"}
	case errors.As(holdErr, &capped):
		ae, _ := problem.For(holdErr)
		status = ae.Status
		for k, v := range ae.Header {
			c.Response().Header().Set(k, v)
		}
		sel.notice = &components.Notice{Kind: "error", Title: "We couldn't hold seats for you", Text: ae.Message}
	default:
		ae, internal := problem.For(holdErr)
		if internal || ae.Status >= 500 {
			return holdErr
		}
		status = ae.Status
		text := "Please try again."
		if ae.Code == "too_many_seats" || ae.Code == "no_seats" {
			text = ae.Message // already plain
		}
		sel.notice = &components.Notice{Kind: "error", Title: "We couldn't hold seats for you", Text: text}
	}
	return s.renderBooking(c, status, st, s.bookingView(c, st, sel))
}

// tooFew says why the show has no seats for party p, from its seats as the
// page shows them: fewer free of the type asked for, fewer wheelchair
// spaces, a type it does not have, or (the seats all there a moment ago)
// others took them meanwhile.
func tooFew(st showState, p party) (int, *components.Notice) {
	free, spaces, known := 0, 0, p.category == ""
	for _, seat := range st.seats {
		if p.category != "" && seat.Category != p.category {
			continue
		}
		known = true
		if seat.Status == booking.SeatAvailable && !seat.Mine {
			free++
			if seat.Accessible {
				spaces++
			}
		}
	}
	if !known {
		return http.StatusUnprocessableEntity, &components.Notice{Kind: "error",
			Title: "This show has no " + format.CategoryName(p.category) + " seats", Text: "Choose a seat type from the list."}
	}
	in, other := "", ""
	if p.category != "" {
		in, other = " in "+format.CategoryName(p.category), ", or another seat type"
	}
	n := &components.Notice{Kind: "error"}
	switch {
	case free < p.count:
		n.Title = left(free, "seat", "seats") + in + "."
		n.Text = "Ask for fewer seats" + other + "."
	case spaces < p.wheelchairs:
		n.Title = left(spaces, "wheelchair space", "wheelchair spaces") + in + "."
		n.Text = "Ask for fewer wheelchair spaces" + other + "."
	default:
		n.Title = "Those seats were taken just now."
		n.Text = "Many people are booking this show at once. Please try again."
	}
	return http.StatusConflict, n
}

// left says how many of a thing are left: "No seats are left", "Only 1
// seat is left", "Only 3 seats are left".
func left(n int, one, many string) string {
	switch n {
	case 0:
		return "No " + many + " are left"
	case 1:
		return "Only 1 " + one + " is left"
	}
	return "Only " + strconv.Itoa(n) + " " + many + " are left"
}

// chosenView makes v's checkout panel that of seats best available chose
// for the viewer: it says where they sit, and offers to choose other seats
// (which releases them).
func chosenView(v *components.BookingView, st showState, h booking.Hold) {
	v.Checkout.ReleaseLabel = "Choose other seats"
	if v.Notice == nil {
		v.Notice = placement(st, h)
	}
}

// placement says where the seats of hold h are: "We found you 3 seats
// together in row F", or "We could not seat all 6 together: 4 in row F and
// 2 in row G".
func placement(st showState, h booking.Hold) *components.Notice {
	hall := make([]seating.Seat, len(st.seats))
	for i, seat := range st.seats {
		hall[i] = seating.Seat{ID: seat.ID, Row: seat.Row, GridRow: seat.GridRow, GridCol: seat.GridCol}
	}
	groups := seating.GroupsOf(hall, h.Seats)
	n := len(h.Seats)
	switch {
	case n == 1:
		return &components.Notice{Kind: "success", Title: "We found you seat " + h.Seats[0] + ".",
			Text: "Pay for it below, or choose another seat."}
	case len(groups) <= 1:
		row := ""
		if len(groups) == 1 {
			row = " in row " + groups[0].Row
		}
		return &components.Notice{Kind: "success", Title: fmt.Sprintf("We found you %d seats together%s.", n, row),
			Text: "Pay for them below, or choose other seats."}
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = fmt.Sprintf("%d in row %s", len(g.Seats), g.Row)
	}
	all := "all " + strconv.Itoa(n)
	if n == 2 {
		all = "both"
	}
	return &components.Notice{Kind: "warning", Title: "We could not seat " + all + " together: " + joinAnd(parts) + ".",
		Text: "These are the best seats left. Pay for them below, or choose other seats."}
}

// bestCookie names the viewer's hold whose seats best available chose, so
// that the show page keeps saying where they are and offering to choose
// others after a redirect or a reload. A cookie rather than the hold: it
// changes only what the page says, and a later hold has another id.
const bestCookie = "marquee_best"

func (s *Handlers) rememberBest(c echo.Context, holdID string) {
	c.SetCookie(&http.Cookie{
		Name: bestCookie, Value: holdID, Path: "/",
		// Past the hold's deadline and the longest payment grace.
		MaxAge:   int((s.Config.HoldTTL + 15*time.Minute).Seconds()),
		HttpOnly: true, Secure: s.Secure(), SameSite: http.SameSiteLaxMode,
	})
}

// heldByBest reports whether the viewer's hold holdID is the seats best
// available chose.
func heldByBest(c echo.Context, holdID string) bool {
	ck, err := c.Cookie(bestCookie)
	return err == nil && ck.Value == holdID
}
