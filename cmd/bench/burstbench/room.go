package burstbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
)

// RoomSettings are the waiting room's settings of the cells with the room
// on.
type RoomSettings struct {
	AdmitPerMinute int
	MaxActive      int
	// OpensAfter puts the room's opening this long after the first
	// arrival: those who came before wait in the pre-queue, shuffled at
	// the opening. 0: no opening time, first come first served from the
	// start.
	OpensAfter time.Duration
}

// roomSettings is the waiting room's settings on the wire.
type roomSettings struct {
	Enabled        bool       `json:"enabled"`
	AdmitPerMinute int        `json:"admit_per_minute"`
	MaxActive      int        `json:"max_active"`
	OpensAt        *time.Time `json:"opens_at,omitempty"`
}

// roomSample is the admin's view of the room at one moment.
type roomSample struct {
	at       time.Duration // since the first arrival
	open     bool          // the room had opened (its pre-queue numbered)
	waiting  int
	active   int
	admitted int // so far
}

// roomView is the waiting room of a cell as its admin saw it: the
// settings as stored, and the room every second from just before the
// first arrival until the last person left.
type roomView struct {
	settings roomSettings

	mu       sync.Mutex
	samples  []roomSample
	failed   int    // samples not read
	firstErr string // the first of those, for the report
}

// openRoom turns the show's waiting room on as an admin does, signed in
// on conn, and returns the settings as stored.
func openRoom(conn *apiclient.Conn, show int64, s roomSettings) (roomSettings, error) {
	a, err := conn.Do(http.MethodPut, fmt.Sprintf("/api/v1/admin/shows/%d/waiting-room", show), "", s)
	if err != nil {
		return s, fmt.Errorf("turn the waiting room on: %w", err)
	}
	if a.StatusCode != http.StatusOK {
		return s, fmt.Errorf("turn the waiting room on: %d %.300s", a.StatusCode, bytes.TrimSpace(a.Body))
	}
	var stored roomSettings
	if err := json.Unmarshal(a.Body, &stored); err != nil {
		return s, fmt.Errorf("turn the waiting room on: the answer: %w: %.300s", err, a.Body)
	}
	if !stored.Enabled || stored.AdmitPerMinute != s.AdmitPerMinute || stored.MaxActive != s.MaxActive {
		return stored, fmt.Errorf("turn the waiting room on: stored %+v, asked for %+v", stored, s)
	}
	return stored, nil
}

// watch reads the admin's view of the room every second until stop is
// closed, on conn (signed in as the admin), counting from start.
func (r *roomView) watch(ctx context.Context, conn *apiclient.Conn, show int64, start time.Time, stop <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	path := fmt.Sprintf("/api/v1/admin/shows/%d/waiting-room", show)
	for {
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-tick.C:
		}
		a, err := conn.Do(http.MethodGet, path, "", nil)
		var v struct {
			Open     bool `json:"open"`
			Waiting  *int `json:"waiting"`
			Active   *int `json:"active"`
			Admitted *int `json:"admitted"`
		}
		if err == nil && a.StatusCode != http.StatusOK {
			err = fmt.Errorf("%d %.200s", a.StatusCode, bytes.TrimSpace(a.Body))
		}
		if err == nil {
			err = json.Unmarshal(a.Body, &v)
		}
		if err == nil && (v.Waiting == nil || v.Active == nil || v.Admitted == nil) {
			err = fmt.Errorf("no waiting, active or admitted in %.200s", a.Body)
		}
		r.mu.Lock()
		if err != nil {
			r.failed++
			if r.firstErr == "" {
				r.firstErr = err.Error()
			}
		} else {
			r.samples = append(r.samples, roomSample{at: time.Since(start), open: v.Open, waiting: *v.Waiting, active: *v.Active, admitted: *v.Admitted})
		}
		r.mu.Unlock()
	}
}

// most is the most shoppers active and waiting in any sample.
func (r *roomView) most() (active, waiting int) {
	for _, s := range r.samples {
		active, waiting = max(active, s.active), max(waiting, s.waiting)
	}
	return active, waiting
}

// openedBy is when the admin's view first said the room was open.
func (r *roomView) openedBy() (time.Duration, bool) {
	for _, s := range r.samples {
		if s.open {
			return s.at, true
		}
	}
	return 0, false
}

// rate is the admissions a minute the samples show while people waited
// after from (the opening): from the first such sample to the last. ok is
// false with fewer than two such samples a second or more apart.
func (r *roomView) rate(from time.Duration) (perMinute float64, ok bool) {
	var first, last *roomSample
	for i := range r.samples {
		s := &r.samples[i]
		if s.at < from || s.waiting == 0 {
			continue
		}
		if first == nil {
			first = s
		}
		last = s
	}
	if first == nil || last.at-first.at < time.Second {
		return 0, false
	}
	return float64(last.admitted-first.admitted) / (last.at - first.at).Minutes(), true
}

// queueOrder is when each of the show's numbered tickets joined the
// queue (in microseconds) and its number, the order of admission.
func queueOrder(ctx context.Context, pool *pgxpool.Pool, show int64) (joined, numbers []int64, err error) {
	rows, err := pool.Query(ctx, `SELECT joined_at, number FROM queue_tickets WHERE show_id = $1 AND number IS NOT NULL`, show)
	if err != nil {
		return nil, nil, fmt.Errorf("the queue's order: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var at time.Time
		var n int64
		if err := rows.Scan(&at, &n); err != nil {
			return nil, nil, fmt.Errorf("the queue's order: %w", err)
		}
		joined, numbers = append(joined, at.UnixMicro()), append(numbers, n)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("the queue's order: %w", err)
	}
	return joined, numbers, nil
}

// fairness is how close to first come, first served the room admitted
// those who arrived after its opening.
type fairness struct {
	tau      float64 // Kendall's tau-b between joining and numbering
	ok       bool    // tau is defined
	n        int     // tickets that joined at or after the opening
	preQueue int     // numbered tickets that joined before it (shuffled)
}

// fairnessOf is the fairness of the tickets (joined in microseconds,
// their numbers) that joined at or after opensAt (all of them when it is
// zero).
func fairnessOf(joined, numbers []int64, opensAt time.Time) fairness {
	var f fairness
	var x, y []int64
	for i := range joined {
		if !opensAt.IsZero() && joined[i] < opensAt.UnixMicro() {
			f.preQueue++
			continue
		}
		x, y = append(x, joined[i]), append(y, numbers[i])
	}
	f.n = len(x)
	f.tau, f.ok = kendallTauB(x, y)
	return f
}
