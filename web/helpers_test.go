package web_test

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
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

const (
	holdTTL    = 5 * time.Minute
	maxSeats   = 10
	publicURL  = "http://marquee.test"
	jsonType   = "application/json"
	badContent = "text/plain"
)

var webhookSecret = []byte("whsec_web_test")

// env is a server on a fresh database with one venue and one 10x10 show.
type env struct {
	t      *testing.T
	store  *postgres.Store
	clock  *pgtest.Clock // nil: the database clock
	venue  pgtest.Venue
	show   int64
	srv    *httptest.Server
	reg    *prometheus.Registry
	cfg    web.Config
	seq    atomic.Int64
	client *http.Client // shared transport for every test client
}

type envOption func(*env)

// withClock injects a controllable clock into the store.
func withClock(e *env) { e.clock = pgtest.NewClock(time.Now()) }

// withRateLimits turns the rate limits on.
func withRateLimits(e *env) { e.cfg.RateLimits = true }

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	e := &env{t: t, cfg: web.Config{
		PublicURL: publicURL, HoldTTL: holdTTL, MaxSeatsPerHold: maxSeats,
		WebhookSecret: webhookSecret, PasswordCost: 4,
	}}
	for _, o := range opts {
		o(e)
	}
	e.store = pgtest.NewStore(t, 8)
	if e.clock != nil {
		e.store.Clock = e.clock.Now
	}
	e.venue = pgtest.NewVenue(t, e.store)
	e.show = pgtest.NewShow(t, e.store, e.venue, 10, 10, e.now().Add(72*time.Hour))
	e.reg = prometheus.NewRegistry()
	// The sandbox is the provider, its webhooks never sent: tests deliver
	// payments themselves (see pay).
	e.cfg.Sandbox = sandbox.New(e.store.Pool(), sandbox.Config{PublicURL: publicURL, Secret: webhookSecret})
	h := server.New(e.cfg, e.store, metrics.New(e.reg), e.reg, nil)
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	e.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	t.Cleanup(func() { pgtest.CheckInvariants(t, e.store) })
	return e
}

// now is the store's clock.
func (e *env) now() time.Time {
	if e.clock != nil {
		return e.clock.Now()
	}
	return time.Now()
}

// client is one browser: its own cookie jar.
type client struct {
	e    *env
	http *http.Client
}

func (e *env) guest() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, http: &http.Client{Transport: e.client.Transport, Jar: jar, Timeout: e.client.Timeout}}
}

// response is an answer with its body read and, when JSON, decoded.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

func (r *response) String() string { return fmt.Sprintf("%d %s", r.Status, r.Body) }

// str returns a string field of the JSON body.
func (r *response) str(key string) string {
	s, _ := r.JSON[key].(string)
	return s
}

// num returns a number field of the JSON body.
func (r *response) num(key string) float64 {
	n, _ := r.JSON[key].(float64)
	return n
}

// strs returns a list-of-strings field of the JSON body.
func (r *response) strs(key string) []string {
	list, _ := r.JSON[key].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// req is a request to send: body is nil (none), a string or []byte (sent
// as is) or anything else (sent as JSON).
type req struct {
	method, path string
	body         any
	header       map[string]string
}

// send never fails the test itself: a request that gets no answer comes
// back with status 0 and the error as its body, for the caller's assertion.
func (c *client) send(r req) *response {
	out, err := c.trySend(r)
	if err != nil {
		return &response{Body: []byte(err.Error()), Header: http.Header{}}
	}
	return out
}

// trySend is send for goroutines other than the test's own.
func (c *client) trySend(r req) (*response, error) {
	var body io.Reader
	contentType := ""
	switch b := r.body.(type) {
	case nil:
	case string:
		body, contentType = strings.NewReader(b), jsonType
	case []byte:
		body, contentType = bytes.NewReader(b), jsonType
	case io.Reader:
		body, contentType = b, jsonType
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		body, contentType = bytes.NewReader(j), jsonType
	}
	hr, err := http.NewRequestWithContext(context.Background(), r.method, c.e.srv.URL+r.path, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		hr.Header.Set("Content-Type", contentType)
	}
	for k, v := range r.header {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	defer resp.Body.Close()
	out := &response{Status: resp.StatusCode, Header: resp.Header}
	if out.Body, err = io.ReadAll(resp.Body); err != nil {
		return nil, fmt.Errorf("%s %s: read body: %w", r.method, r.path, err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), jsonType) {
		if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
			return nil, fmt.Errorf("%s %s: answer is not a JSON object: %w: %s", r.method, r.path, err, out.Body)
		}
	}
	return out, nil
}

func (c *client) get(path string) *response { return c.send(req{method: "GET", path: path}) }

func (c *client) post(path string, body any) *response {
	return c.send(req{method: "POST", path: path, body: body})
}

func (c *client) delete(path string) *response { return c.send(req{method: "DELETE", path: path}) }

// Signup makes a new account and signs this client in as it.
func (c *client) signup(t testing.TB) (userID, email string) {
	t.Helper()
	email = fmt.Sprintf("user%d-%d@example.com", c.e.seq.Add(1), time.Now().UnixNano())
	r := c.post("/api/v1/signup", map[string]string{"email": email, "password": "correct horse", "name": "Test User"})
	want(t, r, http.StatusCreated)
	return r.str("user_id"), email
}

// user is a signed-up, signed-in client.
func (e *env) user(t testing.TB) *client {
	t.Helper()
	c := e.guest()
	c.signup(t)
	return c
}

// Login signs the client in with the fixture password.
func (c *client) login(email string) *response {
	return c.post("/api/v1/login", map[string]string{"email": email, "password": pgtest.FixturePassword})
}

// fixtureUser is an account made directly in the store, signed in.
func (e *env) fixtureUser(t testing.TB) *client {
	t.Helper()
	id := pgtest.User(t, e.store)
	u, err := e.store.User(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	c := e.guest()
	want(t, c.login(u.Email), http.StatusOK)
	return c
}

// Hold asks for seats of the env's show under a fresh key.
func (c *client) hold(seats ...string) *response {
	return c.holdKey(fmt.Sprintf("key-%d", c.e.seq.Add(1)), seats...)
}

func (c *client) holdKey(key string, seats ...string) *response {
	return c.holdOn(c.e.show, key, seats...)
}

// holdOn asks for seats of any show.
func (c *client) holdOn(show int64, key string, seats ...string) *response {
	return c.send(req{method: "POST", path: fmt.Sprintf("/api/v1/shows/%d/holds", show),
		body: map[string][]string{"seats": seats}, header: map[string]string{"Idempotency-Key": key}})
}

// mustHold holds seats and returns the hold's id.
func (c *client) mustHold(t testing.TB, seats ...string) *response {
	t.Helper()
	r := c.hold(seats...)
	want(t, r, http.StatusCreated)
	return r
}

// webhookBody is a payment report as the provider sends it.
type webhookBody struct {
	PaymentID   string `json:"payment_id"`
	HoldID      string `json:"hold_id"`
	AmountMinor int64  `json:"amount_minor"`
	Currency    string `json:"currency"`
	Status      string `json:"status"`
}

// paymentFor is a successful payment of hold h's exact amount.
func (e *env) paymentFor(h *response) webhookBody {
	return webhookBody{
		PaymentID: fmt.Sprintf("pay_%d_%d", e.seq.Add(1), time.Now().UnixNano()), HoldID: h.str("hold_id"),
		AmountMinor: int64(h.num("amount_minor")), Currency: h.str("currency"), Status: "succeeded",
	}
}

// webhook delivers a body signed now with the right secret.
func (e *env) webhook(body any) *response {
	raw, ok := body.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			panic(err)
		}
	}
	return e.webhookSigned(raw, payment.Sign(webhookSecret, time.Now(), raw))
}

func (e *env) webhookSigned(raw []byte, signature string) *response {
	return e.guest().send(req{method: "POST", path: "/payments/webhook", body: raw,
		header: map[string]string{payment.SignatureHeader: signature}})
}

// pay delivers a successful payment for hold h and expects it BOOKED.
func (e *env) pay(t testing.TB, h *response) *response {
	t.Helper()
	r := e.webhook(e.paymentFor(h))
	want(t, r, http.StatusOK)
	if r.str("outcome") != "BOOKED" || r.str("booking_id") == "" {
		t.Fatalf("payment outcome = %s, want BOOKED with a booking id", r)
	}
	return r
}

// want fails the test unless r has status.
func want(t testing.TB, r *response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %s, want %d", r, status)
	}
}

// wantError fails the test unless r is the JSON error code with status and
// a message for a person.
func wantError(t testing.TB, r *response, status int, code string) {
	t.Helper()
	if r.Status != status || r.str("error") != code {
		t.Fatalf("answer = %s, want %d %s", r, status, code)
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), jsonType) {
		t.Fatalf("error answer has Content-Type %q", r.Header.Get("Content-Type"))
	}
	if msg := r.str("message"); len(msg) < 8 {
		t.Fatalf("error answer %s has no message for a person", r)
	}
}

// seatStatus reads the seat map as the client sees it: id -> status, and
// the seats marked mine.
func (c *client) seatStatus(t testing.TB) (map[string]string, map[string]bool) {
	t.Helper()
	r := c.get(fmt.Sprintf("/api/v1/shows/%d/seats", c.e.show))
	want(t, r, http.StatusOK)
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

// snapshot is what a request that is refused must leave unchanged.
func (e *env) snapshot(t testing.TB) string {
	t.Helper()
	return pgtest.Scalar[string](t, e.store.Pool(), `
		SELECT format('users=%s holds=%s hold_keys=%s payments=%s bookings=%s refunds=%s seats=%s',
			(SELECT count(*) FROM users), (SELECT count(*) FROM holds), (SELECT count(*) FROM hold_keys),
			(SELECT count(*) FROM payments), (SELECT count(*) FROM bookings), (SELECT count(*) FROM refunds),
			(SELECT string_agg(status || ':' || n, ',' ORDER BY status)
			   FROM (SELECT status, count(*) AS n FROM show_seats GROUP BY status) h))`)
}

// count runs a count(*) query.
func (e *env) count(t testing.TB, sql string, args ...any) int64 {
	t.Helper()
	return pgtest.Scalar[int64](t, e.store.Pool(), sql, args...)
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
