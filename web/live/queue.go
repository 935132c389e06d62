package live

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

// frontJSON is a waiting room's front as its pages read it: every ticket
// numbered up to through is admitted (or gone); a page waiting with
// number n has n - through ahead of it, admitted at per_minute.
type frontJSON struct {
	Enabled   bool    `json:"enabled"`
	Open      bool    `json:"open"`
	Through   int64   `json:"through"`
	PerMinute float64 `json:"per_minute"`
}

// QueueLive is a waiting room's websocket, GET
// /shows/{show_id}/queue/live?n=<the page's number>: the room's front, at
// once and then after the admission steps that moved it (every one near
// the front, one every few seconds further back). One message serves
// every page: each knows its own number.
// While the socket is open its ticket keeps its place, as polling would.
func (s *Handler) QueueLive(c echo.Context) error {
	if s.Config.Fronts == nil {
		return problem.NotFound("waiting room")
	}
	showID, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return problem.NotFound("show")
	}
	if origin := c.Request().Header.Get("Origin"); origin == "" || !strings.EqualFold(origin, s.Origin) {
		return errForeignOrigin
	}
	ticket, err := s.Rooms.Signer.Verify(web.QueueTicket(c, showID), showID, s.Now())
	if err != nil {
		return problem.NotFound("queue ticket for this show")
	}
	// The page says its number, so that a page far back in the line is
	// sent the front less often (live.Fronts); nothing else believes it.
	number, _ := strconv.ParseInt(c.QueryParam("n"), 10, 64)
	watch := s.Config.Fronts.Watch(showID, ticket, max(number, 0))
	defer watch.Close()
	conn, err := websocket.Accept(c.Response(), c.Request(), &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return nil // Accept has answered the client
	}
	defer conn.CloseNow()
	ctx := conn.CloseRead(context.WithoutCancel(c.Request().Context()))

	// The room's last front is in memory once this instance heard a
	// step; before, it is the database's.
	var first waitroom.Front
	select {
	case first = <-watch.C():
	default:
		if first, err = s.Store.RoomFront(ctx, showID); err != nil {
			s.Log.ErrorContext(ctx, "waiting room: read front", "show_id", showID, "err", err)
			conn.Close(websocket.StatusTryAgainLater, "try again")
			return nil
		}
	}
	if err := sendFront(ctx, conn, first); err != nil {
		return nil
	}
	ping := time.NewTicker(s.Config.LivePing)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case f := <-watch.C():
			if err := sendFront(ctx, conn, f); err != nil {
				return nil
			}
		case <-ping.C:
			if s.ping(ctx, conn) != nil {
				return nil // dead: reaped
			}
		}
	}
}

func sendFront(ctx context.Context, conn *websocket.Conn, f waitroom.Front) error {
	msg, err := json.Marshal(frontJSON{Enabled: f.Enabled, Open: f.Open, Through: f.Through, PerMinute: f.PerMinute})
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, liveWrite)
	defer cancel()
	return conn.Write(wctx, websocket.MessageText, msg)
}
