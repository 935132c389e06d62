package api_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestHoldOrphanSeat(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	if err := pgtest.SetOrphanRule(t.Context(), e.Store, e.Venue.TheatreID, true); err != nil {
		t.Fatal(err)
	}

	t.Run("a hold that leaves a seat alone is 409 orphan_seat with the seat and the suggestion, and holds nothing", func(t *testing.T) {
		c := e.User(t)
		before := e.Snapshot(t)
		// The show is 10 x 10: A2-A4 leaves A1 alone at the row's end.
		r := c.HoldKey("orphan-1", "A2", "A3", "A4")
		webtest.WantError(t, r, http.StatusConflict, "orphan_seat")
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"error":      "orphan_seat",
			"message":    "Holding these seats would leave A1 empty on its own. Hold A1, A2, A3 instead, or pick other seats.",
			"seats":      []any{"A1"},
			"suggestion": []any{"A1", "A2", "A3"},
		}
		if !reflect.DeepEqual(body, want) {
			t.Fatalf("body = %s\nwant %v", r.Body, want)
		}
		if after := e.Snapshot(t); after != before {
			t.Fatalf("a refused hold changed the database:\n%s\n%s", before, after)
		}
		// The suggestion, asked for under a key of its own, is held.
		ok := c.HoldKey("orphan-2", "A1", "A2", "A3")
		webtest.Want(t, ok, http.StatusCreated)
		// The refused request's key was not used: nothing answers for it.
		if n := e.Count(t, `SELECT count(*) FROM hold_keys WHERE key = 'orphan-1'`); n != 0 {
			t.Fatalf("the refused request's key is recorded %d times", n)
		}
	})

	t.Run("a retry of a hold that won replays it (200), even where it would now leave a seat alone", func(t *testing.T) {
		c := e.User(t)
		first := c.HoldKey("won", "C1", "C2")
		webtest.Want(t, first, http.StatusCreated)
		if err := pgtest.SetOrphanRule(t.Context(), e.Store, e.Venue.TheatreID, false); err != nil {
			t.Fatal(err)
		}
		webtest.Want(t, e.User(t).HoldKey("other", "C4"), http.StatusCreated) // C3 is alone now
		if err := pgtest.SetOrphanRule(t.Context(), e.Store, e.Venue.TheatreID, true); err != nil {
			t.Fatal(err)
		}
		again := c.HoldKey("won", "C1", "C2")
		webtest.Want(t, again, http.StatusOK)
		if again.Str("hold_id") != first.Str("hold_id") {
			t.Fatalf("retry = %s, want hold %s", again, first.Str("hold_id"))
		}
	})

	t.Run("with the rule off, the seats picked are held", func(t *testing.T) {
		if err := pgtest.SetOrphanRule(t.Context(), e.Store, e.Venue.TheatreID, false); err != nil {
			t.Fatal(err)
		}
		webtest.Want(t, e.User(t).HoldKey("off", "E2", "E3", "E4"), http.StatusCreated)
	})
}
