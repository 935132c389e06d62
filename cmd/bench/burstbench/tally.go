package burstbench

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
	"github.com/marquee-tickets/marquee/cmd/bench/stats"
)

// route is one kind of request a person (or the payment provider) makes.
type route int

const (
	routePage        route = iota // GET /shows/{id}
	routeSeatMap                  // GET /api/v1/shows/{id}/seats
	routeHold                     // POST /api/v1/shows/{id}/holds
	routeCheckout                 // POST /api/v1/holds/{id}/checkout
	routeWebhook                  // POST /payments/webhook, by the provider
	routeQueueJoin                // POST /api/v1/shows/{id}/queue
	routeQueuePage                // GET /shows/{id}/queue
	routeQueueStatus              // GET /api/v1/shows/{id}/queue
	nRoutes
)

var routeNames = [nRoutes]string{
	routePage:        "show page `GET /shows/{id}`",
	routeSeatMap:     "seat map `GET /api/v1/shows/{id}/seats`",
	routeHold:        "hold `POST /api/v1/shows/{id}/holds`",
	routeCheckout:    "checkout `POST /api/v1/holds/{id}/checkout`",
	routeWebhook:     "payment webhook `POST /payments/webhook`",
	routeQueueJoin:   "join the queue `POST /api/v1/shows/{id}/queue`",
	routeQueuePage:   "queue page `GET /shows/{id}/queue`",
	routeQueueStatus: "queue status `GET /api/v1/shows/{id}/queue`",
}

// tally counts one route's requests: each try, retries included.
type tally struct {
	mu         sync.Mutex
	statuses   map[int]int
	bytes      int64           // of the answers' bodies as sent (gzipped when they were)
	lat        []time.Duration // answers but 503s
	lat503     []time.Duration
	codes503   map[string]int // the 503s' error codes ("page": not JSON)
	bare503    int            // 503s without a Retry-After
	transport  int            // no answer: refused, reset, cut off
	timeouts   int            // no answer within the 10 s deadline
	firstError string         // the first transport error, for the report
}

func newTally() *tally {
	return &tally{statuses: map[int]int{}, codes503: map[string]int{}}
}

// answered counts an answer that took d.
func (t *tally) answered(a apiclient.Answer, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.statuses[a.StatusCode]++
	t.bytes += int64(len(a.Body))
	if a.StatusCode != http.StatusServiceUnavailable {
		t.lat = append(t.lat, d)
		return
	}
	t.lat503 = append(t.lat503, d)
	t.codes503[errorCode(a.Body)]++
	if a.Header.Get("Retry-After") == "" {
		t.bare503++
	}
}

// failed counts a request that got no answer.
func (t *tally) failed(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.timeouts++
	} else {
		t.transport++
	}
	if t.firstError == "" {
		t.firstError = err.Error()
	}
}

// errorCode is the "error" of a JSON error answer, or "page" for one that
// is not JSON (a page's 503).
func errorCode(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return "page"
	}
	return e.Error
}

// requests is how many tries were made, answered or not.
func (t *tally) requests() int {
	n := t.transport + t.timeouts
	for _, c := range t.statuses {
		n += c
	}
	return n
}

// meanBody is the answers' mean body size in KiB, as sent, or "-".
func (t *tally) meanBody() string {
	n := 0
	for _, c := range t.statuses {
		n += c
	}
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(t.bytes)/float64(n)/1024)
}

// count is how many answers had a status from lo to hi.
func (t *tally) count(lo, hi int) int {
	n := 0
	for s, c := range t.statuses {
		if s >= lo && s <= hi {
			n += c
		}
	}
	return n
}

// statusList is the statuses seen, "200: 1990, 409: 12".
func (t *tally) statusList() string {
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(t.statuses)) {
		parts = append(parts, fmt.Sprintf("%d: %d", s, t.statuses[s]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// codeList is the 503s' codes, "busy: 40, timeout: 2".
func (t *tally) codeList() string {
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(t.codes503)) {
		parts = append(parts, fmt.Sprintf("%s: %d", c, t.codes503[c]))
	}
	return strings.Join(parts, ", ")
}

// latency is "p50 / p99 / max" of ds in ms, or "-".
func latency(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Sorted(slices.Values(ds))
	return fmt.Sprintf("%s / %s / %s", stats.Ms(stats.Percentile(s, 50)), stats.Ms(stats.Percentile(s, 99)), stats.Ms(s[len(s)-1]))
}

// p50p99 is "p50 / p99" of ds in ms, or "-".
func p50p99(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Sorted(slices.Values(ds))
	return fmt.Sprintf("%s / %s", stats.Ms(stats.Percentile(s, 50)), stats.Ms(stats.Percentile(s, 99)))
}

// outcome is how a person's visit ended: each person has exactly one.
type outcome int

const (
	booked         outcome = iota // paid and booked two seats
	noPair                        // saw no two seats side by side left, and left
	noSeats                       // best available found fewer than two seats free, and left
	lostThrice                    // lost the race for seats three times, and left
	goneWaiting                   // in the waiting room when the seats were gone, and left
	noPage                        // never saw the show page
	sentBack                      // admitted, yet the show page sent them back to the queue
	failedSeatMap                 // could not read the seat map
	queueRequired                 // admitted, yet the hold answered 403 queue_required
	failedHold                    // a hold answered neither 2xx nor 409, or not at all
	failedCheckout                // the checkout did not open
	failedPayment                 // the payment's webhook booked nothing
	failedJoin                    // could not join the waiting room
	failedQueue                   // the waiting room's status did not load
	lostPlace                     // their ticket expired while they waited
	stuckAdmitted                 // the queue's socket said admitted, its status never did
	interrupted                   // the run was stopped
	nOutcomes
)

var outcomeNames = [nOutcomes]string{
	booked:         "booked two seats",
	noPair:         "left: no two seats side by side were left",
	noSeats:        "left: best available found fewer than two seats free (409 not_enough_seats)",
	lostThrice:     "left: lost the seats they picked 3 times",
	goneWaiting:    "left the waiting room: the seats were gone",
	noPage:         "never saw the show page",
	sentBack:       "admitted, but the show page sent them back to the queue",
	failedSeatMap:  "gave up: the seat map did not load",
	queueRequired:  "admitted, but the hold answered 403 queue_required",
	failedHold:     "gave up: the hold failed (neither 2xx nor 409, or no answer)",
	failedCheckout: "gave up: the checkout did not open",
	failedPayment:  "gave up: the payment booked nothing",
	failedJoin:     "gave up: could not join the waiting room",
	failedQueue:    "gave up: the waiting room's status did not load",
	lostPlace:      "lost their place: the ticket expired while they waited",
	stuckAdmitted:  "gave up: the queue's socket said admitted, its status still WAITING after a minute",
	interrupted:    "interrupted",
}

// broken reports whether an outcome is a failure of the app, rather than
// the hall selling out or a race for seats lost: the report lists when
// each kind first happened.
func (o outcome) broken() bool {
	switch o {
	case booked, noPair, noSeats, lostThrice, goneWaiting, interrupted:
		return false
	}
	return true
}

// sockets counts the live seat map's websockets.
type sockets struct {
	mu       sync.Mutex
	ok       int
	failed   map[string]int // why: "HTTP 503", "timeout", ...
	connect  []time.Duration
	dropped  int            // closed by the server, or failed, before the person left
	dropWhy  map[string]int // the close codes or errors of those
	messages int64          // received after the first
}

func newSockets() *sockets {
	return &sockets{failed: map[string]int{}, dropWhy: map[string]int{}}
}

func (s *sockets) opened(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ok++
	s.connect = append(s.connect, d)
}

func (s *sockets) refused(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed[why]++
}

func (s *sockets) closed(messages int64, dropWhy string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages += messages
	if dropWhy != "" {
		s.dropped++
		s.dropWhy[dropWhy]++
	}
}

// countList is "a: 1, b: 2" of m in key order, or "-".
func countList(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// total is the sum of m's counts.
func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// firsts is when each kind of failure first happened, counted from the
// first arrival, and how often it happened: what broke first, and what
// broke after.
type firsts struct {
	mu sync.Mutex
	at map[string]time.Duration
	n  map[string]int
}

func newFirsts() *firsts {
	return &firsts{at: map[string]time.Duration{}, n: map[string]int{}}
}

// note counts a failure of kind what that happened at.
func (f *firsts) note(what string, at time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, seen := f.at[what]; !seen {
		f.at[what] = at
	}
	f.n[what]++
}

// failure is one kind of failure: when it first happened, and how often.
type failure struct {
	what  string
	first time.Duration
	count int
}

// list is every kind of failure, the earliest first.
func (f *firsts) list() []failure {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]failure, 0, len(f.at))
	for what, at := range f.at {
		out = append(out, failure{what: what, first: at, count: f.n[what]})
	}
	slices.SortFunc(out, func(a, b failure) int {
		if a.first != b.first {
			return cmp.Compare(a.first, b.first)
		}
		return strings.Compare(a.what, b.what)
	})
	return out
}
