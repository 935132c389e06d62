package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/web/webtest"
)

func queuePath(show int64) string { return fmt.Sprintf("/api/v1/shows/%d/queue", show) }

func roomPath(show int64) string { return fmt.Sprintf("/api/v1/admin/shows/%d/waiting-room", show) }

// step takes one admission step of show, the clock a second on.
func step(t *testing.T, e *webtest.Env, show int64) {
	t.Helper()
	e.Clock.Advance(time.Second)
	if _, ran, err := e.Store.StepRoom(context.Background(), show, 5*time.Minute); err != nil || !ran {
		t.Fatalf("step: %v, ran %v", err, ran)
	}
}

func holdWith(c *webtest.Client, ticket, key string, seats ...string) *webtest.Response {
	h := map[string]string{"Idempotency-Key": key}
	if ticket != "" {
		h["Queue-Ticket"] = ticket
	}
	return c.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", c.E.Show),
		Body: map[string]any{"seats": seats}, Header: h})
}

func TestWaitingRoomAPI(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	manager := e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)

	t.Run("with the room off, everyone is admitted at once", func(t *testing.T) {
		r := e.Guest().Post(queuePath(e.Show), nil)
		webtest.Want(t, r, http.StatusCreated)
		if r.Str("state") != "ADMITTED" || r.JSON["ticket"] != nil {
			t.Fatalf("room off: %s", r)
		}
		webtest.WantError(t, e.Guest().Post(queuePath(e.Show+999), nil), http.StatusNotFound, "not_found")
	})

	t.Run("only the show's theatre's admins set its room, within bounds", func(t *testing.T) {
		other := e.Admin(t, auth.RoleTheatreAdmin, pgtestTheatre(t, e))
		body := map[string]any{"enabled": true, "admit_per_minute": 60, "max_active": 1}
		webtest.WantError(t, other.Send(webtest.Req{Method: "PUT", Path: roomPath(e.Show), Body: body}), http.StatusNotFound, "not_found")
		webtest.WantError(t, e.User(t).Send(webtest.Req{Method: "PUT", Path: roomPath(e.Show), Body: body}), http.StatusForbidden, "forbidden")
		for _, bad := range []map[string]any{
			{"enabled": true, "admit_per_minute": -1, "max_active": 1},
			{"enabled": true, "admit_per_minute": 1, "max_active": 100001},
		} {
			webtest.WantError(t, manager.Send(webtest.Req{Method: "PUT", Path: roomPath(e.Show), Body: bad}), http.StatusUnprocessableEntity, "invalid_waiting_room")
		}
		webtest.WantError(t, manager.Send(webtest.Req{Method: "PUT", Path: roomPath(e.Show), Body: map[string]any{}}), http.StatusUnprocessableEntity, "enabled_required")
		if n := e.Count(t, `SELECT count(*) FROM waiting_rooms`); n != 0 {
			t.Fatalf("refused settings stored a room")
		}
		r := manager.Send(webtest.Req{Method: "PUT", Path: roomPath(e.Show), Body: body})
		webtest.Want(t, r, http.StatusOK)
		if r.JSON["enabled"] != true || r.Num("admit_per_minute") != 60 || r.Num("max_active") != 1 || r.JSON["opens_at"] != nil {
			t.Fatalf("stored room = %s", r)
		}
		if n := e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'show.waiting_room'`); n != 1 {
			t.Fatalf("%d audit entries", n)
		}
	})

	first, second := e.User(t), e.User(t)
	var ticket string
	t.Run("a waiting ticket is refused the seat map and holds; a refresh keeps its place", func(t *testing.T) {
		r := first.Post(queuePath(e.Show), nil)
		webtest.Want(t, r, http.StatusCreated)
		ticket = r.Str("ticket")
		if r.Str("state") != "WAITING" || ticket == "" {
			t.Fatalf("join = %s", r)
		}
		step(t, e, e.Show) // opens the room: numbers the first
		r2 := second.Post(queuePath(e.Show), nil)
		if r2.Str("state") != "WAITING" || r2.Num("position") != 2 || r2.Num("eta_s") != 2 {
			t.Fatalf("second = %s, want position 2, 2 s at 60 a minute", r2)
		}
		again := first.Post(queuePath(e.Show), nil)
		if again.Str("ticket") != ticket || again.Num("position") != 1 {
			t.Fatalf("the same browser again = %s, want its ticket %s at 1", again, ticket)
		}
		// The cookie carries the ticket; the header would do as well.
		webtest.WantError(t, first.Hold("A1"), http.StatusForbidden, "queue_required")
		webtest.WantError(t, holdWith(e.User(t), ticket, "k-forged", "A1"), http.StatusForbidden, "queue_required")
		// The show page sends a waiter to the queue page (the client
		// follows the redirect).
		if page := first.Get(fmt.Sprintf("/shows/%d", e.Show)); page.Status != http.StatusOK || !strings.Contains(string(page.Body), "in the queue") {
			t.Fatalf("show page of a waiter = %d %.300s", page.Status, page.Body)
		}
	})

	t.Run("admitted, the ticket holds for its first account only", func(t *testing.T) {
		step(t, e, e.Show)
		r := first.Get(queuePath(e.Show))
		if r.Str("state") != "ADMITTED" || r.JSON["admitted_until"] == nil {
			t.Fatalf("after a step: %s", r)
		}
		if s := second.Get(queuePath(e.Show)); s.Str("state") != "WAITING" || s.Num("position") != 1 {
			t.Fatalf("the second, with the cap of 1 taken: %s", s)
		}
		if page := first.Get(fmt.Sprintf("/shows/%d", e.Show)); page.Status != http.StatusOK || strings.Contains(string(page.Body), "in the queue") {
			t.Fatalf("show page of the admitted = %d %.300s", page.Status, page.Body)
		}
		webtest.Want(t, first.Hold("A1"), http.StatusCreated)
		webtest.WantError(t, holdWith(e.User(t), ticket, "k-borrowed", "A2"), http.StatusForbidden, "queue_required")
	})

	t.Run("tickets of another show, forged or none are not found", func(t *testing.T) {
		otherShow := e.NewShow(t)
		webtest.WantError(t, e.Guest().Get(queuePath(e.Show)), http.StatusNotFound, "not_found")
		for _, bad := range []string{ticket[:len(ticket)-3] + "AAA", "q1.nonsense", "x"} {
			r := e.Guest().Send(webtest.Req{Method: "GET", Path: queuePath(e.Show), Header: map[string]string{"Queue-Ticket": bad}})
			webtest.WantError(t, r, http.StatusNotFound, "not_found")
		}
		r := e.Guest().Send(webtest.Req{Method: "GET", Path: queuePath(otherShow), Header: map[string]string{"Queue-Ticket": ticket}})
		webtest.WantError(t, r, http.StatusNotFound, "not_found")
	})

	t.Run("a waiting ticket unpolled for 5 minutes loses its place", func(t *testing.T) {
		lost := e.User(t)
		r := lost.Post(queuePath(e.Show), nil)
		old := r.Str("ticket")
		e.Clock.Advance(5 * time.Minute)
		second.Get(queuePath(e.Show)) // the second keeps polling
		step(t, e, e.Show)
		if g := lost.Get(queuePath(e.Show)); g.Str("state") != "EXPIRED" {
			t.Fatalf("after 5 minutes unpolled: %s", g)
		}
		again := lost.Post(queuePath(e.Show), nil)
		if again.Str("ticket") == old || again.Str("state") != "WAITING" {
			t.Fatalf("joining again = %s, want a new ticket", again)
		}
	})

	t.Run("switched off, the waiters go on", func(t *testing.T) {
		webtest.Want(t, manager.Send(webtest.Req{Method: "PUT", Path: roomPath(e.Show), Body: map[string]any{"enabled": false}}), http.StatusOK)
		if r := second.Get(queuePath(e.Show)); r.Str("state") != "ADMITTED" {
			t.Fatalf("after the room closed: %s", r)
		}
		webtest.Want(t, second.Hold("B1"), http.StatusCreated)
		webtest.Want(t, e.User(t).Hold("B5"), http.StatusCreated)
	})
}

// pgtestTheatre is a theatre other than the env's.
func pgtestTheatre(t *testing.T, e *webtest.Env) int64 {
	t.Helper()
	return e.Count(t, `INSERT INTO theatres (city_id, name, address, timezone) SELECT city_id, 'Elsewhere', 'Road', timezone FROM theatres WHERE id = $1 RETURNING id`, e.Venue.TheatreID)
}
