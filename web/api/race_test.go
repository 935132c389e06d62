package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// 500 customers, each in their own browser, released together by a barrier,
// fight over the same few seats round after round. Each seat group has
// exactly one winner, everyone else hears 409, and the server never fails.
func TestHoldRaceOverHTTP(t *testing.T) {
	t.Parallel()
	const (
		clients = 500
		rounds  = 3
		groups  = 5 // disjoint pairs of seats per round
	)
	e := webtest.NewEnv(t) // a pool of 8 connections, rate limits off

	// Accounts made in the store, signed in over HTTP.
	start := time.Now()
	users := e.FixtureUsers(t, clients)
	t.Logf("%d users signed in in %v", clients, time.Since(start))

	for round := range rounds {
		t.Run(fmt.Sprintf("round %d", round+1), func(t *testing.T) {
			row := string(rune('A' + round))
			seatGroups := make([][]string, groups)
			for g := range seatGroups {
				seatGroups[g] = []string{fmt.Sprintf("%s%d", row, 2*g+1), fmt.Sprintf("%s%d", row, 2*g+2)}
			}
			answers := make([]*webtest.Response, clients)
			errs := make([]error, clients)
			pgtest.Release(clients, func(i int) {
				seats := slices.Clone(seatGroups[i%groups])
				if i%2 == 1 {
					slices.Reverse(seats) // the server must sort: lock order is its business
				}
				answers[i], errs[i] = users[i].TrySend(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", e.Show),
					Body: map[string][]string{"seats": seats}, Header: map[string]string{"Idempotency-Key": fmt.Sprintf("race-%d", round)}})
			})

			winners := make([]*webtest.Response, groups)
			winnerOf := make([]int, groups)
			statuses := map[int]int{}
			for i, r := range answers {
				if errs[i] != nil {
					t.Fatalf("client %d: %v", i, errs[i])
				}
				statuses[r.Status]++
				switch {
				case r.Status == http.StatusCreated:
					g := i % groups
					if winners[g] != nil {
						t.Fatalf("group %v won twice: %s and %s", seatGroups[g], winners[g], r)
					}
					winners[g], winnerOf[g] = r, i
				case r.Status == http.StatusConflict && r.Str("error") == "seats_unavailable":
				default:
					t.Fatalf("client %d: %s, want 201 or 409 seats_unavailable", i, r)
				}
			}
			t.Logf("answers by status: %v", statuses)
			for g, w := range winners {
				if w == nil {
					t.Fatalf("nobody won group %v", seatGroups[g])
				}
			}

			// By SQL: every seat of a group is held by that group's winner, and
			// no one else holds anything.
			for g, w := range winners {
				for _, seat := range seatGroups[g] {
					owner := pgtest.Scalar[string](t, e.Store.Pool(), `
						SELECT coalesce(hold_id::text, '') FROM show_seats
						 WHERE show_id = $1 AND seat_id = $2 AND status = 'HELD'`, e.Show, seat)
					if owner != w.Str("hold_id") {
						t.Fatalf("seat %s owned by %q, want winner %s", seat, owner, w.Str("hold_id"))
					}
				}
			}
			if n := e.Count(t, `SELECT count(*) FROM holds WHERE state = 'HELD'`); n != groups {
				t.Fatalf("%d live holds, want %d", n, groups)
			}
			if n := e.Count(t, `SELECT count(*) FROM show_seats WHERE status <> 'AVAILABLE'`); n != 2*groups {
				t.Fatalf("%d seats taken, want %d", n, 2*groups)
			}
			pgtest.CheckInvariants(t, e.Store)

			// The winners let go, so that everyone is free for the next round.
			for g, w := range winners {
				webtest.Want(t, users[winnerOf[g]].Delete("/api/v1/holds/"+w.Str("hold_id")), http.StatusOK)
			}
		})
	}
}
