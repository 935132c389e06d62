package burstbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/apiclient"
)

const (
	// brokenSockets is how many times the waiting room's socket may fail
	// before the person only polls.
	brokenSockets = 3
	// pollEvery is the wait between polls of a person whose socket failed.
	pollEvery = 3
	// openingSpread is the most seconds a page of the pre-queue waits,
	// at random, before opening again for its number once the room opened.
	openingSpread = 10
	// confirmTries bounds the polls, a second apart, of a person the
	// socket said was admitted while the API still says WAITING.
	confirmTries = 60
)

// ticket is the waiting room's answer about a person's place.
type ticket struct {
	Ticket string   `json:"ticket"`
	State  string   `json:"state"` // WAITING, ADMITTED, EXPIRED (or DONE)
	EtaS   *float64 `json:"eta_s"` // null before the room opens
}

// queueFigures is what the people saw of the waiting room.
type queueFigures struct {
	mu           sync.Mutex
	joined       int             // tickets received
	atOnce       int             // admitted on joining
	admitted     int             // admitted after waiting
	waits        []time.Duration // joining to learning they were admitted
	estimates    []estimate      // the estimate given on joining, of those who joined the open room
	preEstimates []estimate      // the first estimate given after the opening, of those who joined before it
	reloads      int             // people whose page had no number when the room opened, and opened again
	polled       int             // people who waited by polling, their socket having failed
	notYet       int             // polls answered WAITING after the socket said admitted
}

// estimateFrom is a first estimate and when it was given.
type estimateFrom struct {
	eta      time.Duration
	at       time.Time
	preQueue bool
}

// wait is the person's time in the waiting room, spent as its page spends
// it: join, open the queue page (which shows the person's number once
// there is one) and its socket, and wait for the socket's front (every
// number up to it admitted) to reach the number; then confirm through the
// API. admitted is false when the person left the room without being
// admitted, for the outcome given.
func (p *person) wait(ctx context.Context) (out outcome, admitted bool) {
	c := p.c
	a, ok := c.send(ctx, routeQueueJoin, &p.conn, p.cookie, p.rng, http.MethodPost, fmt.Sprintf("/api/v1/shows/%d/queue", c.show), nil, nil)
	if ctx.Err() != nil {
		return interrupted, false
	}
	if !ok || (a.StatusCode != http.StatusCreated && a.StatusCode != http.StatusOK) {
		return failedJoin, false
	}
	var t ticket
	if err := json.Unmarshal(a.Body, &t); err != nil || t.Ticket == "" {
		c.problem("joining the queue: %v: %.200s", err, a.Body)
		return failedJoin, false
	}
	joined := time.Now()
	p.carryTicket(a, t.Ticket)
	q := c.queue
	q.mu.Lock()
	q.joined++
	if t.State == "ADMITTED" {
		q.atOnce++
	}
	q.mu.Unlock()
	if t.State == "ADMITTED" {
		return 0, true
	}
	// No estimate on joining: the room has not opened, the person waits
	// in the pre-queue.
	var first *estimateFrom
	preQueue := t.EtaS == nil
	if !preQueue {
		first = &estimateFrom{eta: seconds(*t.EtaS), at: joined}
	}
	broken, openedEmpty := 0, 0
	for {
		if c.gone.Err() != nil {
			if ctx.Err() != nil {
				return interrupted, false
			}
			return goneWaiting, false
		}
		number, ok, admittedPage := p.queuePage(ctx)
		if ctx.Err() != nil {
			return interrupted, false
		}
		if !ok {
			return failedQueue, false
		}
		if admittedPage {
			return p.admitted(ctx, first, joined, 1)
		}
		if number > 0 && first == nil {
			// Numbered, and no estimate yet: the page's first estimate is
			// the status's.
			st, ok := p.queueStatus(ctx)
			if ctx.Err() != nil {
				return interrupted, false
			}
			if ok && st.EtaS != nil {
				first = &estimateFrom{eta: seconds(*st.EtaS), at: time.Now(), preQueue: preQueue}
			}
			if ok && st.State != "WAITING" {
				return p.admitted(ctx, first, joined, 1)
			}
		}
		// While the page waits on its socket, its idle connection is
		// closed, so that thousands waiting hold one file descriptor each
		// here and in the app, not two; the next request dials again.
		if p.conn != nil {
			p.conn.Close()
			p.conn = nil
		}
		switch p.listen(ctx, number) {
		case heardAdmitted:
			return p.admitted(ctx, first, joined, confirmTries)
		case heardOpen:
			// The room opened: the page opens again to show the number,
			// at a moment of its own within openingSpread, as the page's
			// script does, so that the pre-queue does not come back all in
			// one second. Should it still have none, it waits a moment
			// before the next.
			if openedEmpty++; openedEmpty > 1 {
				sleep(c.gone, c.second)
			} else {
				q.mu.Lock()
				q.reloads++
				q.mu.Unlock()
				sleep(c.gone, time.Duration(p.rng.Float64()*openingSpread*float64(c.second)))
			}
		case heardNothing:
			// The socket did not open, or ended: check the place once,
			// then open the page and its socket again; after
			// brokenSockets failures, only poll.
			if broken++; broken >= brokenSockets {
				q.mu.Lock()
				q.polled++
				q.mu.Unlock()
				return p.poll(ctx, first, joined)
			}
			st, ok := p.queueStatus(ctx)
			if ctx.Err() != nil {
				return interrupted, false
			}
			if ok && st.State != "WAITING" {
				return p.admitted(ctx, first, joined, 1)
			}
		case heardGone: // the loop's first check leaves
		}
	}
}

// carryTicket makes the person's requests and sockets carry the ticket:
// the queue's cookie as the answer set it, or the ticket in it.
func (p *person) carryTicket(a apiclient.Answer, tk string) {
	name := fmt.Sprintf("queue_%d", p.c.show)
	value := tk
	for _, ck := range a.Cookies() {
		if ck.Name == name && ck.Value != "" {
			value = ck.Value
		}
	}
	p.cookie += "; " + name + "=" + value
	if p.conn != nil {
		p.conn.SetCookie(p.cookie)
	}
}

// admitted confirms through the API that the person is admitted, polling
// a second apart up to tries times while it says WAITING, and counts the
// wait and the first estimate's error.
func (p *person) admitted(ctx context.Context, first *estimateFrom, joined time.Time, tries int) (outcome, bool) {
	c, q := p.c, p.c.queue
	for try := 1; ; try++ {
		st, ok := p.queueStatus(ctx)
		if ctx.Err() != nil {
			return interrupted, false
		}
		if !ok {
			return failedQueue, false
		}
		switch st.State {
		case "ADMITTED":
			now := time.Now()
			q.mu.Lock()
			q.admitted++
			q.waits = append(q.waits, now.Sub(joined))
			if first != nil {
				e := estimate{eta: first.eta, waited: now.Sub(first.at)}
				if first.preQueue {
					q.preEstimates = append(q.preEstimates, e)
				} else {
					q.estimates = append(q.estimates, e)
				}
			}
			q.mu.Unlock()
			return 0, true
		case "WAITING":
		default: // EXPIRED, or DONE: the admission ended unused
			return lostPlace, false
		}
		q.mu.Lock()
		q.notYet++
		q.mu.Unlock()
		if try >= tries {
			return stuckAdmitted, false
		}
		if !sleep(c.gone, c.second) {
			if ctx.Err() != nil {
				return interrupted, false
			}
			return goneWaiting, false
		}
	}
}

// poll waits as a page without its socket would: the status every
// pollEvery seconds until admitted.
func (p *person) poll(ctx context.Context, first *estimateFrom, joined time.Time) (outcome, bool) {
	c := p.c
	for {
		if !sleep(c.gone, time.Duration(pollEvery)*c.second) {
			if ctx.Err() != nil {
				return interrupted, false
			}
			return goneWaiting, false
		}
		st, ok := p.queueStatus(ctx)
		if ctx.Err() != nil {
			return interrupted, false
		}
		if !ok {
			return failedQueue, false
		}
		if st.State != "WAITING" {
			return p.admitted(ctx, first, joined, 1)
		}
	}
}

// queuePage loads the waiting room's page and reads the person's number
// from it (0: none yet, the room not open). admittedPage is true when the
// page sent the person on to the show page.
func (p *person) queuePage(ctx context.Context) (number int64, ok, admittedPage bool) {
	c := p.c
	a, ok := c.send(ctx, routeQueuePage, &p.conn, p.cookie, p.rng, http.MethodGet, fmt.Sprintf("/shows/%d/queue", c.show), acceptGzip, nil)
	if !ok {
		return 0, false, false
	}
	switch a.StatusCode {
	case http.StatusOK:
	case http.StatusSeeOther, http.StatusFound:
		if a.Header.Get("Location") == fmt.Sprintf("/shows/%d", c.show) {
			return 0, true, true
		}
		c.problem("the queue page sent the person to %q", a.Header.Get("Location"))
		return 0, false, false
	default:
		return 0, false, false
	}
	html, done, err := decoded(a)
	if err != nil {
		c.problem("the queue page: %v", err)
		return 0, false, false
	}
	defer done()
	return queueNumber(html), true, false
}

// queueNumber is the number the queue page's queue section carries in
// data-queue-number, or 0 when it carries none.
func queueNumber(html []byte) int64 {
	const attr = `data-queue-number="`
	i := bytes.Index(html, []byte(attr))
	if i < 0 {
		return 0
	}
	v := html[i+len(attr):]
	j := bytes.IndexByte(v, '"')
	if j < 0 {
		return 0
	}
	n, err := strconv.ParseInt(string(v[:j]), 10, 64)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// queueStatus reads the person's place through the API.
func (p *person) queueStatus(ctx context.Context) (ticket, bool) {
	c := p.c
	var t ticket
	a, ok := c.send(ctx, routeQueueStatus, &p.conn, p.cookie, p.rng, http.MethodGet, fmt.Sprintf("/api/v1/shows/%d/queue", c.show), nil, nil)
	if !ok || a.StatusCode != http.StatusOK {
		return t, false
	}
	if err := json.Unmarshal(a.Body, &t); err != nil || t.State == "" {
		c.problem("the queue's status: %v: %.200s", err, a.Body)
		return t, false
	}
	return t, true
}

// heard is what the waiting room's socket told a person.
type heard int

const (
	heardAdmitted heard = iota // the front reached the person's number
	heardOpen                  // the room opened, and the page had no number
	heardGone                  // the seats are gone (or the run stopped)
	heardNothing               // the socket did not open, or ended
)

// roomMessage is one of the waiting room socket's messages.
type roomMessage struct {
	Enabled *bool `json:"enabled"` // false: the room was turned off, everyone is in
	Open    bool  `json:"open"`
	Through int64 `json:"through"`
}

// listen opens the waiting room's socket and reads it until the front
// reaches number, or, for a page with no number, until the room opens;
// or until the room is turned off. It says nothing while the front stands
// still: the page waits as long as that takes.
func (p *person) listen(ctx context.Context, number int64) heard {
	c := p.c
	dctx, cancel := context.WithTimeout(c.gone, requestDeadline)
	began := time.Now()
	path := fmt.Sprintf("/shows/%d/queue/live", c.show)
	if number > 0 {
		path += fmt.Sprintf("?n=%d", number) // as the page says it
	}
	ws, err := p.dial(dctx, c.queueSockets, path)
	cancel()
	if err != nil {
		if c.gone.Err() != nil {
			return heardGone
		}
		return heardNothing
	}
	c.queueSockets.opened(time.Since(began))
	c.opened(false)
	ws.SetReadLimit(1 << 16)
	var n int64
	why := "" // why the socket ended before the person closed it
	defer func() {
		ws.CloseNow()
		c.closed(false)
		c.queueSockets.closed(n, why)
	}()
	for {
		_, b, err := ws.Read(c.gone)
		switch {
		case c.gone.Err() != nil:
			return heardGone
		case err != nil:
			why = closeReason(err)
			c.broke.note("waiting room socket ended by the server ("+why+")", c.since())
			return heardNothing
		}
		n++
		var m roomMessage
		if err := json.Unmarshal(b, &m); err != nil {
			c.problem("a waiting room message: %v: %.200s", err, b)
			continue
		}
		if m.Enabled != nil && !*m.Enabled || number > 0 && m.Through >= number {
			return heardAdmitted
		}
		if number == 0 && m.Open {
			return heardOpen
		}
	}
}

// seconds is s seconds as a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
