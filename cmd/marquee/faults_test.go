package main

// The fault tests: `marquee serve` runs as a child process and things break
// under it. They prove that no seat is sold twice and no money is lost
// whatever happens to the process or its database:
//
//   - TestAppKilled: the app is SIGKILLed while a hold waits inside its
//     transaction for a seat lock, while a payment holds seat locks between
//     its statements, and after a hold's or a payment's commit but before
//     its answer. No lock outlives the process; after a restart a retry
//     with the same Idempotency-Key or payment id converges on the one hold
//     or booking.
//   - TestPostgresRestarts: Postgres is stopped fast, then immediately, and
//     started again while 50 clients hold, check out, pay and read the seat
//     map. Every hold and booking a client was told of is in the database
//     and nothing else is; the only errors are 503 unavailable with
//     Retry-After, during the outage; the pool and the live seat map's
//     listener come back by themselves.
//   - TestNetworkFaults: the network to Postgres goes silent, then cuts
//     every connection and refuses new ones. Request deadlines still fire,
//     Postgres itself ends the transaction the app left open (its seat locks
//     with it), outage answers are 503 unavailable with Retry-After (a
//     friendly page for pages), and the app recovers when the network does.
//
// After each, booking_invariant_violations() is empty.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/marquee-tickets/marquee/internal/faults"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web/problem"
)

// userEmails creates n users and returns their ids and emails.
func userEmails(t *testing.T, store *postgres.Store, n int) (ids, emails []string) {
	t.Helper()
	for range n {
		id := pgtest.User(t, store)
		ids = append(ids, id)
		emails = append(emails, pgtest.Scalar[string](t, store.Pool(), `SELECT email FROM users WHERE id = $1`, id))
	}
	return ids, emails
}

// killedApp is the app of TestAppKilled, behind a proxy, started again
// after each kill.
type killedApp struct {
	owner   *testing.T // the app lives as long as this test
	url     string     // the app's database, through the proxy
	check   *pgxpool.Pool
	show    int64
	proxy   *faults.Proxy
	app     *app
	kills   int
	killed  []int32 // the sessions the last killed app had
	retries int     // scenarios run again because the kill came too late
}

// kill SIGKILLs the app: no drain, no deferred call, its connections
// dropped by the kernel as they are.
func (k *killedApp) kill(t *testing.T) {
	t.Helper()
	pids, err := appBackends(context.Background(), k.check)
	if err != nil {
		t.Fatal(err)
	}
	k.app.kill()
	k.kills++
	k.killed = pids
}

// nothingLeft waits until Postgres has ended every session the killed app
// had, and checks that no lock is left: none in pg_locks, and every seat
// row of the show lockable at once.
func (k *killedApp) nothingLeft(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if err := waitGone(ctx, k.check, k.killed, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if locks, err := locksHeld(ctx, k.check); err != nil || len(locks) > 0 {
		t.Fatalf("locks left after the app was killed: %q (%v)", locks, err)
	}
	if err := seatsLockable(ctx, k.check, k.show); err != nil {
		t.Fatalf("seat rows still locked after the app was killed: %v", err)
	}
}

func (k *killedApp) start(t *testing.T, v *visitor) {
	k.app = startAppFor(t, k.owner, k.url)
	v.base = k.app.Base
}

// sendAsync sends a request in a goroutine; the channel has its answer.
type result struct {
	a   answer
	err error
}

func sendAsync(f func() (answer, error)) <-chan result {
	ch := make(chan result, 1)
	go func() {
		a, err := f()
		ch <- result{a, err}
	}()
	return ch
}

// killWhen polls cond until it is true, then kills the app, and returns
// the request's result: false when the request was answered first, too
// early for the kill to mean anything. With freeze the network between the
// app and Postgres goes silent first, so what Postgres has sent the app by
// then never arrives.
func (k *killedApp) killWhen(t *testing.T, res <-chan result, freeze bool, cond func(ctx context.Context) (bool, error)) (result, bool) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case r := <-res:
			return r, false
		default:
		}
		ok, err := cond(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if freeze {
				k.proxy.Silence()
			}
			k.kill(t)
			k.proxy.Speak()
			return <-res, true
		}
		if time.Now().After(deadline) {
			t.Fatal("the moment to kill the app never came within 20 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// killAfterCommit sends a request, with latency between the app and
// Postgres, and kills the app once committed says its transaction has
// committed, the acknowledgement still on its way to the app. It returns
// false when the app answered first; either way the app is running again.
func (k *killedApp) killAfterCommit(t *testing.T, v *visitor, latency time.Duration, send func() (answer, error), committed func(ctx context.Context) (bool, error)) (result, bool) {
	t.Helper()
	k.proxy.SetLatency(latency)
	r, killed := k.killWhen(t, sendAsync(send), true, committed)
	k.proxy.SetLatency(0)
	if killed {
		k.nothingLeft(t)
		k.start(t, v)
	}
	return r, killed && r.err != nil
}

// proxiedSite is where the kill and network tests start: a database the
// app reaches through a proxy the test controls, a show of 4 rows of 10,
// and four moviegoers.
type proxiedSite struct {
	store         *postgres.Store
	check         *pgxpool.Pool // the test's own connections, not through the proxy
	show          int64
	users, emails []string
	proxy         *faults.Proxy
	appURL        string // the database's URL through the proxy, for the app
}

func newProxiedSite(t *testing.T) proxiedSite {
	t.Helper()
	dbURL := pgtest.NewDatabase(t)
	var s proxiedSite
	s.store, s.check = openChecker(t, dbURL, 3)
	s.show = pgtest.NewShow(t, s.store, pgtest.NewVenue(t, s.store), 4, 10, time.Now().Add(72*time.Hour))
	s.users, s.emails = userEmails(t, s.store, 4)
	s.proxy = faults.NewProxy(t, hostPort(dbURL))
	s.appURL = viaProxy(dbURL, s.proxy.Addr())
	return s
}

// faultSlots are the request slots of an app started as startApp starts
// it (READ_SLOTS, WRITE_SLOTS and WEBHOOK_SLOTS there), the same on any
// machine: the default grows with the cores, and so would the connections
// each fault test reserves of the test server.
const faultSlots = 2 + 4 + 2

// appPool is the pool of an app started as startApp starts it.
func appPool() int32 { return faultSlots + backgroundConns }

func TestAppKilled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The app's pool and listener, twice while a killed app's sessions
	// end, and the test's own.
	pgtest.Reserve(t, 2*(appPool()+1)+3)
	site := newProxiedSite(t)
	store, check, show, users, emails, proxy := site.store, site.check, site.show, site.users, site.emails, site.proxy
	k := &killedApp{owner: t, url: site.appURL, check: check, show: show, proxy: proxy}
	tr := newTransport()
	k.app = startApp(t, k.url)

	signIn := func(t *testing.T, i int) *visitor {
		v := newVisitor(k.app.Base, tr)
		if err := v.login(ctx, emails[i]); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// holdOf is the one hold the user's key made, from SQL.
	holdOf := func(t *testing.T, user, key string) (id string, seats []string, state string) {
		rows, err := check.Query(ctx, `
			SELECT h.id::text, h.seat_ids, h.state FROM hold_keys k JOIN holds h ON h.id = k.hold_id
			 WHERE k.user_id = $1 AND k.key = $2`, user, key)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			ID    string
			Seats []string
			State string
		}
		got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("key %s made %d holds, want 1", key, len(got))
		}
		return got[0].ID, got[0].Seats, got[0].State
	}
	// bookingsOf are the bookings of hold and the payments that name it.
	bookingsOf := func(t *testing.T, hold string) (bookings []string, payments int) {
		bookings = pgtest.Scalar[[]string](t, check, `SELECT coalesce(array_agg(id::text), '{}') FROM bookings WHERE hold_id = $1`, hold)
		payments = pgtest.Scalar[int](t, check, `SELECT count(*) FROM payments WHERE hold_id = $1`, hold)
		return bookings, payments
	}
	mustHold := func(t *testing.T, v *visitor, key string, seats ...string) answer {
		a, err := v.send(ctx, http.MethodPost, holdPath(show), key, holdBody(seats), nil)
		if err != nil || a.Status != http.StatusCreated {
			t.Fatalf("hold %v: %v %v", seats, a, err)
		}
		return a
	}

	t.Run("a hold waiting for a seat lock inside its transaction", func(t *testing.T) {
		v := signIn(t, 0)
		for attempt := 1; ; attempt++ {
			key := fmt.Sprintf("waiting-%d", attempt)
			// Another session holds A3's row, so the hold locks A1 and A2
			// and waits for A3 inside its transaction.
			tx, err := check.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(ctx) }()
			if _, err := tx.Exec(ctx, `SELECT 1 FROM show_seats WHERE show_id = $1 AND seat_id = 'A3' FOR UPDATE`, show); err != nil {
				t.Fatal(err)
			}
			res := sendAsync(func() (answer, error) {
				return v.send(ctx, http.MethodPost, holdPath(show), key, holdBody([]string{"A1", "A2", "A3"}), nil)
			})
			r, killed := k.killWhen(t, res, false, func(ctx context.Context) (bool, error) {
				var waiting bool
				err := check.QueryRow(ctx, `
					SELECT EXISTS (SELECT FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
					 WHERE a.datname = current_database() AND a.application_name = 'marquee' AND NOT l.granted)`).Scan(&waiting)
				return waiting, err
			})
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if killed {
				k.nothingLeft(t)
			}
			if !killed {
				// The hold gave up on the lock (three waits of 100 ms) before
				// the test saw it wait: try again.
				if attempt == 5 {
					t.Fatalf("the hold was answered (%v %v) before the test saw it wait, 5 times", r.a, r.err)
				}
				k.retries++
				continue
			}
			if r.err == nil {
				t.Fatalf("the killed app answered: %v", r.a)
			}
			k.start(t, v)
			a, err := v.send(ctx, http.MethodPost, holdPath(show), key, holdBody([]string{"A1", "A2", "A3"}), nil)
			if err != nil || (a.Status != http.StatusCreated && a.Status != http.StatusOK) {
				t.Fatalf("the retry: %v %v", a, err)
			}
			id, seats, state := holdOf(t, users[0], key)
			if a.str("hold_id") != id || !slices.Equal(seats, []string{"A1", "A2", "A3"}) || state != "HELD" {
				t.Fatalf("the retry answered hold %s; the database has %s %v %s", a.str("hold_id"), id, seats, state)
			}
			return
		}
	})

	t.Run("a hold committed, its answer not yet sent", func(t *testing.T) {
		v := signIn(t, 1)
		for attempt := 1; ; attempt++ {
			key, seats := fmt.Sprintf("committed-%d", attempt), []string{fmt.Sprintf("B%d", attempt)}
			send := func() (answer, error) { return v.send(ctx, http.MethodPost, holdPath(show), key, holdBody(seats), nil) }
			// A hold is one statement: room for a slower network each time.
			latency := time.Duration(100+100*attempt) * time.Millisecond
			r, killed := k.killAfterCommit(t, v, latency, send, func(ctx context.Context) (bool, error) {
				var n int
				err := check.QueryRow(ctx, `SELECT count(*) FROM hold_keys WHERE user_id = $1 AND key = $2`, users[1], key).Scan(&n)
				return n > 0, err
			})
			if !killed {
				if attempt == 3 {
					t.Fatalf("the hold was answered (%v %v) before the app could be killed, 3 times", r.a, r.err)
				}
				k.retries++
				if a, err := v.send(ctx, http.MethodDelete, "/api/v1/holds/"+r.a.str("hold_id"), "", nil, nil); err != nil || a.Status != http.StatusOK {
					t.Fatalf("release: %v %v", a, err)
				}
				continue
			}
			a, err := send()
			if err != nil || a.Status != http.StatusOK {
				t.Fatalf("the retry: %v %v, want 200 with the hold the killed app made", a, err)
			}
			if id, _, state := holdOf(t, users[1], key); a.str("hold_id") != id || state != "HELD" {
				t.Fatalf("the retry answered hold %s; the database has %s %s", a.str("hold_id"), id, state)
			}
			return
		}
	})

	t.Run("a payment holding seat locks between its statements", func(t *testing.T) {
		v := signIn(t, 2)
		h := mustHold(t, v, "pay-locked", "C1", "C2")
		paid := webhookBody("pay_locked", h)
		proxy.SetLatency(300 * time.Millisecond)
		res := sendAsync(func() (answer, error) { return v.webhook(ctx, paid) })
		r, killed := k.killWhen(t, res, false, func(ctx context.Context) (bool, error) {
			return seatLockedIdle(ctx, check, show, "C1")
		})
		proxy.SetLatency(0)
		if killed {
			k.nothingLeft(t)
		}
		if !killed || r.err == nil {
			t.Fatalf("the payment was answered (%v %v) before the app was killed", r.a, r.err)
		}
		k.start(t, v)
		a, err := v.webhook(ctx, paid)
		if err != nil || a.Status != http.StatusOK || a.str("outcome") != "BOOKED" {
			t.Fatalf("the payment again: %v %v, want 200 BOOKED", a, err)
		}
		if bookings, payments := bookingsOf(t, h.str("hold_id")); !slices.Equal(bookings, []string{a.str("booking_id")}) || payments != 1 {
			t.Fatalf("the hold has bookings %v and %d payments, want [%s] and 1", bookings, payments, a.str("booking_id"))
		}
	})

	t.Run("a payment committed, its answer not yet sent", func(t *testing.T) {
		v := signIn(t, 3)
		for attempt := 1; ; attempt++ {
			h := mustHold(t, v, fmt.Sprintf("pay-committed-%d", attempt), fmt.Sprintf("D%d", attempt))
			paymentID := fmt.Sprintf("pay_committed_%d", attempt)
			paid := webhookBody(paymentID, h)
			send := func() (answer, error) { return v.webhook(ctx, paid) }
			// A payment takes a few dozen round trips, all within its 10 s
			// deadline even on a loaded machine; the app learns of the
			// commit one latency after the test sees it, which is when the
			// test kills it.
			latency := time.Duration(50*attempt) * time.Millisecond
			r, killed := k.killAfterCommit(t, v, latency, send, func(ctx context.Context) (bool, error) {
				var n int
				err := check.QueryRow(ctx, `SELECT count(*) FROM payments WHERE payment_id = $1`, paymentID).Scan(&n)
				return n > 0, err
			})
			if !killed {
				if attempt == 3 {
					t.Fatalf("the payment was answered (%v %v) before the app could be killed, 3 times", r.a, r.err)
				}
				// A payment that booked nothing (it ran out of time) leaves
				// its hold, the moviegoer's one: let it go for the next try.
				if r.a.Status != http.StatusOK {
					if a, err := v.send(ctx, http.MethodDelete, "/api/v1/holds/"+h.str("hold_id"), "", nil, nil); err != nil || a.Status != http.StatusOK {
						t.Fatalf("release the hold of a payment that booked nothing: %v %v", a, err)
					}
				}
				k.retries++
				continue
			}
			a, err := send()
			if err != nil || a.Status != http.StatusOK || a.str("outcome") != "BOOKED" {
				t.Fatalf("the payment again: %v %v, want 200 BOOKED", a, err)
			}
			stored := pgtest.Scalar[string](t, check, `SELECT booking_id::text FROM payments WHERE payment_id = $1`, paymentID)
			if bookings, payments := bookingsOf(t, h.str("hold_id")); a.str("booking_id") != stored || !slices.Equal(bookings, []string{stored}) || payments != 1 {
				t.Fatalf("the retry answered booking %s; the database has %v and %d payments for the hold, stored %s",
					a.str("booking_id"), bookings, payments, stored)
			}
			return
		}
	})

	pgtest.CheckInvariants(t, store)
	t.Logf("%d SIGKILLs of the app; %d scenarios run again because the answer beat the kill", k.kills, k.retries)
}

// outcomes counts what clients were answered, by status and error code.
type outcomes struct {
	mu         sync.Mutex
	byAnswer   map[string]int
	unexpected []string
	outages    []window  // when Postgres was down
	failedAt   []failure // every 503
}

type window struct{ from, to time.Time }

type failure struct {
	began, answered time.Time
	what            string
}

func (o *outcomes) count(a answer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := fmt.Sprint(a.Status)
	if a.Status >= 400 {
		k += " " + a.code()
	}
	o.byAnswer[k]++
}

func (o *outcomes) wrong(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.unexpected) < 50 {
		o.unexpected = append(o.unexpected, fmt.Sprintf(format, args...))
	}
}

// summary lists the answers by count, largest first.
func (o *outcomes) summary() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	keys := make([]string, 0, len(o.byAnswer))
	for k := range o.byAnswer {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return o.byAnswer[keys[i]] > o.byAnswer[keys[j]] })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d; ", k, o.byAnswer[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// load is the clients of TestPostgresRestarts.
type load struct {
	ctx  context.Context
	show int64
	rows int // rows A.. the clients hold from; the row after is the probe's
	cols int
	out  *outcomes
	stop chan struct{}

	mu       sync.Mutex
	holds    map[string]ackedHold    // by hold id: every hold a client was told of
	bookings map[string]ackedBooking // by booking id
}

type ackedHold struct {
	user, key string
	seats     []string
	state     string // what the client made of it: HELD, CANCELLED or CONFIRMED
}

type ackedBooking struct{ hold, payment string }

// send sends a request until it is answered with anything but 503, which
// must be unavailable with a Retry-After; it waits 100 ms between tries
// rather than the seconds Retry-After asks, to keep the test short. Every
// request of the clients may be repeated: holds carry their key, payments
// their id, and a release or a checkout again changes nothing. A 503 busy
// is retried too, and is no sign of an outage: 50 clients without a pause
// between requests ask more than the write slots serve within their wait
// on a loaded machine, and admission control turns some away.
func (l *load) send(v *visitor, method, path, key string, body any, webhook []byte) (answer, bool) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		began := time.Now()
		var a answer
		var err error
		if webhook != nil {
			a, err = v.webhook(l.ctx, webhook)
		} else {
			a, err = v.send(l.ctx, method, path, key, body, nil)
		}
		switch {
		case err != nil:
			l.out.wrong("%s %s: no answer: %v", method, path, err)
		case a.Status == http.StatusServiceUnavailable && a.code() == "busy":
			l.out.count(a)
			if retryAfter(a) < 1 {
				l.out.wrong("%s %s: %v without a Retry-After", method, path, a)
			}
		case a.Status == http.StatusServiceUnavailable:
			l.out.count(a)
			l.out.mu.Lock()
			l.out.failedAt = append(l.out.failedAt, failure{began: began, answered: time.Now(), what: method + " " + path + ": " + a.String()})
			l.out.mu.Unlock()
			// A checkout asks the payment provider, which here is the
			// sandbox, on the same database.
			provider := strings.HasSuffix(path, "/checkout") && a.code() == "payment_provider_unavailable"
			if (a.code() != "unavailable" && !provider) || retryAfter(a) < 1 {
				l.out.wrong("%s %s: %v with Retry-After %q, want 503 unavailable with Retry-After", method, path, a, a.Header.Get("Retry-After"))
			}
		default:
			l.out.count(a)
			return a, true
		}
		if time.Now().After(deadline) {
			l.out.wrong("%s %s: still failing after 60 s", method, path)
			return a, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (l *load) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

// client is one person buying seats until the load stops: a hold of one
// or two random seats, then its release (two times in three) or a
// checkout and a payment, with
// a look at the seat map now and then. A step under way when the load
// stops is finished.
func (l *load) client(i int, user string, v *visitor) {
	for n := 0; !l.stopped(); n++ {
		seats := []string{fmt.Sprintf("%c%d", 'A'+rand.N(l.rows), 1+rand.N(l.cols))}
		if rand.N(2) == 0 {
			if s := fmt.Sprintf("%c%d", 'A'+rand.N(l.rows), 1+rand.N(l.cols)); s != seats[0] {
				seats = append(seats, s)
			}
		}
		key := fmt.Sprintf("c%d-%d", i, n)
		a, ok := l.send(v, http.MethodPost, holdPath(l.show), key, holdBody(seats), nil)
		if !ok {
			return
		}
		switch {
		case a.Status == http.StatusCreated || a.Status == http.StatusOK:
		case a.Status == http.StatusConflict && a.code() == "seats_unavailable":
			continue
		default:
			l.out.wrong("hold %v: %v", seats, a)
			continue
		}
		held, hold := a, a.str("hold_id")
		l.ack(hold, ackedHold{user: user, key: key, seats: toStrings(a.JSON["seats"]), state: "HELD"})

		if i%5 == 0 {
			if a, _ := l.send(v, http.MethodGet, fmt.Sprintf("/api/v1/shows/%d/seats", l.show), "", nil, nil); a.Status != http.StatusOK {
				l.out.wrong("seat map: %v", a)
			}
		}
		if n%3 != 0 {
			if a, _ := l.send(v, http.MethodDelete, "/api/v1/holds/"+hold, "", nil, nil); a.Status == http.StatusOK {
				l.setState(hold, "CANCELLED")
			} else {
				l.out.wrong("release %s: %v", hold, a)
			}
			continue
		}
		// 200: a retry whose first attempt opened the checkout before its
		// answer was lost gets that checkout back.
		if a, _ := l.send(v, http.MethodPost, "/api/v1/holds/"+hold+"/checkout", "", nil, nil); a.Status != http.StatusCreated && a.Status != http.StatusOK {
			l.out.wrong("checkout %s: %v", hold, a)
			continue
		}
		paymentID := "pay_" + key
		if a, _ := l.send(v, http.MethodPost, "/payments/webhook", "", nil, webhookBody(paymentID, held)); a.Status == http.StatusOK && a.str("outcome") == "BOOKED" {
			l.setState(hold, "CONFIRMED")
			l.mu.Lock()
			l.bookings[a.str("booking_id")] = ackedBooking{hold: hold, payment: paymentID}
			l.mu.Unlock()
		} else {
			l.out.wrong("pay %s: %v", hold, a)
		}
	}
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, s := range list {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}

func (l *load) ack(hold string, h ackedHold) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holds[hold] = h
}

func (l *load) setState(hold, state string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.holds[hold]
	h.state = state
	l.holds[hold] = h
}

func TestPostgresRestarts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster := faults.NewCluster(t)
	if err := cluster.CreateDatabase(ctx, "marquee"); err != nil {
		t.Fatal(err)
	}
	dbURL := cluster.URL("marquee")
	if err := postgres.Migrate(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	store, check := openChecker(t, dbURL, 4)
	venue := pgtest.NewVenue(t, store)
	const rows, cols, clients = 20, 30, 50 // rows A-T for the clients; U, the last, is the probe's
	show := pgtest.NewShow(t, store, venue, rows+1, cols, time.Now().Add(72*time.Hour))
	users, emails := userEmails(t, store, clients+1)
	// 50 clients without a pause between requests ask more than the write
	// slots serve, the more so on a loaded machine, where a request holds
	// its slot for a second. With the longest queue wait they wait their
	// turn, first come first served, rather than being turned away by the
	// hundred and retrying in a scramble that some client loses for a
	// minute.
	a := startAppFor(t, t, dbURL, "MAX_QUEUE_WAIT=10s")
	tr := newTransport()
	visitors := make([]*visitor, clients+1)
	var wg sync.WaitGroup
	errs := make(chan error, clients+1)
	for i := range visitors {
		visitors[i] = newVisitor(a.Base, tr)
		wg.Go(func() { errs <- visitors[i].login(ctx, emails[i]) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	view := watch(t, a.Base, show)
	probe, probeUser := visitors[clients], users[clients]

	l := &load{ctx: ctx, show: show, rows: rows, cols: cols, stop: make(chan struct{}),
		out:   &outcomes{byAnswer: map[string]int{}},
		holds: map[string]ackedHold{}, bookings: map[string]ackedBooking{}}
	var clientsDone sync.WaitGroup
	for i := range clients {
		clientsDone.Go(func() { l.client(i, users[i], visitors[i]) })
	}

	modes := []string{"fast", "immediate"}
	for round, mode := range modes {
		time.Sleep(1500 * time.Millisecond) // the clients at work
		down := time.Now()
		if err := cluster.Stop(mode); err != nil {
			t.Fatal(err)
		}
		if r, err := newVisitor(a.Base, tr).send(ctx, http.MethodGet, "/readyz", "", nil, nil); err != nil ||
			r.Status != http.StatusServiceUnavailable || retryAfter(r) < 1 {
			t.Errorf("/readyz with Postgres stopped (%s): %v %v, want 503 with Retry-After", mode, r, err)
		}
		time.Sleep(time.Second) // clients meet a database that is not there
		if err := cluster.Start(); err != nil {
			t.Fatal(err)
		}
		if err := readyWithin(a.Base, 30*time.Second); err != nil {
			t.Fatalf("after a %s restart: %v", mode, err)
		}
		up := time.Now()
		l.out.mu.Lock()
		l.out.outages = append(l.out.outages, window{down, up})
		l.out.mu.Unlock()
		t.Logf("%s stop: the app was ready again %v after the stop began", mode, up.Sub(down).Round(time.Millisecond))

		// The live seat map came back: a seat held now reaches the viewer.
		seat := fmt.Sprintf("%c%d", 'A'+rows, round+1)
		h, ok := l.send(probe, http.MethodPost, holdPath(show), fmt.Sprintf("probe-%d", round), holdBody([]string{seat}), nil)
		if !ok || h.Status != http.StatusCreated {
			t.Fatalf("the probe's hold of %s: %v", seat, h)
		}
		if !view.sees(seat, "held", up, 30*time.Second) {
			connects, drop := view.stats()
			t.Fatalf("after a %s restart the viewer never saw %s held (%d connections, last drop: %v)", mode, seat, connects, drop)
		}
		if a, _ := l.send(probe, http.MethodDelete, "/api/v1/holds/"+h.str("hold_id"), "", nil, nil); a.Status != http.StatusOK {
			t.Fatalf("the probe's release: %v", a)
		}
	}
	time.Sleep(1500 * time.Millisecond) // after the last restart
	close(l.stop)
	clientsDone.Wait()

	for _, u := range l.out.unexpected {
		t.Errorf("unexpected: %s", u)
	}
	// Errors only during the outages: every 503 was in flight while
	// Postgres was down or starting, but for at most one per pool
	// connection the restart broke, which pgx learns of by using it.
	late := 0
	for _, f := range l.out.failedAt {
		during := false
		for _, w := range l.out.outages {
			if !f.began.After(w.to) && !f.answered.Before(w.from) {
				during = true
			}
		}
		if !during {
			late++
			t.Logf("a 503 outside the outages: %s, asked at %s", f.what, f.began.Format(time.StampMilli))
		}
	}
	if max := len(modes) * int(appPool()); late > max {
		t.Errorf("%d answers 503 outside the outages, want at most %d (one per broken pool connection)", late, max)
	}

	// What the clients were told is what the database has, no more.
	type holdRow struct {
		ID, User string
		Key      *string
		Seats    []string
		State    string
	}
	rowsOf, err := check.Query(ctx, `
		SELECT h.id::text, h.user_id::text, k.key, h.seat_ids, h.state
		  FROM holds h LEFT JOIN hold_keys k ON k.hold_id = h.id
		 WHERE h.show_id = $1 AND h.user_id <> $2`, show, probeUser)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := pgx.CollectRows(rowsOf, pgx.RowToStructByPos[holdRow])
	if err != nil {
		t.Fatal(err)
	}
	inDB := map[string]bool{}
	for _, h := range stored {
		inDB[h.ID] = true
		acked, ok := l.holds[h.ID]
		switch {
		case !ok:
			t.Errorf("hold %s (%v, %s) is in the database, but no client was told of it", h.ID, h.Seats, h.State)
		case h.Key == nil || *h.Key != acked.key || h.User != acked.user || !slices.Equal(h.Seats, acked.seats) || h.State != acked.state:
			key := "(none)"
			if h.Key != nil {
				key = *h.Key
			}
			t.Errorf("hold %s: the database has key %s, user %s, seats %v, %s; the client was told %+v", h.ID, key, h.User, h.Seats, h.State, acked)
		}
	}
	for id, h := range l.holds {
		if !inDB[id] {
			t.Errorf("hold %s %+v was acknowledged but is not in the database", id, h)
		}
	}
	type bookingRow struct{ ID, Hold, Payment, Status string }
	rowsOf, err = check.Query(ctx, `
		SELECT id::text, hold_id::text, payment_id, status FROM bookings WHERE show_id = $1`, show)
	if err != nil {
		t.Fatal(err)
	}
	booked, err := pgx.CollectRows(rowsOf, pgx.RowToStructByPos[bookingRow])
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range booked {
		if acked, ok := l.bookings[b.ID]; !ok || acked.hold != b.Hold || acked.payment != b.Payment || b.Status != "CONFIRMED" {
			t.Errorf("booking %+v in the database; the client was told %+v", b, acked)
		}
	}
	if len(booked) != len(l.bookings) {
		t.Errorf("%d bookings in the database, %d acknowledged", len(booked), len(l.bookings))
	}
	// The seats say the same: booked by the acknowledged bookings, held by
	// the holds still held, and nothing else.
	want := map[string]string{}
	for _, h := range l.holds {
		for _, s := range h.seats {
			switch h.state {
			case "HELD":
				want[s] = "HELD"
			case "CONFIRMED":
				want[s] = "BOOKED"
			}
		}
	}
	seatRows, err := check.Query(ctx, `SELECT seat_id, status FROM show_seats WHERE show_id = $1 AND status <> 'AVAILABLE'`, show)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for seatRows.Next() {
		var seat, status string
		if err := seatRows.Scan(&seat, &status); err != nil {
			t.Fatal(err)
		}
		got[seat] = status
	}
	if err := seatRows.Err(); err != nil {
		t.Fatal(err)
	}
	for s, st := range want {
		if got[s] != st {
			t.Errorf("seat %s is %q, want %s", s, got[s], st)
		}
	}
	for s, st := range got {
		if want[s] == "" {
			t.Errorf("seat %s is %s, but no client holds or booked it", s, st)
		}
	}
	pgtest.CheckInvariants(t, store)
	connects, _ := view.stats()
	t.Logf("%d clients, %d restarts (%s): answers %s; %d holds and %d bookings acknowledged, all in the database; "+
		"%d answers 503 outside the outages; the viewer connected %d times; the listener's connection failed %d times",
		clients, len(modes), strings.Join(modes, ", "), l.out.summary(), len(l.holds), len(l.bookings),
		late, connects, a.log.count("seat change listener lost"))
}

func TestNetworkFaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pgtest.Reserve(t, 2*(appPool()+1)+3)
	site := newProxiedSite(t)
	store, check, show, emails, proxy := site.store, site.check, site.show, site.emails, site.proxy
	a := startApp(t, site.appURL)
	tr := newTransport()
	v := newVisitor(a.Base, tr)
	if err := v.login(ctx, emails[0]); err != nil {
		t.Fatal(err)
	}
	// Signed in now, their sessions are read from the database again
	// when the network is silent (the app trusts what it read for 2 s).
	members := make([]*visitor, 3)
	for i := range members {
		members[i] = newVisitor(a.Base, tr)
		if err := members[i].login(ctx, emails[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	signedIn := time.Now()
	view := watch(t, a.Base, show)
	guest := newVisitor(a.Base, tr)

	t.Run("a silent network: deadlines fire, Postgres ends the open transaction", func(t *testing.T) {
		h, err := v.send(ctx, http.MethodPost, holdPath(show), "silent", holdBody([]string{"A1", "A2"}), nil)
		if err != nil || h.Status != http.StatusCreated {
			t.Fatalf("hold: %v %v", h, err)
		}
		time.Sleep(time.Until(signedIn.Add(2500 * time.Millisecond)))
		// The payment's transaction locks the seats; the network goes
		// silent between two of its statements.
		defer proxy.Speak()
		defer proxy.SetLatency(0)
		proxy.SetLatency(200 * time.Millisecond)
		sent := time.Now()
		res := sendAsync(func() (answer, error) { return v.webhook(ctx, webhookBody("pay_silent", h)) })
		deadline := time.Now().Add(20 * time.Second)
		for {
			locked, err := seatLockedIdle(ctx, check, show, "A1")
			if err != nil {
				t.Fatal(err)
			}
			if locked {
				proxy.Silence()
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the payment never held the seat locks within 20 s")
			}
			time.Sleep(2 * time.Millisecond)
		}
		silent := time.Now()
		proxy.SetLatency(0)

		// While it is silent, requests that need the database: the
		// payment under way, seat maps enough to take every connection of
		// the pool, people whose sessions must be read from the database,
		// and /readyz. Each is answered within its 10 s deadline (the
		// readiness probe's is 2 s), however the network stays silent.
		type silentAnswer struct {
			what string
			r    result
			took time.Duration
		}
		// Room for every answer: the payment, the seat maps, the members'
		// and /readyz.
		answers := make(chan silentAnswer, int(appPool())+len(members)+2)
		var wg sync.WaitGroup
		wg.Go(func() {
			r := <-res
			answers <- silentAnswer{"the payment", r, time.Since(sent)}
		})
		ask := func(who *visitor, path string) {
			wg.Go(func() {
				began := time.Now()
				a, err := who.send(ctx, http.MethodGet, path, "", nil, nil)
				answers <- silentAnswer{path, result{a, err}, time.Since(began)}
			})
		}
		for range appPool() {
			ask(newVisitor(a.Base, tr), fmt.Sprintf("/api/v1/shows/%d/seats", show))
		}
		for _, m := range members {
			ask(m, "/api/v1/me")
		}
		ask(guest, "/readyz")

		// Meanwhile Postgres, hearing nothing, ends the transaction
		// (idle_in_transaction_session_timeout) and frees the seats,
		// while the network is still silent.
		if err := seatsLockable(ctx, check, show); err == nil {
			t.Fatal("the payment's seats are not locked once the network went silent")
		}
		for {
			locks, err := locksHeld(ctx, check)
			if err != nil {
				t.Fatal(err)
			}
			if len(locks) == 0 {
				break
			}
			if time.Since(silent) > 30*time.Second {
				t.Fatalf("locks still held %v after the network went silent: %q", time.Since(silent).Round(time.Second), locks)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err := seatsLockable(ctx, check, show); err != nil {
			t.Fatalf("the seats are still locked: %v", err)
		}
		t.Logf("no lock left %v after the network went silent", time.Since(silent).Round(100*time.Millisecond))

		wg.Wait()
		close(answers)
		byAnswer := map[string]int{}
		for sa := range answers {
			// The seat map may come from the instance's map in memory (the
			// listener finds a silent network at its next quiet check,
			// then forgets it): then it answers at once.
			fromMemory := strings.HasSuffix(sa.what, "/seats") && sa.r.err == nil && sa.r.a.Status == http.StatusOK
			if !fromMemory && (sa.r.err != nil || sa.r.a.Status != http.StatusServiceUnavailable) {
				t.Errorf("%s under a silent network: %v %v, want a 503", sa.what, sa.r.a, sa.r.err)
			}
			limit := 17 * time.Second // the 10 s deadline, and room for a loaded machine
			if sa.what == "/readyz" {
				limit = 8 * time.Second // its own 2 s
			}
			if sa.took > limit {
				t.Errorf("%s under a silent network was answered after %v: its deadline did not fire", sa.what, sa.took.Round(100*time.Millisecond))
			}
			byAnswer[fmt.Sprintf("%d %s", sa.r.a.Status, sa.r.a.code())]++
		}
		t.Logf("answers under a silent network: %v", byAnswer)

		// The network speaks again, and resets what it had: the app
		// recovers, and the payment sent again is booked once.
		proxy.Speak()
		proxy.Cut()
		if err := readyWithin(a.Base, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		paid, err := v.webhook(ctx, webhookBody("pay_silent", h))
		if err != nil || paid.Status != http.StatusOK || paid.str("outcome") != "BOOKED" {
			t.Fatalf("the payment again: %v %v", paid, err)
		}
		if n := pgtest.Scalar[int](t, check, `SELECT count(*) FROM bookings WHERE hold_id = $1`, h.str("hold_id")); n != 1 {
			t.Errorf("%d bookings of the hold, want 1", n)
		}
	})

	t.Run("connections cut and refused: 503 unavailable, then recovery", func(t *testing.T) {
		defer proxy.Refuse(false)
		proxy.Refuse(true)
		cut := proxy.Cut()
		statuses := map[string]int{}
		for i := range 5 {
			for _, req := range []struct {
				who  *visitor
				path string
				body any
			}{
				{guest, fmt.Sprintf("/api/v1/shows/%d/seats", show), nil},
				{v, holdPath(show), holdBody([]string{"B1"})},
			} {
				method := http.MethodGet
				if req.body != nil {
					method = http.MethodPost
				}
				r, err := req.who.send(ctx, method, req.path, fmt.Sprintf("refused-%d", i), req.body, nil)
				if err != nil {
					t.Fatalf("%s while refused: %v", req.path, err)
				}
				statuses[fmt.Sprintf("%d %s", r.Status, r.code())]++
				if method == http.MethodGet && r.Status == http.StatusOK {
					continue // the seat map, from the instance's memory (see above)
				}
				if r.Status != http.StatusServiceUnavailable || r.code() != "unavailable" || retryAfter(r) < 1 ||
					r.JSON["retry_after"] != float64(problem.UnavailableRetryAfter) {
					t.Errorf("%s while refused: %v with Retry-After %q, want 503 unavailable with Retry-After", req.path, r, r.Header.Get("Retry-After"))
				}
			}
		}
		// A page says so in plain words.
		page, err := guest.send(ctx, http.MethodGet, fmt.Sprintf("/shows/%d", show), "", nil, map[string]string{"Accept": "text/html"})
		if err != nil || page.Status != http.StatusServiceUnavailable || retryAfter(page) < 1 ||
			!strings.Contains(string(page.Body), "We can&#39;t reach our ticket system right now") {
			t.Errorf("the show page while refused: %v %v", page, err)
		}
		if r, err := guest.send(ctx, http.MethodGet, "/readyz", "", nil, nil); err != nil || r.Status != http.StatusServiceUnavailable {
			t.Errorf("/readyz while refused: %v %v", r, err)
		}

		proxy.Refuse(false)
		back := time.Now()
		if err := readyWithin(a.Base, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		h, err := v.send(ctx, http.MethodPost, holdPath(show), "after", holdBody([]string{"B1"}), nil)
		if err != nil || h.Status != http.StatusCreated {
			t.Fatalf("a hold after the network is back: %v %v", h, err)
		}
		if !view.sees("B1", "held", back, 30*time.Second) {
			connects, drop := view.stats()
			t.Fatalf("the viewer never saw B1 held after the network came back (%d connections, last drop: %v)", connects, drop)
		}
		t.Logf("%d connections cut; answers while refused: %v", cut, statuses)
	})

	pgtest.CheckInvariants(t, store)
}
