// Package webtest is the web tests' support: a server on a fresh database
// (NewEnv), HTTP and page clients that keep their cookies, Sandbox Pay and
// the live seat map's machinery as `marquee serve` runs them.
package webtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

const (
	HoldTTL    = 5 * time.Minute
	MaxSeats   = 10
	PublicURL  = "http://marquee.test"
	JSONType   = "application/json"
	BadContent = "text/plain"
)

var WebhookSecret = []byte("whsec_web_test")

// Env is a server on a fresh database with one venue and one 10x10 show.
type Env struct {
	T          *testing.T
	Store      *postgres.Store
	Clock      *pgtest.Clock // nil: the database clock
	Venue      pgtest.Venue
	Show       int64
	Srv        *httptest.Server
	Reg        *prometheus.Registry
	Cfg        web.Config
	Seq        atomic.Int64
	HTTPClient *http.Client // shared transport for every test client
	routes     func(*echo.Echo)
}

type EnvOption func(*Env)

// WithClock injects a controllable clock into the store.
func WithClock(e *Env) { e.Clock = pgtest.NewClock(time.Now()) }

// WithStore serves the env from store (a copy of a seeded database, say)
// rather than a fresh one.
func WithStore(store *postgres.Store) EnvOption {
	return func(e *Env) { e.Store = store }
}

// WithRateLimits turns the rate limits on.
func WithRateLimits(e *Env) { e.Cfg.RateLimits = true }

// WithAdmission sets the server's admission control for the kinds of
// request a gives slots to; the others stay patient (see NewEnv).
func WithAdmission(a web.Admission) EnvOption {
	return func(e *Env) {
		for _, k := range []struct{ to, from *web.Capacity }{
			{&e.Cfg.Admission.Reads, &a.Reads}, {&e.Cfg.Admission.Writes, &a.Writes}, {&e.Cfg.Admission.Webhooks, &a.Webhooks},
		} {
			if k.from.Slots > 0 {
				*k.to = *k.from
			}
		}
	}
}

// PatientAdmission is the admission of an env (and of every test server): the default slots, with
// queues that wait as long as a loaded machine makes them. Admission
// control turns requests away by how long they would wait, which no test
// but its own may depend on.
func PatientAdmission() web.Admission {
	a := web.DefaultAdmission(runtime.NumCPU())
	for _, c := range []*web.Capacity{&a.Reads, &a.Writes, &a.Webhooks} {
		c.Queue, c.MaxWait = 10000, time.Hour
	}
	return a
}

// PatientRequests is the request timeout of an env (and of every test
// server): production's 10 s is a bound on a client's hold on seat locks,
// and a loaded machine running the race detector takes longer than that to
// decode a poster. A test asks for the answer, not for its speed; the
// timeout's own answer is tested apart (problem.For).
const PatientRequests = 2 * time.Minute

// WithRoutes adds routes of the test's own to the server, behind the
// middleware every route has: say, a handler that keeps its slot until the
// test lets it go.
func WithRoutes(add func(*echo.Echo)) EnvOption {
	return func(e *Env) { e.routes = add }
}

func NewEnv(t *testing.T, opts ...EnvOption) *Env {
	t.Helper()
	e := &Env{T: t, Cfg: web.Config{
		PublicURL: PublicURL, HoldTTL: HoldTTL, MaxSeatsPerHold: MaxSeats,
		WebhookSecret: WebhookSecret, PasswordCost: 4, Admission: PatientAdmission(),
		RequestTimeout: PatientRequests,
	}}
	for _, o := range opts {
		o(e)
	}
	if e.Store == nil {
		e.Store = pgtest.NewStore(t, 8)
	}
	if e.Clock != nil {
		e.Store.Clock = e.Clock.Now
	}
	e.Venue = pgtest.NewVenue(t, e.Store)
	e.Show = e.NewShow(t)
	e.Reg = prometheus.NewRegistry()
	// The sandbox is the provider, its webhooks never sent: tests deliver
	// payments themselves (see pay).
	e.Cfg.Sandbox = NewSandbox(e.Store, PublicURL, nil)
	h := server.New(e.Cfg, e.Store, metrics.New(e.Reg), nil)
	if e.routes != nil {
		e.routes(h.(*echo.Echo))
	}
	e.Srv = httptest.NewServer(h)
	t.Cleanup(e.Srv.Close)
	e.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	t.Cleanup(func() { pgtest.CheckInvariants(t, e.Store) })
	return e
}

// NewShow is another 10x10 show in the env's venue, on a screen of its own,
// starting in three days.
func (e *Env) NewShow(t testing.TB) int64 {
	t.Helper()
	return pgtest.NewShow(t, e.Store, e.Venue, 10, 10, e.Now().Add(72*time.Hour))
}

// Now is the store's clock.
func (e *Env) Now() time.Time {
	if e.Clock != nil {
		return e.Clock.Now()
	}
	return time.Now()
}

// Client is one browser: its own cookie jar.
type Client struct {
	E    *Env
	HTTP *http.Client
}

func (e *Env) Guest() *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{E: e, HTTP: &http.Client{Transport: e.HTTPClient.Transport, Jar: jar, Timeout: e.HTTPClient.Timeout}}
}

// Response is an answer with its body read and, when JSON, decoded.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

func (r *Response) String() string { return fmt.Sprintf("%d %s", r.Status, r.Body) }

// Str returns a string field of the JSON body.
func (r *Response) Str(key string) string {
	s, _ := r.JSON[key].(string)
	return s
}

// Num returns a number field of the JSON body.
func (r *Response) Num(key string) float64 {
	n, _ := r.JSON[key].(float64)
	return n
}

// Strs returns a list-of-strings field of the JSON body.
func (r *Response) Strs(key string) []string {
	list, _ := r.JSON[key].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// Req is a request to send: body is nil (none), a string or []byte (sent
// as is) or anything else (sent as JSON).
type Req struct {
	Method, Path string
	Body         any
	Header       map[string]string
}

// Send never fails the test itself: a request that gets no answer comes
// back with status 0 and the error as its body, for the caller's assertion.
func (c *Client) Send(r Req) *Response {
	out, err := c.TrySend(r)
	if err != nil {
		return &Response{Body: []byte(err.Error()), Header: http.Header{}}
	}
	return out
}

// TrySend is send for goroutines other than the test's own.
func (c *Client) TrySend(r Req) (*Response, error) {
	var body io.Reader
	contentType := ""
	switch b := r.Body.(type) {
	case nil:
	case string:
		body, contentType = strings.NewReader(b), JSONType
	case []byte:
		body, contentType = bytes.NewReader(b), JSONType
	case io.Reader:
		body, contentType = b, JSONType
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		body, contentType = bytes.NewReader(j), JSONType
	}
	hr, err := http.NewRequestWithContext(context.Background(), r.Method, c.E.Srv.URL+r.Path, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		hr.Header.Set("Content-Type", contentType)
	}
	for k, v := range r.Header {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	resp, err := c.HTTP.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	out := &Response{Status: resp.StatusCode, Header: resp.Header}
	if out.Body, err = io.ReadAll(resp.Body); err != nil {
		return nil, fmt.Errorf("%s %s: read body: %w", r.Method, r.Path, err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), JSONType) {
		if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
			return nil, fmt.Errorf("%s %s: answer is not a JSON object: %w: %s", r.Method, r.Path, err, out.Body)
		}
	}
	return out, nil
}

func (c *Client) Get(path string) *Response { return c.Send(Req{Method: "GET", Path: path}) }

func (c *Client) Post(path string, body any) *Response {
	return c.Send(Req{Method: "POST", Path: path, Body: body})
}

func (c *Client) Delete(path string) *Response { return c.Send(Req{Method: "DELETE", Path: path}) }

// Signup makes a new account and signs this client in as it.
func (c *Client) Signup(t testing.TB) (userID, email string) {
	t.Helper()
	email = fmt.Sprintf("user%d-%d@example.com", c.E.Seq.Add(1), time.Now().UnixNano())
	r := c.Post("/api/v1/signup", map[string]string{"email": email, "password": "correct horse", "name": "Test User"})
	Want(t, r, http.StatusCreated)
	return r.Str("user_id"), email
}

// User is a signed-up, signed-in client.
func (e *Env) User(t testing.TB) *Client {
	t.Helper()
	c := e.Guest()
	c.Signup(t)
	return c
}

// Login signs the client in with the fixture password.
func (c *Client) Login(email string) *Response {
	return c.Post("/api/v1/login", map[string]string{"email": email, "password": pgtest.FixturePassword})
}

// FixtureUser is an account made directly in the store, signed in.
func (e *Env) FixtureUser(t testing.TB) *Client {
	t.Helper()
	return e.FixtureUsers(t, 1)[0]
}

// FixtureUsers is n accounts made directly in the store, signed in over
// HTTP 16 at a time: a race test's clients, ready before it starts. (Each
// login checks a password hash, which is what takes the time.)
func (e *Env) FixtureUsers(t testing.TB, n int) []*Client {
	t.Helper()
	emails := make([]string, n)
	for i := range emails {
		u, err := e.Store.User(context.Background(), pgtest.User(t, e.Store))
		if err != nil {
			t.Fatal(err)
		}
		emails[i] = u.Email
	}
	users := make([]*Client, n)
	logins := make([]*Response, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, 16) {
		wg.Go(func() {
			for i := range next {
				users[i] = e.Guest()
				logins[i] = users[i].Login(emails[i])
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, r := range logins {
		Want(t, r, http.StatusOK)
	}
	return users
}

// Account is an account of role made directly in the store, granted the
// theatres (as a theatre admin is), and signed in.
func (e *Env) Account(t testing.TB, role auth.Role, theatres ...int64) (*Client, auth.User) {
	t.Helper()
	id := pgtest.User(t, e.Store)
	pgtest.Exec(t, e.Store.Pool(), `UPDATE users SET role = $2 WHERE id = $1`, id, string(role))
	for _, th := range theatres {
		pgtest.Exec(t, e.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'manager')`, th, id)
	}
	u, err := e.Store.User(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	c := e.Guest()
	Want(t, c.Login(u.Email), http.StatusOK)
	return c, u
}

// Staff is a signed-in account with staff role at theatre.
func (e *Env) Staff(t testing.TB, role auth.StaffRole, theatre int64) (*Client, auth.User) {
	t.Helper()
	id := pgtest.User(t, e.Store)
	pgtest.Exec(t, e.Store.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, id)
	pgtest.Exec(t, e.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, $3)`, theatre, id, string(role))
	u, err := e.Store.User(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	c := e.Guest()
	Want(t, c.Login(u.Email), http.StatusOK)
	return c, u
}

// Admin is Account's client.
func (e *Env) Admin(t testing.TB, role auth.Role, theatres ...int64) *Client {
	t.Helper()
	c, _ := e.Account(t, role, theatres...)
	return c
}

// Hold asks for seats of the env's show under a fresh key.
func (c *Client) Hold(seats ...string) *Response {
	return c.HoldKey(fmt.Sprintf("key-%d", c.E.Seq.Add(1)), seats...)
}

func (c *Client) HoldKey(key string, seats ...string) *Response {
	return c.HoldOn(c.E.Show, key, seats...)
}

// HoldOn asks for seats of any show.
func (c *Client) HoldOn(show int64, key string, seats ...string) *Response {
	return c.Send(Req{Method: "POST", Path: fmt.Sprintf("/api/v1/shows/%d/holds", show),
		Body: map[string][]string{"seats": seats}, Header: map[string]string{"Idempotency-Key": key}})
}

// MustHold holds seats and returns the hold's id.
func (c *Client) MustHold(t testing.TB, seats ...string) *Response {
	t.Helper()
	r := c.Hold(seats...)
	Want(t, r, http.StatusCreated)
	return r
}

// WebhookBody is a payment report as the provider sends it.
type WebhookBody struct {
	PaymentID   string `json:"payment_id"`
	HoldID      string `json:"hold_id"`
	AmountMinor int64  `json:"amount_minor"`
	Currency    string `json:"currency"`
	Status      string `json:"status"`
	// CapturedAt is when the provider took the money; nil leaves it out.
	CapturedAt *time.Time `json:"captured_at,omitempty"`
}

// PaymentFor is a successful payment of hold h's exact amount.
func (e *Env) PaymentFor(h *Response) WebhookBody {
	return WebhookBody{
		PaymentID: fmt.Sprintf("pay_%d_%d", e.Seq.Add(1), time.Now().UnixNano()), HoldID: h.Str("hold_id"),
		AmountMinor: int64(h.Num("amount_minor")), Currency: h.Str("currency"), Status: "succeeded",
	}
}

// Webhook delivers a body signed now with the right secret.
func (e *Env) Webhook(body any) *Response {
	raw, ok := body.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			panic(err)
		}
	}
	return e.WebhookSigned(raw, payment.Sign(WebhookSecret, time.Now(), raw))
}

func (e *Env) WebhookSigned(raw []byte, signature string) *Response {
	return e.Guest().Send(Req{Method: "POST", Path: "/payments/webhook", Body: raw,
		Header: map[string]string{payment.SignatureHeader: signature}})
}

// Pay delivers a successful payment for hold h and expects it BOOKED.
func (e *Env) Pay(t testing.TB, h *Response) *Response {
	t.Helper()
	r := e.Webhook(e.PaymentFor(h))
	Want(t, r, http.StatusOK)
	if r.Str("outcome") != "BOOKED" || r.Str("booking_id") == "" {
		t.Fatalf("payment outcome = %s, want BOOKED with a booking id", r)
	}
	return r
}

// BookedTicket is a confirmed booking as its moviegoer's API shows it.
type BookedTicket struct {
	ID, Code string // Code: the signed code its QR carries
	Owner    *Client
}

// Book makes a new moviegoer book seats of show, paid, and returns the
// booking.
func (e *Env) Book(t testing.TB, show int64, seats ...string) BookedTicket {
	t.Helper()
	c := e.User(t)
	h := c.HoldOn(show, fmt.Sprintf("book-%d", e.Seq.Add(1)), seats...)
	Want(t, h, http.StatusCreated)
	id := e.Pay(t, h).Str("booking_id")
	b := c.Get("/api/v1/bookings/" + id)
	Want(t, b, http.StatusOK)
	return BookedTicket{ID: id, Code: b.Str("code"), Owner: c}
}

// Want fails the test unless r has status.
func Want(t testing.TB, r *Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %s, want %d", r, status)
	}
}

// WantError fails the test unless r is the JSON error code with status and
// a message for a person.
func WantError(t testing.TB, r *Response, status int, code string) {
	t.Helper()
	if r.Status != status || r.Str("error") != code {
		t.Fatalf("answer = %s, want %d %s", r, status, code)
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), JSONType) {
		t.Fatalf("error answer has Content-Type %q", r.Header.Get("Content-Type"))
	}
	if msg := r.Str("message"); len(msg) < 8 {
		t.Fatalf("error answer %s has no message for a person", r)
	}
}

// SeatStatus reads the seat map as the client sees it: id -> status, and
// the seats marked mine.
func (c *Client) SeatStatus(t testing.TB) (map[string]string, map[string]bool) {
	t.Helper()
	r := c.Get(fmt.Sprintf("/api/v1/shows/%d/seats", c.E.Show))
	Want(t, r, http.StatusOK)
	status, mine := map[string]string{}, map[string]bool{}
	for _, s := range r.JSON["seats"].([]any) {
		seat := s.(map[string]any)
		id := seat["id"].(string)
		status[id] = seat["status"].(string)
		if m, _ := seat["mine"].(bool); m {
			mine[id] = true
		}
	}
	return status, mine
}

// Snapshot is what a request that is refused must leave unchanged.
func (e *Env) Snapshot(t testing.TB) string {
	t.Helper()
	return pgtest.Scalar[string](t, e.Store.Pool(), `
		SELECT format('users=%s holds=%s hold_keys=%s payments=%s bookings=%s refunds=%s seats=%s',
			(SELECT count(*) FROM users), (SELECT count(*) FROM holds), (SELECT count(*) FROM hold_keys),
			(SELECT count(*) FROM payments), (SELECT count(*) FROM bookings), (SELECT count(*) FROM refunds),
			(SELECT string_agg(status || ':' || n, ',' ORDER BY status)
			   FROM (SELECT status, count(*) AS n FROM show_seats GROUP BY status) h))`)
}

// Count runs a count(*) query.
func (e *Env) Count(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	return pgtest.Scalar[int64](t, e.Store.Pool(), sql, args...)
}

func MustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
