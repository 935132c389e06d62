// Package live serves the live seat map's websocket, GET
// /shows/{show_id}/live: the seats of a show as they change, rendered for
// each viewer.
package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/web/session"
)

// Handler is the live seat map's handler, on the shared server.
type Handler struct{ *web.Server }

// The live seat map: GET /shows/{show_id}/live upgrades to a websocket that
// carries htmx out-of-band fragments, one seat button per changed seat,
// rendered for this viewer (their own held seats read "mine").
//
// A client gets the whole map on connect, unless it asks with ?diff=1 to
// say what it shows instead: its first message is then {"seats": {"A1":
// "held", ...}} naming every seat it does not show as available, and the
// server sends only the seats that differ, or nothing. The show page does
// that on every connection, so a page rendered a moment ago, or one that
// reconnects after a dropped socket, is not sent a map it already has.

const (
	// liveBuffer is how many updates a viewer may fall behind before the
	// hub drops them; the page reconnects and resyncs by itself.
	liveBuffer = 32
	// liveWrite bounds one message's write: a client that cannot take it
	// in time is gone or too slow.
	liveWrite = 10 * time.Second
	// liveHello bounds the wait for a ?diff=1 client's first message, and
	// liveHelloLimit its size: a seat's id and status take under 32 bytes.
	liveHello      = 10 * time.Second
	liveHelloLimit = 256 << 10
	// liveDropGrace is how long a dropped viewer's write under way may
	// still take before the socket is cut.
	liveDropGrace = time.Second
)

// pageState is what a ?diff=1 client says it shows: the status of every seat
// it does not show as available.
type pageState struct {
	Seats map[string]string `json:"seats"`
}

var errForeignOrigin = problem.New(http.StatusForbidden, "origin_refused", "The live seat map only serves pages of this site.")

func (s *Handler) LiveSeatMap(c echo.Context) error {
	if s.Config.Live == nil {
		return problem.NotFound("live seat map")
	}
	showID, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return problem.Lookup("show", err)
	}
	// A page of another site must not read a signed-in viewer's seats
	// through their cookie: the Origin must be ours, exactly.
	if origin := c.Request().Header.Get("Origin"); origin == "" || !strings.EqualFold(origin, s.Origin) {
		return errForeignOrigin
	}
	viewer := session.UserID(c)
	ctx := c.Request().Context()
	// The map in memory is read again below, after subscribing; this read
	// answers 404 for a show not on sale before the upgrade.
	if _, err := s.Config.Live.Map(ctx, showID); err != nil {
		return problem.Lookup("show", err)
	}

	// Subscribe before the first full read, so no change falls between them.
	sub := s.Config.Live.Subscribe(showID, liveBuffer)
	defer sub.Close()
	conn, err := websocket.Accept(c.Response(), c.Request(), &websocket.AcceptOptions{
		// The Origin was checked above against PUBLIC_URL, which may differ
		// from the Host a proxy forwards.
		InsecureSkipVerify: true,
		// Messages over 512 bytes (a big change, a whole map for a client
		// without ?diff=1) shrink by two thirds or more. Without context
		// takeover a connection keeps no compressor between messages,
		// which would cost about a megabyte a viewer.
		CompressionMode: websocket.CompressionNoContextTakeover,
	})
	if err != nil {
		return nil // Accept has answered the client
	}
	defer conn.CloseNow()
	ctx = context.WithoutCancel(ctx)
	var have *pageState
	if c.QueryParam("diff") == "1" {
		if have, err = readPageState(ctx, conn); err != nil {
			s.Log.DebugContext(ctx, "live seat map: first message", "show_id", showID, "err", err)
			conn.Close(websocket.StatusPolicyViolation, "say what the page shows first")
			return nil
		}
	}
	// The viewer sends nothing more; CloseRead answers pings and notices
	// the close.
	ctx = conn.CloseRead(ctx)
	// A viewer the hub dropped (too slow, or the server is shutting down)
	// is let go: closed with 1013 as soon as no write is under way, and a
	// write still stuck on a full socket after liveDropGrace is cut off.
	// Cutting a write short would end the socket without its close code.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-sub.Dropped():
			cut := time.AfterFunc(liveDropGrace, cancel)
			<-ctx.Done()
			cut.Stop()
		case <-ctx.Done():
		}
	}()

	v := liveViewer{id: viewer, mine: map[string]bool{}, diff: have != nil}
	// The first message comes from the map in memory, as the page did: a
	// page rendered a moment ago is sent nothing.
	snap, err := s.Config.Live.Map(ctx, showID)
	if err != nil {
		s.Log.ErrorContext(ctx, "live seat map: read seats", "show_id", showID, "err", err)
		conn.Close(websocket.StatusInternalError, "try again")
		return nil
	}
	// The viewer's hold, read from the database, is laid over it as the
	// page did (live.Snapshot.ViewedBy): the feed may not have brought it.
	var hold *booking.Hold
	if viewer != "" {
		if h, err := s.Store.ActiveHold(ctx, viewer); err == nil {
			hold = &h
		}
	}
	seats, _ := snap.ViewedBy(viewer, hold, nil)
	first := live.Update{ShowID: showID, Seats: seats, Resync: true, Snap: snap}
	var shows func(id string) (string, bool) // what the page says it shows
	if have != nil {
		shows = func(id string) (string, bool) { st, ok := have.Seats[id]; return st, ok }
	}
	if err := s.sendSeats(ctx, conn, &v, first, shows); err != nil {
		return nil
	}
	// What the page shows beyond the map in memory: the seats the
	// viewer's hold from the database changed (the feed has yet to bring
	// them).
	for i, seat := range seats {
		if st := v.statusOf(seat); v.diff && st != v.statusOf(snap.Seats[i]) {
			v.ahead(seat.ID, st)
		}
	}
	ping := time.NewTicker(s.Config.LivePing)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil // the viewer left, or a write outlived liveDropGrace
		case <-sub.Dropped():
			// 1013: one of the codes the htmx ws extension reconnects on
			// (a policy violation, 1008, would leave the page dead); the
			// new connection resyncs.
			conn.Close(websocket.StatusTryAgainLater, "reconnect to resync")
			return nil
		case u := <-sub.Updates():
			if closed, err := s.sendQueued(ctx, conn, &v, sub, u); closed || err != nil {
				return nil
			}
		case <-ping.C:
			if s.ping(ctx, conn) != nil {
				return nil // dead: reaped
			}
		}
	}
}

// liveViewer is one connection's viewer and the seats they hold here: a
// viewer holding seats cannot pick more, so their buttons are not selectable.
type liveViewer struct {
	id   string
	mine map[string]bool
	// diff marks a ?diff=1 page. It is sent only the seats whose status
	// differs from what it shows (on a resync, the connection's first or the
	// hub's after the listener reconnected, the whole of that difference),
	// which is base (the hub's map as of the last update sent, shared by
	// every viewer; nil when unknown: then it is sent everything) but for
	// the few seats in aside (the viewer's own, sent ahead of the map).
	// Other clients get every update whole, and the whole map on a resync.
	diff  bool
	base  *live.Snapshot
	aside map[string]string
}

// statusOf is seat's status as the viewer sees it.
func (v *liveViewer) statusOf(seat booking.Seat) string {
	seat.Mine = v.id != "" && seat.HolderID == v.id
	return format.SeatStatus(seat)
}

// ahead notes that the page shows seat as status, whatever base says.
func (v *liveViewer) ahead(seat, status string) {
	if v.aside == nil {
		v.aside = map[string]string{}
	}
	v.aside[seat] = status
}

// differences keeps of update u only the seats whose status for this viewer
// differs from what shows says the page shows (a seat it does not name shows
// available). u comes back as it is when every seat in it is news, so its
// rendering stays shared with the other viewers.
func (v *liveViewer) differences(u live.Update, shows func(id string) (string, bool)) live.Update {
	keep := make([]booking.Seat, 0, len(u.Seats))
	for _, seat := range u.Seats {
		shown, ok := shows(seat.ID)
		if !ok {
			shown = "available"
		}
		if v.statusOf(seat) != shown {
			keep = append(keep, seat)
		}
	}
	if len(keep) == len(u.Seats) {
		return u
	}
	return live.Update{ShowID: u.ShowID, Seats: keep, Resync: u.Resync, Snap: u.Snap}
}

// pageShows says what a ?diff=1 page shows now, from base and aside; nil
// when base is unknown. A seat it does not know is shown available.
func (v *liveViewer) pageShows() func(id string) (string, bool) {
	base, aside := v.base, v.aside
	if base == nil {
		return nil
	}
	return func(id string) (string, bool) {
		if st, ok := aside[id]; ok {
			return st, true
		}
		seat, ok := base.Seat(id)
		if !ok {
			return "", false
		}
		return v.statusOf(seat), true
	}
}

// sent records that the page now shows update u: the hub's map after it.
func (v *liveViewer) sent(u live.Update) {
	if u.Resync {
		clear(v.aside) // the page shows the whole truth now
	}
	for _, seat := range u.Seats {
		delete(v.aside, seat.ID)
	}
	v.base = u.Snap // nil: the show's map is not kept, unknown from now on
}

// readPageState reads a ?diff=1 client's first message.
func readPageState(ctx context.Context, conn *websocket.Conn) (*pageState, error) {
	conn.SetReadLimit(liveHelloLimit)
	ctx, cancel := context.WithTimeout(ctx, liveHello)
	defer cancel()
	typ, b, err := conn.Read(ctx)
	if err != nil {
		return nil, err
	}
	var st pageState
	if typ != websocket.MessageText {
		return nil, errors.New("the first message is not text")
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// sendSeats writes one update as out-of-band seat buttons (see seatsMessage).
func (s *Handler) sendSeats(ctx context.Context, conn *websocket.Conn, v *liveViewer, u live.Update, shows func(id string) (string, bool)) error {
	msg, err := s.seatsMessage(ctx, v, u, shows)
	if err != nil || len(msg) == 0 {
		return err
	}
	return s.write(ctx, conn, msg)
}

// write sends parts to the page as one message, in frames of their own
// that go out together: parts shared with other viewers are not copied.
func (s *Handler) write(ctx context.Context, conn *websocket.Conn, parts ...[]byte) error {
	wctx, cancel := context.WithTimeout(ctx, liveWrite)
	defer cancel()
	var err error
	if len(parts) == 1 {
		err = conn.Write(wctx, websocket.MessageText, parts[0])
	} else {
		err = writeFrames(wctx, conn, parts)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		s.Log.DebugContext(ctx, "live seat map: write", "err", err)
	}
	if err == nil {
		s.Metrics.LiveMessages.Inc()
	}
	return err
}

// seatsMessage is update u as out-of-band seat buttons for viewer v, nil
// when there is nothing to send. A ?diff=1 page is sent of a resync only
// what differs from what shows says it shows (nil: from what it was sent).
// What it returns may be shared with other viewers: read it, never write it.
func (s *Handler) seatsMessage(ctx context.Context, v *liveViewer, u live.Update, shows func(id string) (string, bool)) ([]byte, error) {
	if u.Resync {
		clear(v.mine)
	}
	// u.Seats is shared by every viewer of the show: read it, never
	// write it.
	for _, seat := range u.Seats {
		if v.id != "" && seat.HolderID == v.id {
			v.mine[seat.ID] = true
		} else {
			delete(v.mine, seat.ID)
		}
	}
	if v.diff {
		if shows == nil {
			shows = v.pageShows() // nil when unknown: everything is sent
		}
		all := u
		if shows != nil {
			u = v.differences(u, shows) // before sent changes what the page shows
		}
		v.sent(all)
		if len(u.Seats) == 0 {
			return nil, nil
		}
	}
	if len(v.mine) == 0 {
		// Guests, and everyone holding none of these seats, see the same
		// thing: rendered once for all of them (most viewers of a show).
		// Not this viewer's cancellation: the result is everyone's.
		return u.Shared(func() ([]byte, error) { return renderSeats(context.WithoutCancel(ctx), u.Seats, nil) })
	}
	return renderSeats(ctx, u.Seats, v.mine)
}

// liveCoalesce is the most updates one message carries. A viewer that fell
// behind (a busy server, a crowd on one show) is sent what queued up as one
// message, the updates' buttons in order, so the page ends in the last
// state: a write, and its system call, per update would keep it behind.
const liveCoalesce = 16

// sendQueued sends first and the updates queued behind it, up to
// liveCoalesce, as one message. closed reports that the show went off sale:
// the socket was closed and the viewer is to be let go.
func (s *Handler) sendQueued(ctx context.Context, conn *websocket.Conn, v *liveViewer, sub *live.Subscription, first *live.Update) (closed bool, err error) {
	var parts [][]byte
	for u, n := first, 1; u != nil; n++ {
		if u.Resync && len(u.Seats) == 0 {
			// The show has no seats on sale any more (it was cancelled):
			// a normal close, which the page does not reconnect after.
			conn.Close(websocket.StatusNormalClosure, "this show is no longer on sale")
			return true, nil
		}
		part, err := s.seatsMessage(ctx, v, *u, nil)
		if err != nil {
			return false, err
		}
		if len(part) > 0 {
			parts = append(parts, part)
		}
		u = nil
		if n < liveCoalesce {
			select {
			case u = <-sub.Updates():
			default:
			}
		}
	}
	if len(parts) == 0 {
		return false, nil
	}
	return false, s.write(ctx, conn, parts...)
}

// writeFrames writes parts as one message of as many frames: only the last
// flushes, so they leave in as few system calls as their bytes allow.
func writeFrames(ctx context.Context, conn *websocket.Conn, parts [][]byte) error {
	w, err := conn.Writer(ctx, websocket.MessageText)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return errors.Join(err, w.Close())
		}
	}
	return w.Close()
}

// renderSeats renders seats as out-of-band seat buttons for a viewer who
// holds mine (nil: nothing); a viewer holding seats cannot pick more.
func renderSeats(ctx context.Context, seats []booking.Seat, mine map[string]bool) ([]byte, error) {
	selectable := len(mine) == 0
	var buf bytes.Buffer
	for _, seat := range seats {
		seat.Mine = mine[seat.ID]
		status := format.SeatStatus(seat)
		view := components.SeatView{
			ID: seat.ID, Number: seat.Number, Category: seat.Category, PriceMinor: seat.PriceMinor,
			Status: status, Label: format.SeatLabel(seat, status), Accessible: seat.Accessible, Companion: seat.Companion,
			R: seat.GridRow, C: seat.GridCol,
		}
		if err := components.Seat(view, selectable).Render(ctx, &buf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// ping asks a socket's client to answer within the ping interval (at most
// liveWrite): one that does not is gone, and its socket is let go.
func (s *Handler) ping(ctx context.Context, conn *websocket.Conn) error {
	pctx, cancel := context.WithTimeout(ctx, min(liveWrite, s.Config.LivePing))
	defer cancel()
	return conn.Ping(pctx)
}
