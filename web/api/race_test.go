package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// 500 customers, each in their own browser, released together by a barrier,
// fight over the same few seats round after round. Each seat group has
// exactly one winner, everyone else hears 409, and the server never fails.
func TestHoldRaceOverHTTP(t *testing.T) {
	t.Parallel()
	const (
		clients  = 500
		rounds   = 3
		groups   = 5 // disjoint pairs of seats per round
		maxTries = 5 // of one client's hold, 503s retried
	)
	// A pool of 8 connections, rate limits off. This test checks the
	// hold's race, not admission control (web/server's admission tests
	// do): the whole stampede is admitted, queued for the 4 write slots
	// however long a loaded machine makes it wait, where the defaults
	// would answer most of it 503 busy at once.
	e := webtest.NewEnv(t, webtest.WithClock, webtest.WithAdmission(web.Admission{
		Writes: web.Capacity{Slots: 4, Queue: clients, MaxWait: time.Hour},
	}))

	// The last in the queue waits for 499 holds before its own: 16 s
	// measured under -race on a loaded 2-core machine, so the clients are
	// more patient than the usual 30 s.
	e.HTTPClient.Timeout = 5 * time.Minute

	// Accounts made in the store, signed in over HTTP.
	start := time.Now()
	users := e.FixtureUsers(t, clients)
	t.Logf("%d users signed in in %v", clients, time.Since(start))

	seatGroups := make([][]string, groups)
	for g := range seatGroups {
		seatGroups[g] = []string{fmt.Sprintf("A%d", 2*g+1), fmt.Sprintf("A%d", 2*g+2)}
	}
	for round := range rounds {
		t.Run(fmt.Sprintf("round %d", round+1), func(t *testing.T) {
			// Each round starts clean, whatever the last one did: a show of
			// its own, and every hold an earlier round left lapsed (a user
			// may have one live hold only).
			e.Clock.Advance(webtest.HoldTTL + booking.DefaultPaymentGrace + time.Second)
			show := e.NewShow(t)
			answers := make([]*webtest.Response, clients)
			errs := make([]error, clients)
			retried := make([]bool, clients)
			began := time.Now()
			pgtest.Release(clients, func(i int) {
				seats := slices.Clone(seatGroups[i%groups])
				if i%2 == 1 {
					slices.Reverse(seats) // the server must sort: lock order is its business
				}
				req := webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", show),
					Body: map[string][]string{"seats": seats}, Header: map[string]string{"Idempotency-Key": fmt.Sprintf("race-%d", round)}}
				answers[i], errs[i] = users[i].TrySend(req)
				// A 503 with a Retry-After (a request that outlived its
				// deadline on a loaded machine) is asked again when it
				// says, under the same key, as a client would.
				for try := 1; try < maxTries && errs[i] == nil && answers[i].Status == http.StatusServiceUnavailable; try++ {
					wait, err := strconv.Atoi(answers[i].Header.Get("Retry-After"))
					if err != nil {
						return
					}
					retried[i] = true
					time.Sleep(time.Duration(wait) * time.Second)
					answers[i], errs[i] = users[i].TrySend(req)
				}
			})
			t.Logf("%d holds answered in %v, %d asked again after a 503", clients, time.Since(began).Round(time.Millisecond), countTrue(retried))

			winners := make([]*webtest.Response, groups)
			statuses := map[int]int{}
			for i, r := range answers {
				if errs[i] != nil {
					t.Fatalf("client %d: %v", i, errs[i])
				}
				statuses[r.Status]++
				switch {
				// 200: the replay of a hold an attempt answered 503 had made.
				case r.Status == http.StatusCreated || r.Status == http.StatusOK && retried[i]:
					g := i % groups
					if winners[g] != nil {
						t.Fatalf("group %v won twice: %s and %s", seatGroups[g], winners[g], r)
					}
					winners[g] = r
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
			// no one else holds anything of the show.
			for g, w := range winners {
				for _, seat := range seatGroups[g] {
					owner := pgtest.Scalar[string](t, e.Store.Pool(), `
						SELECT coalesce(hold_id::text, '') FROM show_seats
						 WHERE show_id = $1 AND seat_id = $2 AND status = 'HELD'`, show, seat)
					if owner != w.Str("hold_id") {
						t.Fatalf("seat %s owned by %q, want winner %s", seat, owner, w.Str("hold_id"))
					}
				}
			}
			if n := e.Count(t, `SELECT count(*) FROM holds WHERE show_id = $1 AND state = 'HELD'`, show); n != groups {
				t.Fatalf("%d live holds, want %d", n, groups)
			}
			if n := e.Count(t, `SELECT count(*) FROM show_seats WHERE show_id = $1 AND status <> 'AVAILABLE'`, show); n != 2*groups {
				t.Fatalf("%d seats taken, want %d", n, 2*groups)
			}
			pgtest.CheckInvariants(t, e.Store)
		})
	}
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
