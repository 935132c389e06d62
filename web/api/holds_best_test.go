package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/web/webtest"
)

func holdBest(c *webtest.Client, key string, body any) *webtest.Response {
	return c.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", c.E.Show),
		Body: body, Header: map[string]string{"Idempotency-Key": key}})
}

func together(t *testing.T, r *webtest.Response) bool {
	t.Helper()
	var v struct {
		Together *bool `json:"together"`
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || v.Together == nil {
		t.Fatalf("no together in %s (%v)", r, err)
	}
	return *v.Together
}

func TestHoldBestAvailable(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)

	t.Run("the server chooses and holds, and says the seats are together", func(t *testing.T) {
		c := e.User(t)
		r := holdBest(c, "best-1", map[string]any{"best_available": map[string]any{"count": 3}})
		webtest.Want(t, r, http.StatusCreated)
		seats := r.Strs("seats")
		if len(seats) != 3 || !together(t, r) || r.Str("state") != "HELD" {
			t.Fatalf("best available = %s", r)
		}
		// The seats are side by side: one row, as the map names them.
		for _, s := range seats[1:] {
			if s[:1] != seats[0][:1] {
				t.Fatalf("seats %v are not in one row", seats)
			}
		}
		status, _ := e.Guest().SeatStatus(t)
		for _, s := range seats {
			if status[s] != "HELD" {
				t.Fatalf("%s reads %s on the map", s, status[s])
			}
		}
		again := holdBest(c, "best-1", map[string]any{"best_available": map[string]any{"count": 3}})
		webtest.Want(t, again, http.StatusOK)
		if again.Str("hold_id") != r.Str("hold_id") || !together(t, again) {
			t.Fatalf("the retry = %s, want the same hold", again)
		}
		// An ordinary hold's answer says nothing of together.
		webtest.Want(t, c.Delete("/api/v1/holds/"+r.Str("hold_id")), http.StatusOK)
		plain := c.MustHold(t, "A1")
		if strings.Contains(string(plain.Body), "together") {
			t.Fatalf("a hold of named seats answers %s", plain)
		}
	})

	t.Run("bad requests are refused and change nothing", func(t *testing.T) {
		c := e.User(t)
		for _, tc := range []struct {
			body any
			code string
		}{
			{map[string]any{"seats": []string{"A2"}, "best_available": map[string]any{"count": 1}}, "seats_or_best_available"},
			{map[string]any{"best_available": map[string]any{"count": 0}}, "no_seats"},
			{map[string]any{"best_available": map[string]any{"count": 11}}, "too_many_seats"},
			{map[string]any{"best_available": map[string]any{"count": 2, "accessible": 3}}, "invalid_best_available"},
			{map[string]any{"best_available": map[string]any{"count": 2, "category": "gold!"}}, "invalid_best_available"},
		} {
			r := holdBest(c, fmt.Sprintf("bad-%s", tc.code), tc.body)
			webtest.WantError(t, r, http.StatusUnprocessableEntity, tc.code)
		}
		// None left a hold: the user may still hold (one live hold each).
		c.MustHold(t, "B9")
	})

	t.Run("an unknown show is 404", func(t *testing.T) {
		c := e.User(t)
		r := c.Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", e.Show+1000),
			Body: map[string]any{"best_available": map[string]any{"count": 2}}, Header: map[string]string{"Idempotency-Key": "nowhere"}})
		webtest.WantError(t, r, http.StatusNotFound, "not_found")
	})

	t.Run("more than are free is 409 not_enough_seats", func(t *testing.T) {
		r := holdBest(e.User(t), "many", map[string]any{"best_available": map[string]any{"count": 5, "category": "NOSUCH"}})
		webtest.WantError(t, r, http.StatusConflict, "not_enough_seats")
	})
}
