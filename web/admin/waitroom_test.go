package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestWaitingRoomForm(t *testing.T) {
	e := webtest.NewEnv(t)
	who := newSalesPeople(t, e)
	path := fmt.Sprintf("/admin/shows/%d", e.Show)
	room := func() (bool, int64, int64, bool) {
		var (
			on         bool
			rate, cap_ int64
			opens      bool
		)
		if err := e.Store.Pool().QueryRow(t.Context(), `SELECT enabled, admit_per_minute, max_active, opens_at IS NOT NULL FROM waiting_rooms WHERE show_id = $1`, e.Show).
			Scan(&on, &rate, &cap_, &opens); err != nil {
			t.Fatal(err)
		}
		return on, rate, cap_, opens
	}

	t.Run("the page offers the room, off, with the defaults", func(t *testing.T) {
		p := who.admin.Get(t, path)
		webtest.Want200(t, p)
		if !p.Has(`form[action="`+path+`/waiting-room"] input[name="_csrf"]`) || p.Has(`#room-enabled[checked]`) ||
			p.Attr("#room-admit_per_minute", "value") != "600" || p.Attr("#room-max_active", "value") != "300" ||
			!p.Has(`label[for="room-opens_at"]`) {
			t.Fatalf("waiting room form: %s", p.Text("[data-waiting-room]"))
		}
	})

	t.Run("mistakes are said at their fields and change nothing", func(t *testing.T) {
		before := e.Snapshot(t)
		p := who.admin.Submit(t, path+"/waiting-room", url.Values{"enabled": {"on"}, "admit_per_minute": {"0"}, "max_active": {"lots"}, "opens_at": {"next week"}})
		webtest.WantFriendly(t, p, http.StatusUnprocessableEntity)
		for _, f := range []string{"admit_per_minute", "max_active", "opens_at"} {
			if p.Attr("#room-"+f, "aria-invalid") != "true" || p.Text("#room-"+f+"-error") == "" {
				t.Fatalf("field %s is not marked: %s", f, p.Text("[data-waiting-room]"))
			}
		}
		if p.Attr("#room-max_active", "value") != "lots" {
			t.Fatal("the form lost what was typed")
		}
		if after := e.Snapshot(t); after != before {
			t.Fatalf("a refused form changed %s -> %s", before, after)
		}
	})

	t.Run("saved, the room is on and its figures shown; another theatre's admin cannot", func(t *testing.T) {
		webtest.WantFriendly(t, who.stranger.Submit(t, path+"/waiting-room", url.Values{"enabled": {"on"}, "admit_per_minute": {"60"}, "max_active": {"5"}}), http.StatusNotFound)
		webtest.WantFriendly(t, who.moviegoer.Submit(t, path+"/waiting-room", url.Values{"enabled": {"on"}, "admit_per_minute": {"60"}, "max_active": {"5"}}), http.StatusForbidden)
		// Sales open in an hour, by the theatre's clock; after the show
		// starts is refused.
		var tz string
		if err := e.Store.Pool().QueryRow(t.Context(), `SELECT timezone FROM theatres WHERE id = $1`, e.Venue.TheatreID).Scan(&tz); err != nil {
			t.Fatal(err)
		}
		loc, err := time.LoadLocation(tz)
		if err != nil {
			t.Fatal(err)
		}
		late := who.admin.Submit(t, path+"/waiting-room", url.Values{"enabled": {"on"}, "admit_per_minute": {"60"}, "max_active": {"5"},
			"opens_at": {time.Now().Add(96 * time.Hour).In(loc).Format("2006-01-02T15:04")}})
		webtest.WantFriendly(t, late, http.StatusUnprocessableEntity)
		if !strings.Contains(late.Text("#room-opens_at-error"), "before the show starts") {
			t.Fatalf("an opening after the show: %s", late.Text("[data-waiting-room]"))
		}
		opens := time.Now().Add(time.Hour).In(loc).Format("2006-01-02T15:04")
		p := who.admin.Submit(t, path+"/waiting-room", url.Values{"enabled": {"on"}, "admit_per_minute": {"60"}, "max_active": {"5"}, "opens_at": {opens}})
		webtest.WantSeeOther(t, p, path+"?room=saved#room-title")
		if on, rate, max, opens := room(); !on || rate != 60 || max != 5 || !opens {
			t.Fatalf("stored room: %v %d %d %v", on, rate, max, opens)
		}
		p = who.admin.Get(t, path+"?room=saved")
		if !p.Has("#room-enabled[checked]") || !strings.Contains(p.Text("[data-waiting-room]"), "Waiting room saved") ||
			!p.Has("[data-room-figures]") || p.Attr("#room-opens_at", "value") != opens {
			t.Fatalf("after saving: %s", p.Text("[data-waiting-room]"))
		}
		// Off again: the box unticked.
		p = who.admin.Submit(t, path+"/waiting-room", url.Values{"admit_per_minute": {"60"}, "max_active": {"5"}})
		webtest.WantSeeOther(t, p, path+"?room=saved#room-title")
		if on, _, _, _ := room(); on {
			t.Fatal("the room is still on")
		}
	})
}
