package pages_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/PuerkitoBio/goquery"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/reconcile"
	"github.com/marquee-tickets/marquee/internal/refunds"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

// payEnv is the whole payment loop on one test server: the app and the
// sandbox it serves, whose webhook worker posts to the app over HTTP, as
// in production. Its PUBLIC_URL is the test server's own address.
type payEnv struct {
	*webtest.Env
	sandbox *sandbox.Sandbox
	worker  *sandbox.WebhookWorker
	// sbJobs is the database on the sandbox's clock, by which its webhook
	// jobs are due.
	sbJobs  *postgres.Store
	sbClock *pgtest.Clock // the sandbox's clock: when webhooks are due
	// failWebhooks makes the app answer the next n webhooks 503.
	failWebhooks atomic.Int64
}

func newPayEnv(t *testing.T, opts ...webtest.EnvOption) *payEnv {
	t.Helper()
	e := &webtest.Env{T: t, Cfg: web.Config{
		HoldTTL: webtest.HoldTTL, MaxSeatsPerHold: webtest.MaxSeats, WebhookSecret: webtest.WebhookSecret, PasswordCost: 4,
		Admission: webtest.PatientAdmission(), RequestTimeout: webtest.PatientRequests,
	}}
	for _, o := range opts {
		o(e)
	}
	pe := &payEnv{Env: e, sbClock: pgtest.NewClock(time.Now())}
	e.Store = pgtest.NewStore(t, 8)
	if e.Clock != nil {
		e.Store.Clock = e.Clock.Now
	}
	e.Venue = pgtest.NewVenue(t, e.Store)
	e.Show = pgtest.NewShow(t, e.Store, e.Venue, 10, 10, e.Now().Add(72*time.Hour))
	e.Reg = prometheus.NewRegistry()

	e.Srv = httptest.NewUnstartedServer(nil)
	e.Srv.Start()
	t.Cleanup(e.Srv.Close)
	e.Cfg.PublicURL = e.Srv.URL
	pe.sandbox = webtest.NewSandbox(e.Store, e.Srv.URL, nil)
	pe.sandbox.Clock = pe.sbClock.Now
	pe.worker = &sandbox.WebhookWorker{Sandbox: pe.sandbox}
	pe.sbJobs = postgres.NewStore(e.Store.Pool())
	pe.sbJobs.Clock = pe.sbClock.Now
	e.Cfg.Sandbox = pe.sandbox
	h := server.New(e.Cfg, e.Store, metrics.New(e.Reg), nil)
	e.Srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/payments/webhook" && pe.failWebhooks.Add(-1) >= 0 {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
	e.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	t.Cleanup(func() { pgtest.CheckInvariants(t, e.Store) })
	return pe
}

// deliver works the sandbox's webhook jobs due by its clock, as River
// would, and returns how many completed: the webhooks delivered.
func (e *payEnv) deliver(t *testing.T) int {
	t.Helper()
	return pgtest.WorkJobs(t, e.sbJobs, river.Worker[jobs.WebhookDelivery](e.worker))
}

// shopper is a browser: a cookie jar, no automatic redirects (tests look at
// each one), and the CSRF token of its cookie for forms.
type shopper struct {
	*webtest.Client
	e        *payEnv
	nofollow *http.Client
}

// paidWith is a signed-in shopper who held A1 and paid for it at Sandbox Pay
// with behaviour b: where every webhook scenario starts.
func paidWith(t *testing.T, b sandbox.Behaviour) (*payEnv, *shopper, string) {
	t.Helper()
	e := newPayEnv(t)
	s := e.shopper(t, true)
	holdID := s.MustHold(t, "A1").Str("hold_id")
	s.payAt(t, s.startCheckout(t, holdID), b)
	return e, s, holdID
}

func (e *payEnv) shopper(t *testing.T, signedIn bool) *shopper {
	t.Helper()
	c := e.Guest()
	if signedIn {
		c.Signup(t)
	}
	return e.browse(c)
}

// operator is a platform admin: who may use Sandbox Pay's dashboard.
func (e *payEnv) operator(t *testing.T) *shopper {
	t.Helper()
	return e.browse(e.Admin(t, auth.RolePlatformAdmin))
}

// browse is a shopper with c's cookies.
func (e *payEnv) browse(c *webtest.Client) *shopper {
	return &shopper{Client: c, e: e, nofollow: &http.Client{
		Transport: c.HTTP.Transport, Jar: c.HTTP.Jar, Timeout: c.HTTP.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is an HTML answer.
type page struct {
	Status int
	Header http.Header
	Body   string
	Doc    *goquery.Document
}

func (p *page) String() string { return fmt.Sprintf("%d %s", p.Status, p.Body) }

// Text is the text of the elements sel matches, spaces squeezed.
func (p *page) Text(sel string) string {
	return strings.Join(strings.Fields(p.Doc.Find(sel).Text()), " ")
}

func (s *shopper) do(t *testing.T, method, path string, form url.Values, header map[string]string) *page {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	target := path
	if strings.HasPrefix(path, "/") {
		target = s.e.Srv.URL + path
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := s.nofollow.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return &page{Status: resp.StatusCode, Header: resp.Header, Body: string(b), Doc: doc}
}

func (s *shopper) page(t *testing.T, path string) *page {
	t.Helper()
	return s.do(t, "GET", path, nil, nil)
}

// csrf is the shopper's CSRF token, fetched with a page when it has none.
func (s *shopper) csrf(t *testing.T) string {
	t.Helper()
	u := webtest.MustURL(s.e.Srv.URL)
	for range 2 {
		for _, ck := range s.HTTP.Jar.Cookies(u) {
			if ck.Name == "marquee_csrf" {
				return ck.Value
			}
		}
		s.page(t, "/login")
	}
	t.Fatal("no CSRF cookie")
	return ""
}

// Submit posts a form with the shopper's CSRF token.
func (s *shopper) Submit(t *testing.T, path string, form url.Values) *page {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", s.csrf(t))
	return s.do(t, "POST", path, form, nil)
}

func wantPage(t *testing.T, p *page, status int) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status = %d, want %d: %s", p.Status, status, p.Body)
	}
}

// wantRedirect checks a 303 and returns where it goes.
func wantRedirect(t *testing.T, p *page) string {
	t.Helper()
	wantPage(t, p, http.StatusSeeOther)
	return p.Header.Get("Location")
}

var checkoutURLPattern = regexp.MustCompile(`/sandbox/checkout/(cs_[0-9a-f]{32})$`)

// startCheckout presses Pay on hold h and returns the sandbox checkout's path.
func (s *shopper) startCheckout(t *testing.T, holdID string) string {
	t.Helper()
	loc := wantRedirect(t, s.Submit(t, "/holds/"+holdID+"/pay", nil))
	if !strings.HasPrefix(loc, s.e.Srv.URL+"/sandbox/checkout/") || !checkoutURLPattern.MatchString(loc) {
		t.Fatalf("pay redirected to %q, want a sandbox checkout under PUBLIC_URL", loc)
	}
	return strings.TrimPrefix(loc, s.e.Srv.URL)
}

// payAt presses Pay at the sandbox with behaviour b and returns where the
// sandbox sent the browser back to.
func (s *shopper) payAt(t *testing.T, checkoutPath string, b sandbox.Behaviour) string {
	t.Helper()
	return wantRedirect(t, s.Submit(t, checkoutPath+"/pay", url.Values{"behaviour": {string(b)}}))
}

// returnPath is the return page of hold holdID.
func returnPath(holdID string) string { return "/checkout/return?hold_id=" + url.QueryEscape(holdID) }

// status reads the return page's status fragment as a plain GET.
func (s *shopper) status(t *testing.T, holdID string) (state string, p *page) {
	t.Helper()
	p = s.page(t, "/checkout/return/status?hold_id="+url.QueryEscape(holdID))
	wantPage(t, p, http.StatusOK)
	state, _ = p.Doc.Find("#payment-status").Attr("data-state")
	return state, p
}

func (e *payEnv) holdState(t *testing.T, holdID string) string {
	t.Helper()
	return pgtest.Scalar[string](t, e.Store.Pool(), `SELECT state FROM holds WHERE id = $1`, holdID)
}

func TestSandboxCheckoutPage(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	s := e.shopper(t, true)
	h := s.MustHold(t, "A1", "A2")
	holdID := h.Str("hold_id")
	path := s.startCheckout(t, holdID)

	t.Run("shows merchant, amount, hold, Pay and Decline with CSRF tokens", func(t *testing.T) {
		p := s.page(t, path)
		wantPage(t, p, http.StatusOK)
		if got := p.Text("[data-merchant]"); got != "Marquee" {
			t.Errorf("merchant = %q", got)
		}
		if got := p.Text("[data-amount]"); got != "₹500" {
			t.Errorf("amount = %q, want ₹500", got)
		}
		if got := p.Text("[data-hold]"); got != holdID {
			t.Errorf("hold = %q, want %s", got, holdID)
		}
		if !strings.Contains(p.Text("header"), "Sandbox Pay") || !strings.Contains(p.Text("header"), "Test mode") {
			t.Errorf("header %q does not present Sandbox Pay in test mode", p.Text("header"))
		}
		pay := p.Doc.Find(`form[action="` + path + `/pay"]`)
		decline := p.Doc.Find(`form[action="` + path + `/decline"]`)
		if pay.Length() != 1 || decline.Length() != 1 {
			t.Fatalf("want one Pay and one Decline form:\n%s", p.Body)
		}
		for _, f := range []*goquery.Selection{pay, decline} {
			if tok, _ := f.Find(`input[name="_csrf"]`).Attr("value"); tok != s.csrf(t) || f.AttrOr("method", "") != "post" {
				t.Errorf("form %s carries CSRF token %q", f.AttrOr("action", ""), tok)
			}
		}
		if !strings.Contains(pay.Find("button").Text(), "Pay ₹500") {
			t.Errorf("pay button = %q", pay.Find("button").Text())
		}
		var options []string
		pay.Find(`select[name="behaviour"] option`).Each(func(_ int, o *goquery.Selection) {
			options = append(options, o.AttrOr("value", ""))
		})
		if got := strings.Join(options, ","); got != "normal,delay,duplicate,drop,reorder,two_payments" {
			t.Errorf("behaviours = %s", got)
		}
		if id, _ := pay.Find("select").Attr("id"); p.Doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Error("the behaviour select has no label")
		}
		if csp := p.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("CSP = %q", csp)
		}
	})

	t.Run("an unknown checkout is 404", func(t *testing.T) {
		for _, bad := range []string{"/sandbox/checkout/cs_00000000000000000000000000000000", "/sandbox/checkout/nope"} {
			wantPage(t, s.page(t, bad), http.StatusNotFound)
			wantPage(t, s.Submit(t, bad+"/pay", nil), http.StatusNotFound)
		}
	})

	t.Run("a form without the CSRF token changes nothing", func(t *testing.T) {
		snap := e.Snapshot(t)
		for _, form := range []url.Values{{}, {"_csrf": {"forged-forged-forged-forged-forged-forged-f"}}} {
			for _, action := range []string{"/pay", "/decline"} {
				form.Set("behaviour", "normal")
				wantPage(t, s.do(t, "POST", path+action, form, nil), http.StatusForbidden)
			}
		}
		wantPage(t, s.do(t, "POST", path+"/pay", url.Values{"_csrf": {s.csrf(t)}}, map[string]string{"Sec-Fetch-Site": "cross-site"}), http.StatusForbidden)
		if n := e.Count(t, `SELECT count(*) FROM sandbox_payments`); n != 0 {
			t.Fatalf("%d sandbox payments after refused forms", n)
		}
		if got := e.Snapshot(t); got != snap {
			t.Fatalf("database changed:\n%s\n%s", snap, got)
		}
	})

	t.Run("an unknown behaviour is 422 and charges nothing", func(t *testing.T) {
		wantPage(t, s.Submit(t, path+"/pay", url.Values{"behaviour": {"explode"}}), http.StatusUnprocessableEntity)
		if n := e.Count(t, `SELECT count(*) FROM sandbox_payments`); n != 0 {
			t.Fatal("charged for an unknown behaviour")
		}
	})

	t.Run("the JSON checkout gives the checkout the Pay button opened", func(t *testing.T) {
		r := s.Post("/api/v1/holds/"+holdID+"/checkout", nil)
		webtest.Want(t, r, http.StatusOK)
		u := r.Str("checkout_url")
		if !strings.HasPrefix(u, e.Srv.URL) || !checkoutURLPattern.MatchString(u) || u != e.Srv.URL+path {
			t.Fatalf("checkout_url = %q, want %s", u, e.Srv.URL+path)
		}
		wantPage(t, s.page(t, strings.TrimPrefix(u, e.Srv.URL)), http.StatusOK)
	})
}

// The purchase of the brief: Pay on the hold, pay at the sandbox, land on
// the return page, which confirms once the worker has delivered the webhook.
func TestPayAtSandboxBooksTheHold(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	s := e.shopper(t, true)
	holdID := s.MustHold(t, "B1", "B2").Str("hold_id")
	path := s.startCheckout(t, holdID)

	back := s.payAt(t, path, sandbox.BehaveNormal)
	if want := e.Srv.URL + returnPath(holdID); back != want {
		t.Fatalf("sandbox sent the browser to %q, want %q", back, want)
	}
	if n := e.Count(t, `SELECT count(*) FROM sandbox_payments WHERE hold_id = $1 AND status = 'succeeded'`, holdID); n != 1 {
		t.Fatalf("%d payments recorded, want 1", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM sandbox_webhooks`); n != 1 {
		t.Fatalf("%d webhooks queued, want 1", n)
	}

	t.Run("before the webhook: confirming, polling, nothing booked", func(t *testing.T) {
		p := s.page(t, returnPath(holdID))
		wantPage(t, p, http.StatusOK)
		st := p.Doc.Find("#payment-status")
		if st.AttrOr("data-state", "") != "confirming" || !strings.Contains(p.Text("#payment-status"), "Confirming your payment…") {
			t.Fatalf("return page status = %q", p.Text("#payment-status"))
		}
		pollURL, _ := url.Parse(st.AttrOr("hx-get", ""))
		if pollURL.Path != "/checkout/return/status" || pollURL.Query().Get("hold_id") != holdID || pollURL.Query().Get("shown") != "confirming" ||
			st.AttrOr("hx-trigger", "") != "every 1s" {
			t.Fatalf("status does not poll itself: hx-get=%q hx-trigger=%q", st.AttrOr("hx-get", ""), st.AttrOr("hx-trigger", ""))
		}
		region := st.Parent()
		if region.AttrOr("aria-live", "") != "polite" || region.AttrOr("role", "") != "status" {
			t.Fatalf("status region is not live: %v", region.Nodes[0].Attr)
		}
		if e.holdState(t, holdID) != "HELD" || e.Count(t, `SELECT count(*) FROM payments`) != 0 {
			t.Fatal("the return page or the redirect confirmed something")
		}
		// An htmx poll that finds nothing new swaps nothing.
		poll := s.do(t, "GET", "/checkout/return/status?hold_id="+holdID, nil, map[string]string{"HX-Request": "true"})
		wantPage(t, poll, http.StatusNoContent)
	})

	t.Run("the worker delivers the webhook: BOOKED, once", func(t *testing.T) {
		if n := e.deliver(t); n != 1 {
			t.Fatalf("delivered %d, want 1", n)
		}
		if e.holdState(t, holdID) != "CONFIRMED" || e.Count(t, `SELECT count(*) FROM bookings WHERE hold_id = $1`, holdID) != 1 {
			t.Fatal("the delivered webhook did not book the hold")
		}
		if n := e.deliver(t); n != 0 {
			t.Fatal("a delivered webhook was delivered again")
		}
	})

	t.Run("the return page shows the ticket and stops polling", func(t *testing.T) {
		bookingID := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT id::text FROM bookings WHERE hold_id = $1`, holdID)
		state, p := s.status(t, holdID)
		if state != "booked" {
			t.Fatalf("status = %s: %s", state, p.Text("#payment-status"))
		}
		if href := p.Doc.Find("a[data-booking-link]").AttrOr("href", ""); href != "/bookings/"+bookingID {
			t.Fatalf("ticket link = %q, want /bookings/%s", href, bookingID)
		}
		if p.Doc.Find("[hx-trigger]").Length() != 0 {
			t.Fatal("a final status still polls")
		}
		// htmx gets the final fragment too, to swap in.
		poll := s.do(t, "GET", "/checkout/return/status?hold_id="+holdID, nil, map[string]string{"HX-Request": "true"})
		wantPage(t, poll, http.StatusOK)
		full := s.page(t, returnPath(holdID))
		if !strings.Contains(full.Text("#payment-status"), "your seats are booked") {
			t.Fatalf("return page = %q", full.Text("#payment-status"))
		}
	})

	t.Run("paying the same checkout again charges nothing more and says it is paid", func(t *testing.T) {
		again := s.Submit(t, path+"/pay", url.Values{"behaviour": {string(sandbox.BehaveNormal)}})
		wantPage(t, again, http.StatusConflict)
		if again.Text("[data-outcome=already_paid] p") == "" || again.Doc.Find(`a[data-ticket-link][href$="`+returnPath(holdID)+`"]`).Length() != 1 {
			t.Fatalf("paying again answers:\n%s", again.Body)
		}
		if n := e.Count(t, `SELECT count(*) FROM sandbox_payments`); n != 1 {
			t.Fatalf("%d payments after paying twice", n)
		}
		p := s.page(t, path)
		if p.Doc.Find(`[data-outcome="paid"]`).Length() != 1 || p.Doc.Find(`form[action$="/pay"]`).Length() != 0 {
			t.Fatalf("a paid checkout still offers to pay:\n%s", p.Body)
		}
	})
}

func TestSandboxBehaviours(t *testing.T) {
	t.Parallel()

	t.Run("duplicate: two deliveries, one booking", func(t *testing.T) {
		t.Parallel()
		e, s, holdID := paidWith(t, sandbox.BehaveDuplicate)
		if n := e.deliver(t); n != 2 {
			t.Fatalf("delivered %d, want 2", n)
		}
		if e.Count(t, `SELECT count(*) FROM bookings`) != 1 || e.Count(t, `SELECT count(*) FROM payments`) != 1 ||
			e.Count(t, `SELECT count(*) FROM refunds`) != 0 {
			t.Fatal("a duplicated webhook did more than one booking")
		}
		if state, _ := s.status(t, holdID); state != "booked" {
			t.Fatalf("status = %s", state)
		}
	})

	t.Run("drop: money taken, no booking, the return page keeps confirming", func(t *testing.T) {
		t.Parallel()
		e, s, holdID := paidWith(t, sandbox.BehaveDrop)
		e.sbClock.Advance(time.Hour)
		if n := e.deliver(t); n != 0 {
			t.Fatalf("delivered %d dropped webhooks", n)
		}
		if e.Count(t, `SELECT count(*) FROM payments`) != 0 || e.holdState(t, holdID) != "HELD" {
			t.Fatal("something was booked without a webhook")
		}
		for range 3 {
			if state, p := s.status(t, holdID); state != "confirming" || p.Doc.Find("[hx-trigger]").Length() != 1 {
				t.Fatalf("status = %s, want confirming and still polling", state)
			}
		}
		// Pressing Pay again (another tab) leads to the return page, not to
		// a second charge.
		before := e.Count(t, `SELECT count(*) FROM sandbox_checkouts`)
		if loc := wantRedirect(t, s.Submit(t, "/holds/"+holdID+"/pay", nil)); loc != e.Srv.URL+returnPath(holdID) {
			t.Fatalf("Pay on a paid hold redirected to %q", loc)
		}
		if e.Count(t, `SELECT count(*) FROM sandbox_checkouts`) != before {
			t.Fatal("a paid hold got a new checkout")
		}
	})

	t.Run("delay: nothing before 5 s, booked after", func(t *testing.T) {
		t.Parallel()
		e, s, holdID := paidWith(t, sandbox.BehaveDelay)
		e.sbClock.Advance(sandbox.WebhookDelay - time.Millisecond)
		if n := e.deliver(t); n != 0 {
			t.Fatal("the delayed webhook went out early")
		}
		if state, _ := s.status(t, holdID); state != "confirming" {
			t.Fatalf("status = %s during the delay", state)
		}
		e.sbClock.Advance(time.Millisecond)
		if n := e.deliver(t); n != 1 {
			t.Fatalf("delivered %d after the delay", n)
		}
		if state, _ := s.status(t, holdID); state != "booked" {
			t.Fatalf("status = %s after the delay", state)
		}
	})

	t.Run("reorder: a stale failed event after succeeded changes nothing", func(t *testing.T) {
		t.Parallel()
		e, _, holdID := paidWith(t, sandbox.BehaveReorder)
		e.sbClock.Advance(time.Minute)
		if n := e.deliver(t); n != 2 {
			t.Fatalf("delivered %d, want 2", n)
		}
		if e.holdState(t, holdID) != "CONFIRMED" || e.Count(t, `SELECT count(*) FROM payments`) != 1 {
			t.Fatal("the late failed event undid or doubled the booking")
		}
	})

	t.Run("two payments: one books, the other is refunded, and the page says so", func(t *testing.T) {
		t.Parallel()
		e, s, holdID := paidWith(t, sandbox.BehaveTwoPayments)
		if n := e.deliver(t); n != 2 {
			t.Fatalf("delivered %d, want 2", n)
		}
		if e.Count(t, `SELECT count(*) FROM bookings`) != 1 ||
			e.Count(t, `SELECT count(*) FROM payments WHERE outcome = 'REFUND_REQUIRED' AND reason = 'already_confirmed'`) != 1 {
			t.Fatal("want one booking and one refunded payment")
		}
		state, p := s.status(t, holdID)
		if state != "booked" || !strings.Contains(p.Text("#payment-status"), "The extra ₹250 is being refunded") {
			t.Fatalf("status = %s: %q", state, p.Text("#payment-status"))
		}
		rw := &refunds.Worker{Store: e.Store, Provider: e.sandbox, Log: slog.New(slog.DiscardHandler)}
		if n := pgtest.WorkJobs(t, e.Store, rw); n != 1 || e.Count(t, `SELECT count(*) FROM sandbox_refunds`) != 1 {
			t.Fatalf("refunded %d through the sandbox, want 1", n)
		}
	})

	t.Run("the app answers 503: the webhook is retried, then books", func(t *testing.T) {
		t.Parallel()
		e, s, holdID := paidWith(t, sandbox.BehaveNormal)
		e.failWebhooks.Store(2)
		for attempt := 1; attempt <= 2; attempt++ {
			if n := e.deliver(t); n != 0 {
				t.Fatalf("attempt %d: delivered while the app answers 503", attempt)
			}
			if got := e.Count(t, `SELECT last_status FROM sandbox_webhooks`); got != 503 {
				t.Fatalf("last_status = %d", got)
			}
			e.sbClock.Advance(sandbox.WebhookBackoff(attempt))
		}
		if state, _ := s.status(t, holdID); state != "confirming" {
			t.Fatalf("status = %s while the webhook is retried", state)
		}
		if n := e.deliver(t); n != 1 || e.holdState(t, holdID) != "CONFIRMED" {
			t.Fatalf("third attempt delivered %d", n)
		}
	})
}

func TestDeclineAndTryAgain(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	s := e.shopper(t, true)
	holdID := s.MustHold(t, "C1").Str("hold_id")
	path := s.startCheckout(t, holdID)

	back := wantRedirect(t, s.Submit(t, path+"/decline", nil))
	if back != e.Srv.URL+returnPath(holdID) {
		t.Fatalf("decline sent the browser to %q", back)
	}
	e.deliver(t) // the failed webhook: IGNORED by the app

	t.Run("nothing is recorded in payments", func(t *testing.T) {
		if n := e.Count(t, `SELECT count(*) FROM payments`); n != 0 {
			t.Fatalf("%d payments after a decline", n)
		}
		if e.Count(t, `SELECT count(*) FROM sandbox_webhooks WHERE status = 'DELIVERED'`) != 1 || e.holdState(t, holdID) != "HELD" {
			t.Fatal("the failed webhook was not delivered, or changed the hold")
		}
	})

	t.Run("the return page says declined and offers to pay again", func(t *testing.T) {
		p := s.page(t, returnPath(holdID))
		wantPage(t, p, http.StatusOK)
		if st := p.Doc.Find("#payment-status").AttrOr("data-state", ""); st != "declined" || !strings.Contains(p.Text("#payment-status"), "Payment declined") {
			t.Fatalf("status = %s %q", st, p.Text("#payment-status"))
		}
		form := p.Doc.Find(`#payment-status form[action="/holds/` + holdID + `/pay"]`)
		if form.Length() != 1 || form.Find(`input[name="_csrf"]`).AttrOr("value", "") != s.csrf(t) {
			t.Fatalf("no try-again form with a CSRF token:\n%s", p.Body)
		}
		if p.Doc.Find("[hx-trigger]").Length() != 0 {
			t.Fatal("a declined status still polls")
		}
	})

	t.Run("trying again opens a new checkout that can be paid", func(t *testing.T) {
		again := s.startCheckout(t, holdID)
		if again == path {
			t.Fatal("the declined checkout was offered again")
		}
		if state, _ := s.status(t, holdID); state != "confirming" {
			t.Fatalf("status with a new open checkout = %s", state)
		}
		s.payAt(t, again, sandbox.BehaveNormal)
		e.deliver(t)
		if state, _ := s.status(t, holdID); state != "booked" {
			t.Fatalf("status after paying = %s", state)
		}
	})
}

func TestPayButton(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t, webtest.WithClock)
	owner := e.shopper(t, true)
	other := e.shopper(t, true)
	holdID := owner.MustHold(t, "D1").Str("hold_id")

	t.Run("htmx is told to navigate", func(t *testing.T) {
		p := owner.do(t, "POST", "/holds/"+holdID+"/pay", url.Values{"_csrf": {owner.csrf(t)}}, map[string]string{"HX-Request": "true"})
		if p.Status >= 300 || !checkoutURLPattern.MatchString(p.Header.Get("HX-Redirect")) {
			t.Fatalf("htmx pay = %d HX-Redirect %q", p.Status, p.Header.Get("HX-Redirect"))
		}
	})

	t.Run("another user's or an unknown hold is 404 and opens nothing", func(t *testing.T) {
		before := e.Count(t, `SELECT count(*) FROM sandbox_checkouts`)
		for _, id := range []string{holdID, "6f1c1d2e-0000-4000-8000-000000000001", "garbage"} {
			p := other.Submit(t, "/holds/"+id+"/pay", nil)
			wantPage(t, p, http.StatusNotFound)
			if !strings.Contains(p.Header.Get("Content-Type"), "text/html") {
				t.Errorf("404 of a page form is %s", p.Header.Get("Content-Type"))
			}
		}
		if e.Count(t, `SELECT count(*) FROM sandbox_checkouts`) != before {
			t.Fatal("a checkout was opened for someone else's hold")
		}
	})

	t.Run("a guest is sent to log in", func(t *testing.T) {
		guest := e.shopper(t, false)
		loc := wantRedirect(t, guest.Submit(t, "/holds/"+holdID+"/pay", nil))
		if !strings.HasPrefix(loc, "/login") {
			t.Fatalf("guest pay redirected to %q", loc)
		}
	})

	t.Run("without the CSRF token nothing happens", func(t *testing.T) {
		wantPage(t, owner.do(t, "POST", "/holds/"+holdID+"/pay", url.Values{}, nil), http.StatusForbidden)
	})

	t.Run("a lapsed hold is a friendly 409", func(t *testing.T) {
		e.Clock.Advance(webtest.HoldTTL)
		before := e.Count(t, `SELECT count(*) FROM sandbox_checkouts`)
		p := owner.Submit(t, "/holds/"+holdID+"/pay", nil)
		wantPage(t, p, http.StatusConflict)
		if !strings.Contains(p.Text("main"), "no longer active") {
			t.Fatalf("409 page says %q", p.Text("main"))
		}
		if e.Count(t, `SELECT count(*) FROM sandbox_checkouts`) != before {
			t.Fatal("a checkout was opened for a lapsed hold")
		}
	})
}

// The return page believes nothing of its query string: another user's hold,
// an unknown or a garbage id is 404, and looking changes nothing.
func TestReturnPageForgedQuery(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	owner := e.shopper(t, true)
	intruder := e.shopper(t, true)
	holdID := owner.MustHold(t, "E1").Str("hold_id")
	owner.payAt(t, owner.startCheckout(t, holdID), sandbox.BehaveNormal)
	snap := e.Snapshot(t)

	for _, q := range []string{
		"hold_id=" + holdID, // someone else's
		"hold_id=6f1c1d2e-0000-4000-8000-000000000001",
		"hold_id=garbage",
		"hold_id=" + url.QueryEscape("' OR 1=1 --"),
		"",
		"hold_id=" + holdID + "&payment_id=pay_forged&outcome=BOOKED",
	} {
		for _, path := range []string{"/checkout/return?", "/checkout/return/status?"} {
			who := intruder
			if strings.Contains(q, "payment_id=") {
				who = owner // the owner cannot forge an outcome either
			}
			p := who.page(t, path+q)
			if who == owner {
				if st := p.Doc.Find("#payment-status").AttrOr("data-state", ""); p.Status != http.StatusOK || st != "confirming" {
					t.Errorf("%s%s by the owner = %d %s, want confirming", path, q, p.Status, st)
				}
				continue
			}
			wantPage(t, p, http.StatusNotFound)
			if strings.Contains(p.Body, holdID) {
				t.Errorf("%s%s: the 404 names the hold", path, q)
			}
		}
	}
	if got := e.Snapshot(t); got != snap {
		t.Fatalf("database changed:\n%s\n%s", snap, got)
	}
	if e.holdState(t, holdID) != "HELD" {
		t.Fatal("the return page changed the hold")
	}

	t.Run("a guest is sent to log in and back", func(t *testing.T) {
		guest := e.shopper(t, false)
		loc := wantRedirect(t, guest.page(t, returnPath(holdID)))
		if loc != "/login?next="+url.QueryEscape(returnPath(holdID)) {
			t.Fatalf("guest redirected to %q", loc)
		}
	})
}

// A payment that lands after its hold lapsed books nothing: the return page
// explains and names the refund, whose failures the refund worker retries.
func TestLatePaymentRefund(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t, webtest.WithClock)
	s := e.shopper(t, true)
	h := s.MustHold(t, "F1", "F2")
	holdID := h.Str("hold_id")
	s.payAt(t, s.startCheckout(t, holdID), sandbox.BehaveNormal)

	// The hold lapses, exactly, and its payment grace ends before the
	// webhook lands.
	e.Clock.Advance(webtest.HoldTTL + booking.DefaultPaymentGrace)
	if n := e.deliver(t); n != 1 {
		t.Fatalf("delivered %d", n)
	}
	if e.holdState(t, holdID) != "EXPIRED" || e.Count(t, `SELECT count(*) FROM bookings`) != 0 {
		t.Fatal("a late payment booked the seats")
	}

	t.Run("the return page explains and names the refund", func(t *testing.T) {
		p := s.page(t, returnPath(holdID))
		wantPage(t, p, http.StatusOK)
		st := p.Doc.Find("#payment-status")
		text := p.Text("#payment-status")
		if st.AttrOr("data-state", "") != "refund_required" || !strings.Contains(text, "not booked") ||
			!strings.Contains(text, "expired") || !strings.Contains(text, "A refund of ₹500 is on its way") {
			t.Fatalf("status = %s %q", st.AttrOr("data-state", ""), text)
		}
		if p.Doc.Find("[hx-trigger]").Length() != 0 || p.Doc.Find(`a[href="/shows/`+fmt.Sprint(e.Show)+`"]`).Length() != 1 {
			t.Fatalf("want a final status with a link back to the show:\n%s", p.Body)
		}
	})

	rw := &refunds.Worker{Store: e.Store, Provider: e.sandbox, Log: slog.New(slog.DiscardHandler)}
	refundStatus := func() string {
		return pgtest.Scalar[string](t, e.Store.Pool(), `SELECT status FROM refunds`)
	}

	op := e.operator(t)
	t.Run("fail refunds: the worker records FAILED", func(t *testing.T) {
		wantRedirect(t, op.Submit(t, "/sandbox/settings", url.Values{"fail_refunds": {"on"}}))
		if p := op.page(t, "/sandbox"); p.Doc.Find(`[data-refunds="failing"]`).Length() != 1 {
			t.Fatalf("dashboard does not say refunds fail:\n%s", p.Body)
		}
		if n := pgtest.WorkJobs(t, e.Store, rw); n != 0 || refundStatus() != "FAILED" {
			t.Fatalf("refunded %d, status %s; want FAILED", n, refundStatus())
		}
		if !strings.Contains(pgtest.Scalar[string](t, e.Store.Pool(), `SELECT last_error FROM refunds`), "set to fail") {
			t.Fatal("the refund's last error does not say why")
		}
		if state, p := s.status(t, holdID); state != "refund_required" || !strings.Contains(p.Text("#payment-status"), "on its way") {
			t.Fatalf("status while the refund is retried = %s %q", state, p.Text("#payment-status"))
		}
	})

	t.Run("cleared: the retry succeeds", func(t *testing.T) {
		wantRedirect(t, op.Submit(t, "/sandbox/settings", url.Values{"fail_refunds": {"off"}}))
		if n := pgtest.WorkJobs(t, e.Store, rw); n != 0 {
			t.Fatalf("retried %d refunds before the retry's wait", n)
		}
		e.Clock.Advance(time.Minute) // past the first retry's wait (River's: about a second)
		if n := pgtest.WorkJobs(t, e.Store, rw); n != 1 || refundStatus() != "SUCCEEDED" {
			t.Fatalf("refunded %d, status %s; want SUCCEEDED", n, refundStatus())
		}
		if e.Count(t, `SELECT count(*) FROM sandbox_refunds WHERE amount_minor = 50000`) != 1 {
			t.Fatal("the sandbox did not record the refund")
		}
		if _, p := s.status(t, holdID); !strings.Contains(p.Text("#payment-status"), "has been refunded") {
			t.Fatalf("status after the refund = %q", p.Text("#payment-status"))
		}
	})

	t.Run("a bad setting is 422", func(t *testing.T) {
		wantPage(t, op.Submit(t, "/sandbox/settings", url.Values{"fail_refunds": {"maybe"}}), http.StatusUnprocessableEntity)
	})
}

// The outcomes of the return page that need no sandbox: a hold never paid,
// and one whose payment reached the app straight from the webhook.
func TestReturnPageWithoutCheckout(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t, webtest.WithClock)
	s := e.shopper(t, true)
	h := s.MustHold(t, "G1")
	holdID := h.Str("hold_id")

	if state, p := s.status(t, holdID); state != "not_paid" || p.Doc.Find(`form[action="/holds/`+holdID+`/pay"]`).Length() != 1 {
		t.Fatalf("unpaid live hold: status %s, want not_paid with a pay button", state)
	}
	s.startCheckout(t, holdID)
	if state, _ := s.status(t, holdID); state != "confirming" {
		t.Fatalf("open checkout, live hold: status %s", state)
	}
	e.Clock.Advance(webtest.HoldTTL)
	if state, p := s.status(t, holdID); state != "not_paid" || p.Doc.Find("form").Length() != 0 {
		t.Fatalf("open checkout, lapsed hold: status %s, want not_paid without a pay button", state)
	}
	if _, err := e.Store.ConfirmPayment(context.Background(), booking.Payment{
		ID: "pay_direct", HoldRef: holdID, AmountMinor: int64(h.Num("amount_minor")), Currency: "INR",
	}); err != nil {
		t.Fatal(err)
	}
	if state, _ := s.status(t, holdID); state != "refund_required" {
		t.Fatalf("after a late payment: status %s", state)
	}
}

func TestSandboxDashboard(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	s := e.shopper(t, true)
	holdID := s.MustHold(t, "H1").Str("hold_id")
	path := s.startCheckout(t, holdID)
	s.payAt(t, path, sandbox.BehaveDuplicate)
	e.deliver(t)

	p := e.operator(t).page(t, "/sandbox")
	wantPage(t, p, http.StatusOK)
	if n := p.Doc.Find(`tr[data-delivery="DELIVERED"]`).Length(); n != 2 {
		t.Fatalf("dashboard lists %d delivered webhooks, want 2", n)
	}
	if p.Doc.Find(`[data-refunds="working"]`).Length() != 1 {
		t.Fatal("dashboard does not say refunds work")
	}
	done := s.page(t, path)
	if n := done.Doc.Find(`tr[data-delivery]`).Length(); n != 2 {
		t.Fatalf("the paid checkout lists %d webhooks, want 2", n)
	}
	if href := done.Doc.Find(`[data-outcome="paid"] a`).AttrOr("href", ""); href != e.Srv.URL+returnPath(holdID) {
		t.Fatalf("return link = %q", href)
	}
}

// The return page names the seats in seat order (B9 before B10), not in the
// order they are stored (sorted as text).
func TestReturnPageListsSeatsInSeatOrder(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	s := e.shopper(t, true)
	holdID := s.MustHold(t, "B10", "B9").Str("hold_id")
	p := s.page(t, returnPath(holdID))
	wantPage(t, p, http.StatusOK)
	if body := p.Text("main"); !strings.Contains(body, "B9, B10") {
		t.Fatalf("the return page does not list B9, B10 in order: %q", body)
	}

	// It names the show the seats are for: the movie, when in the
	// theatre's time, where; and says so once the theatre cancels it.
	var movie, theatre, screen, tz string
	var starts time.Time
	if err := e.Store.Pool().QueryRow(t.Context(), `
		SELECT m.title, t.name, sc.name, t.timezone, s.starts_at
		  FROM shows s JOIN movies m ON m.id = s.movie_id JOIN screens sc ON sc.id = s.screen_id JOIN theatres t ON t.id = sc.theatre_id
		 WHERE s.id = $1`, e.Show).Scan(&movie, &theatre, &screen, &tz, &starts); err != nil {
		t.Fatal(err)
	}
	if got, want := p.Text("[data-return-show]"), movie; got != want {
		t.Fatalf("the return page names the show %q, want %q", got, want)
	}
	if body, want := p.Text("main"), format.When(starts, tz)+" · "+theatre+" · "+screen; !strings.Contains(body, want) {
		t.Fatalf("the return page does not say %q: %q", want, body)
	}
	if p.Doc.Find("#payment-status [data-return-show]").Length() != 0 {
		t.Fatal("the polled status repeats the show")
	}
	if _, err := e.Store.CancelShow(t.Context(), e.Show, audit.Entry{ActorID: pgtest.User(t, e.Store), TheatreID: e.Venue.TheatreID,
		Action: "show.cancel", Object: fmt.Sprintf("show %d", e.Show)}); err != nil {
		t.Fatal(err)
	}
	cancelled := s.page(t, returnPath(holdID))
	wantPage(t, cancelled, http.StatusOK)
	if got := cancelled.Text("[data-return-show]"); got != movie+" (cancelled by the theatre)" {
		t.Fatalf("the return page of a cancelled show names it %q", got)
	}
}

// The sandbox page counts down to the hold's deadline and, from the
// deadline on, refuses the money: a plain message, the way back to the
// Show, nothing charged.
func TestSandboxRefusesPaymentOnceTheHoldExpired(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	s := e.shopper(t, true)
	holdID := s.MustHold(t, "A5").Str("hold_id")
	path := s.startCheckout(t, holdID)
	expires := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT expires_at FROM holds WHERE id = $1`, holdID)

	e.sbClock.Set(expires.Add(-90 * time.Second))
	p := s.page(t, path)
	wantPage(t, p, http.StatusOK)
	cd := p.Doc.Find("[data-sandbox-countdown]")
	if got := p.Text("[data-countdown-display]"); cd.Length() != 1 || got != "1:30" {
		t.Fatalf("countdown shows %q, want 1:30", got)
	}
	if at, _ := time.Parse(time.RFC3339Nano, cd.AttrOr("data-expires-at", "")); !at.Equal(expires) {
		t.Fatalf("countdown counts to %q, want the hold's deadline %v", cd.AttrOr("data-expires-at", ""), expires)
	}
	if p.Doc.Find(`link[rel="icon"]`).Length() != 1 {
		t.Fatal("the sandbox page has no favicon")
	}

	e.sbClock.Set(expires)
	t.Run("Pay at the deadline is refused, and nothing is charged", func(t *testing.T) {
		p := s.Submit(t, path+"/pay", url.Values{"behaviour": {"normal"}})
		wantPage(t, p, http.StatusConflict)
		if text := p.Text("[data-outcome=expired]"); !strings.Contains(text, "The time to pay has run out") || !strings.Contains(text, "Nothing was charged") {
			t.Fatalf("refusal says %q", text)
		}
		if back := p.Doc.Find("a[data-back-link]").AttrOr("href", ""); back != e.Srv.URL+fmt.Sprintf("/shows/%d", e.Show) {
			t.Fatalf("the way back leads to %q, want the show", back)
		}
		if p.Doc.Find(`form[action$="/pay"]`).Length() != 0 {
			t.Fatal("the refusal still offers to pay")
		}
		wantPage(t, s.Submit(t, path+"/decline", nil), http.StatusConflict)
		if n := e.Count(t, `SELECT count(*) FROM sandbox_payments`); n != 0 {
			t.Fatalf("%d payments taken after the deadline", n)
		}
	})
	t.Run("the page itself says so", func(t *testing.T) {
		p := s.page(t, path)
		wantPage(t, p, http.StatusOK)
		if p.Doc.Find("[data-outcome=expired]").Length() != 1 || p.Doc.Find("[data-sandbox-countdown]").Length() != 0 {
			t.Fatalf("an expired checkout's page:\n%s", p.Body)
		}
	})
}

// A lost webhook: after about a minute the return page stops saying
// "confirming" and explains, with a link to My bookings, and keeps asking.
func TestReturnPageExplainsALateOutcome(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t, webtest.WithClock)
	s := e.shopper(t, true)
	holdID := s.MustHold(t, "A6").Str("hold_id")
	s.payAt(t, s.startCheckout(t, holdID), sandbox.BehaveDrop)

	first := s.page(t, returnPath(holdID))
	poll := first.Doc.Find("#payment-status").AttrOr("hx-get", "")
	if st := first.Doc.Find("#payment-status").AttrOr("data-state", ""); st != "confirming" || poll == "" {
		t.Fatalf("return page state %s, polling %q", st, poll)
	}
	htmx := map[string]string{"HX-Request": "true"}
	e.Clock.Advance(58 * time.Second)
	wantPage(t, s.do(t, "GET", poll, nil, htmx), http.StatusNoContent)

	e.Clock.Advance(3 * time.Second)
	p := s.do(t, "GET", poll, nil, htmx)
	wantPage(t, p, http.StatusOK)
	st := p.Doc.Find("#payment-status")
	if st.AttrOr("data-state", "") != "delayed" || !strings.Contains(p.Text("#payment-status"), "taking longer than usual") {
		t.Fatalf("after a minute: %s %q", st.AttrOr("data-state", ""), p.Text("#payment-status"))
	}
	if p.Doc.Find(`#payment-status a[href="/bookings"]`).Length() != 1 {
		t.Fatal("the explanation has no link to My bookings")
	}
	slower, _ := url.Parse(st.AttrOr("hx-get", ""))
	if slower.Query().Get("shown") != "delayed" || slower.Query().Get("since") != webtest.MustURL(poll).Query().Get("since") || st.AttrOr("hx-trigger", "") != "every 5s" {
		t.Fatalf("the explanation polls %q (%s)", st.AttrOr("hx-get", ""), st.AttrOr("hx-trigger", ""))
	}
	wantPage(t, s.do(t, "GET", slower.String(), nil, htmx), http.StatusNoContent)

	t.Run("a garbled or future since is now", func(t *testing.T) {
		for _, since := range []string{"yesterday", strconv.FormatInt(e.Clock.Now().Add(time.Hour).Unix(), 10)} {
			p := s.page(t, "/checkout/return/status?"+url.Values{"hold_id": {holdID}, "since": {since}}.Encode())
			if state := p.Doc.Find("#payment-status").AttrOr("data-state", ""); p.Status != http.StatusOK || state != "confirming" {
				t.Errorf("since=%s: state %s, want confirming", since, state)
			}
		}
	})

	t.Run("reconciled: the page shows the outcome", func(t *testing.T) {
		e.reconcile(t)
		state, p := s.status(t, holdID)
		if state != "booked" || p.Doc.Find("a[data-booking-link]").Length() != 1 {
			t.Fatalf("after reconciliation: %s %q", state, p.Text("#payment-status"))
		}
		wantPage(t, s.do(t, "GET", slower.String(), nil, htmx), http.StatusOK)
	})
}

// reconcile makes the payment checks due by the store's clock, as the
// reconciliation worker does (asking after the default delay), and returns
// how many asked the provider.
func (e *payEnv) reconcile(t *testing.T) int {
	t.Helper()
	asked := &askCounter{Provider: e.sandbox}
	pgtest.WorkJobs(t, e.Store, &reconcile.Worker{Store: e.Store, Provider: asked, Receiver: &boxoffice.Receiver{Store: e.Store}})
	return int(asked.n.Load())
}

// askCounter is a provider whose questions are counted.
type askCounter struct {
	reconcile.Provider
	n atomic.Int32
}

func (c *askCounter) PaymentStatus(ctx context.Context, holdID string) (payment.Report, error) {
	c.n.Add(1)
	return c.Provider.PaymentStatus(ctx, holdID)
}

// A webhook arriving after reconciliation processed its payment (or
// before) changes nothing: one outcome per payment, invariants clean.
func TestReconciliationAndALateWebhook(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		lapse    bool   // the hold lapses before either report
		webhook1 bool   // the webhook arrives first
		want     string // the one stored outcome
	}{
		{"reconciled, then the webhook: booked once", false, false, "BOOKED"},
		{"the webhook, then reconciled: booked once", false, true, "BOOKED"},
		{"reconciled after expiry, then the webhook: refunded once", true, false, "REFUND_REQUIRED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newPayEnv(t, webtest.WithClock)
			s := e.shopper(t, true)
			holdID := s.MustHold(t, "A7").Str("hold_id")
			s.payAt(t, s.startCheckout(t, holdID), sandbox.BehaveDelay) // a webhook that comes late
			webhook := func() {
				e.sbClock.Advance(sandbox.WebhookDelay)
				if n := e.deliver(t); n != 1 {
					t.Fatalf("the webhook was not delivered (%d)", n)
				}
			}
			if tc.lapse {
				e.Clock.Advance(webtest.HoldTTL + booking.DefaultPaymentGrace) // and its payment grace
			}
			if tc.webhook1 {
				webhook()
				e.Clock.Advance(webtest.HoldTTL + reconcile.DefaultSettle) // the check after the deadline asks anyway
			} else {
				e.Clock.Advance(reconcile.DefaultDelay)
			}
			if n := e.reconcile(t); n != 1 {
				t.Fatalf("the reconciler asked %d times, want 1", n)
			}
			if !tc.webhook1 {
				webhook()
			}
			if got := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT string_agg(outcome, ',') FROM payments`); got != tc.want {
				t.Fatalf("stored outcomes %s, want %s", got, tc.want)
			}
			bookings, refunds := e.Count(t, `SELECT count(*) FROM bookings`), e.Count(t, `SELECT count(*) FROM refunds`)
			if (tc.want == "BOOKED") != (bookings == 1 && refunds == 0) || (tc.want != "BOOKED") != (bookings == 0 && refunds == 1) {
				t.Fatalf("%d bookings and %d refunds for one payment stored %s", bookings, refunds, tc.want)
			}
			if got := e.Count(t, `SELECT last_status FROM sandbox_webhooks`); got != 200 {
				t.Fatalf("the late webhook was answered %d", got)
			}
		})
	}
}

// Sandbox Pay's dashboard lists every shopper's payments, and its switch
// makes refunds fail for everyone: for platform admins only. A hosted
// checkout stays open to the shopper it was opened for.
func TestSandboxDashboardAccess(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	failing := func() bool {
		return pgtest.Scalar[bool](t, e.Store.Pool(), `SELECT fail_refunds FROM sandbox_settings`)
	}
	turnOn := url.Values{"fail_refunds": {"on"}}

	t.Run("a guest is sent to log in", func(t *testing.T) {
		g := e.shopper(t, false)
		if loc := wantRedirect(t, g.page(t, "/sandbox")); loc != "/login?next=%2Fsandbox" {
			t.Fatalf("GET /sandbox sent a guest to %q", loc)
		}
		if loc := wantRedirect(t, g.Submit(t, "/sandbox/settings", turnOn)); !strings.HasPrefix(loc, "/login") {
			t.Fatalf("POST /sandbox/settings sent a guest to %q", loc)
		}
		if failing() {
			t.Fatal("a guest made refunds fail")
		}
	})
	for _, who := range []struct {
		name string
		c    func() *shopper
	}{
		{"a moviegoer", func() *shopper { return e.shopper(t, true) }},
		{"a theatre admin", func() *shopper { return e.browse(e.Admin(t, auth.RoleTheatreAdmin, e.Venue.TheatreID)) }},
	} {
		t.Run(who.name+" gets 403", func(t *testing.T) {
			s := who.c()
			p := s.page(t, "/sandbox")
			wantPage(t, p, http.StatusForbidden)
			if p.Doc.Find("tr[data-delivery]").Length() != 0 || p.Doc.Find(`form[action="/sandbox/settings"]`).Length() != 0 {
				t.Fatalf("the 403 shows the dashboard:\n%s", p.Body)
			}
			wantPage(t, s.Submit(t, "/sandbox/settings", turnOn), http.StatusForbidden)
			if failing() {
				t.Fatalf("%s made refunds fail", who.name)
			}
		})
	}
	t.Run("a platform admin sees the dashboard and flips the switch", func(t *testing.T) {
		op := e.operator(t)
		p := op.page(t, "/sandbox")
		wantPage(t, p, http.StatusOK)
		if p.Doc.Find(`[data-refunds="working"]`).Length() != 1 {
			t.Fatalf("dashboard does not say refunds work:\n%s", p.Body)
		}
		wantRedirect(t, op.Submit(t, "/sandbox/settings", turnOn))
		if !failing() {
			t.Fatal("the platform admin's switch did not take")
		}
		wantRedirect(t, op.Submit(t, "/sandbox/settings", url.Values{"fail_refunds": {"off"}}))
		if failing() {
			t.Fatal("refunds still fail")
		}
	})
	t.Run("the shopper still opens and pays their checkout", func(t *testing.T) {
		s := e.shopper(t, true)
		path := s.startCheckout(t, s.MustHold(t, "J1").Str("hold_id"))
		wantPage(t, s.page(t, path), http.StatusOK)
		s.payAt(t, path, sandbox.BehaveNormal)
	})
}

// After the deadline, in the hold's payment grace, the show page offers no
// Pay button and says a payment made in time is being confirmed, with the
// way to the return page; after the grace the seats can be picked again.
// Pay pressed again from a page left open is refused like any lapsed hold.
func TestShowPageInThePaymentGrace(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t, webtest.WithClock)
	s := e.shopper(t, true)
	holdID := s.MustHold(t, "H1").Str("hold_id")
	path := s.startCheckout(t, holdID)
	e.Clock.Advance(webtest.HoldTTL)

	p := s.page(t, e.ShowPath())
	wantPage(t, p, http.StatusOK)
	if p.Doc.Find(`form[action="/holds/`+holdID+`/pay"]`).Length() != 0 || p.Doc.Find("[data-hold-form]").Length() != 0 {
		t.Fatalf("the show page in the grace offers to pay or to hold:\n%s", p.Body)
	}
	if text := p.Text("#booking"); !strings.Contains(text, "Waiting for your payment") || !strings.Contains(text, "Your time to pay has run out") {
		t.Fatalf("the show page in the grace says %q", text)
	}
	if p.Doc.Find(`#booking a[href$="`+returnPath(holdID)+`"]`).Length() != 1 {
		t.Fatal("no way to the return page")
	}
	wantPage(t, s.Submit(t, "/holds/"+holdID+"/pay", nil), http.StatusConflict)
	if n := e.Count(t, `SELECT count(*) FROM sandbox_checkouts`); n != 1 || !checkoutURLPattern.MatchString(path) {
		t.Fatalf("%d checkouts after Pay in the grace, want the one", n)
	}

	e.Clock.Advance(booking.DefaultPaymentGrace)
	p = s.page(t, e.ShowPath())
	if p.Doc.Find("[data-hold-form]").Length() != 1 || strings.Contains(p.Text("#booking"), "Waiting for your payment") {
		t.Fatalf("after the grace the seats cannot be picked again:\n%s", p.Text("#booking"))
	}
}
