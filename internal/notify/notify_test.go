package notify_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/mail"
	"github.com/marquee-tickets/marquee/internal/mail/mailtest"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/notify"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

var site = mail.Site{
	PublicURL: "https://tickets.example.com",
	From:      netmail.Address{Address: "tickets@example.com"},
	Support:   "help@example.com",
}

// worker sends through the test's SMTP server.
func worker(t *testing.T, s *postgres.Store, srv *mailtest.Server) *notify.Worker {
	t.Helper()
	sender, err := mail.ParseSMTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return &notify.Worker{Store: s, Sender: sender, Site: site}
}

// book holds seats of show for user and pays for them with payment id pay.
func book(t *testing.T, s *postgres.Store, user string, show int64, seats []string, pay string) booking.Confirmation {
	t.Helper()
	ctx := context.Background()
	res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: seats, TTL: 5 * time.Minute, Key: pay}, 100)
	if err != nil {
		t.Fatal(err)
	}
	h := res.Hold
	c, err := s.ConfirmPayment(ctx, booking.Payment{ID: pay, HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency})
	if err != nil || c.Outcome != booking.OutcomeBooked {
		t.Fatalf("confirm %s = %+v, %v", pay, c, err)
	}
	return c
}

func email(t *testing.T, s *postgres.Store, user string) string {
	return pgtest.Scalar[string](t, s.Pool(), `SELECT email FROM users WHERE id = $1`, user)
}

// TestTicketMail books a seat, its webhook delivered twice, and checks the
// one e-mail the SMTP server receives: recipient, sender, subject, the
// plain text, the HTML with the QR code inline, and the calendar file.
func TestTicketMail(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	clock := pgtest.NewClock(time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC))
	s.Clock = clock.Now
	v := pgtest.NewVenue(t, s)
	pgtest.Exec(t, s.Pool(), `UPDATE theatres SET address = '1 Marine Drive, Mumbai' WHERE id = $1`, v.TheatreID)
	starts := time.Date(2026, 12, 9, 15, 30, 0, 0, time.UTC) // 21:00 in Kolkata
	show := pgtest.NewShow(t, s, v, 3, 4, starts)
	user := pgtest.User(t, s)
	c := book(t, s, user, show, []string{"B2", "B3"}, "pay-1")
	// The provider delivers the webhook again: the booking stands, and no
	// second mail is owed.
	if again, err := s.ConfirmPayment(ctx, booking.Payment{ID: "pay-1", HoldRef: c.HoldID,
		AmountMinor: pgtest.Scalar[int64](t, s.Pool(), `SELECT amount_minor FROM holds WHERE id = $1`, c.HoldID),
		Currency:    pgtest.Scalar[string](t, s.Pool(), `SELECT currency FROM holds WHERE id = $1`, c.HoldID)}); err != nil || again.BookingID != c.BookingID {
		t.Fatalf("webhook again = %+v, %v", again, err)
	}
	if n := pgtest.Scalar[int64](t, s.Pool(), `SELECT count(*) FROM mails`); n != 1 {
		t.Fatalf("%d mails queued, want 1", n)
	}

	srv := mailtest.Start(t)
	w := worker(t, s, srv)
	w.Counts = metrics.New(prometheus.NewRegistry())
	if n := pgtest.WorkJobs(t, s, w); n != 1 {
		t.Fatalf("worked %d mail jobs, want 1", n)
	}
	if n := pgtest.WorkJobs(t, s, w); n != 0 {
		t.Fatalf("worked %d mail jobs again, want 0", n)
	}
	if sent := testutil.ToFloat64(w.Counts.Mails.WithLabelValues("ticket", "sent")); sent != 1 {
		t.Errorf("marquee_mails_total{kind=ticket,outcome=sent} = %v, want 1", sent)
	}
	got := srv.Received()
	if len(got) != 1 {
		t.Fatalf("received %d mails, want 1", len(got))
	}
	to := email(t, s, user)
	if len(got[0].To) != 1 || got[0].To[0] != to || got[0].From != "tickets@example.com" {
		t.Fatalf("envelope from %q to %v, want tickets@example.com to %s", got[0].From, got[0].To, to)
	}
	m := got[0].Message(t)
	if from := m.Header.Get("From"); !strings.Contains(from, "Test Cinema") || !strings.Contains(from, "<tickets@example.com>") {
		t.Errorf("From = %q, want the theatre's name at tickets@example.com", from)
	}
	if m.Subject != "Your tickets: The Last Algorithm, Wed 9 Dec 2026, 21:00" {
		t.Errorf("subject = %q", m.Subject)
	}
	if m.Header.Get("Auto-Submitted") != "auto-generated" || m.Header.Get("Message-Id") == "" || m.Header.Get("Reply-To") != "<help@example.com>" {
		t.Errorf("headers: Auto-Submitted %q, Message-Id %q, Reply-To %q", m.Header.Get("Auto-Submitted"), m.Header.Get("Message-Id"), m.Header.Get("Reply-To"))
	}
	code := pgtest.Scalar[string](t, s.Pool(), `SELECT code FROM bookings WHERE id = $1`, c.BookingID)
	for _, want := range []string{"Ticket code: " + code, "Seats: B2, B3", "Wed 9 Dec 2026, 21:00 IST", "1 Marine Drive, Mumbai",
		"https://tickets.example.com/bookings/" + c.BookingID, "Full refund until"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("plain text lacks %q:\n%s", want, m.Text)
		}
	}
	// The QR code: a PNG part the HTML shows by its content id.
	qr, ok := m.Part("qr-" + code + "@marquee")
	if !ok || qr.Type != "image/png" {
		t.Fatalf("no inline QR part; parts: %+v", m.Parts)
	}
	if _, err := png.Decode(bytes.NewReader(qr.Data)); err != nil {
		t.Errorf("QR part is no PNG: %v", err)
	}
	if !strings.Contains(m.HTML, `src="cid:qr-`+code+`@marquee"`) || !strings.Contains(m.HTML, code) {
		t.Errorf("HTML does not show the QR code and the ticket code")
	}
	if strings.Contains(m.HTML, "<script") || strings.Contains(m.HTML, "http://") {
		t.Errorf("HTML has a script or an insecure link")
	}
	// The calendar file.
	var cal *ics.Calendar
	for _, p := range m.Parts {
		if p.Type == "text/calendar" {
			var err error
			if cal, err = ics.ParseCalendar(bytes.NewReader(p.Data)); err != nil {
				t.Fatalf("calendar does not parse: %v\n%s", err, p.Data)
			}
		}
	}
	if cal == nil || len(cal.Events()) != 1 {
		t.Fatalf("want one calendar event, parts: %+v", m.Parts)
	}
	ev := cal.Events()[0]
	if at, err := ev.GetStartAt(); err != nil || !at.Equal(starts) {
		t.Errorf("event starts %v (%v), want %v", at, err, starts)
	}
	if end, err := ev.GetEndAt(); err != nil || !end.After(starts) {
		t.Errorf("event ends %v (%v)", end, err)
	}
	if uid := ev.Id(); !strings.Contains(uid, c.BookingID) {
		t.Errorf("event UID %q does not name the booking", uid)
	}
	if status := pgtest.Scalar[string](t, s.Pool(), `SELECT status FROM mails`); status != "SENT" {
		t.Errorf("mail is %s, want SENT", status)
	}
}

// TestTicketMailOnceWithTwoInstances delivers one payment's webhook twice
// at once while two instances' job runners work the mail queue: one mail.
func TestTicketMailOnceWithTwoInstances(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 8)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 4, time.Now().Add(48*time.Hour))
	user := pgtest.User(t, s)
	srv := mailtest.Start(t)
	// Each instance's runner has a pool of its own, counted against the
	// test server's connections like the store's.
	const runnerConns = 4
	pgtest.Reserve(t, 2*runnerConns)
	for range 2 {
		cfg, err := pgxpool.ParseConfig(s.Pool().Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxConns = runnerConns
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		workers := river.NewWorkers()
		river.AddWorker(workers, worker(t, s, srv))
		stop, err := jobs.Start(ctx, pool, jobs.Config{Workers: workers, Queues: map[string]int{jobs.QueueMail: 2}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := stop(context.Background()); err != nil {
				t.Errorf("stop the runner: %v", err)
			}
		})
	}
	res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: []string{"A1"}, TTL: 5 * time.Minute, Key: "k"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	h := res.Hold
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			<-start
			if _, err := s.ConfirmPayment(ctx, booking.Payment{ID: "pay-twice", HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency}); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	srv.WaitFor(t, 1, time.Minute)
	// The job has finished by the time its mail is recorded as sent; then
	// nothing more can arrive.
	waitFor(t, time.Minute, func() bool {
		return pgtest.Scalar[int64](t, s.Pool(), `SELECT count(*) FROM river_job WHERE kind = 'mail' AND state <> 'completed'`) == 0
	})
	if got := srv.To(email(t, s, user)); len(got) != 1 || len(srv.Received()) != 1 {
		t.Fatalf("received %d mails (%d for the moviegoer), want 1", len(srv.Received()), len(got))
	}
}

func waitFor(t *testing.T, timeout time.Duration, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("not done within %v", timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestShowCancelledMailsEachMoviegoerOnce cancels a show of 200 moviegoers'
// bookings (one of them with two): each moviegoer gets one mail, with all
// their bookings and the full refund, however often the show is cancelled.
func TestShowCancelledMailsEachMoviegoerOnce(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 11, 20, time.Now().Add(48*time.Hour))
	seats := pgtest.Scalar[[]string](t, s.Pool(), `SELECT array_agg(seat_id ORDER BY seat_id) FROM show_seats WHERE show_id = $1`, show)[:201]
	twice := pgtest.User(t, s)
	users := map[string]bool{}
	for i, seat := range seats {
		u := twice
		if i >= 2 {
			u = pgtest.User(t, s)
		}
		users[u] = true
		book(t, s, u, show, []string{seat}, fmt.Sprintf("pay-%d", i))
	}
	srv := mailtest.Start(t)
	w := worker(t, s, srv)
	if n := pgtest.WorkJobs(t, s, w); n != len(seats) {
		t.Fatalf("sent %d tickets, want %d", n, len(seats))
	}
	e := audit.Entry{ActorID: pgtest.User(t, s), TheatreID: v.TheatreID, Action: "show.cancel", Object: fmt.Sprintf("show %d", show)}
	for range 2 { // cancelling again changes nothing and owes nothing more
		if _, err := s.CancelShow(ctx, show, e); err != nil {
			t.Fatal(err)
		}
	}
	pgtest.WorkJobs(t, s, w)
	cancelled := 0
	seen := map[string]int{}
	for _, r := range srv.Received() {
		m := r.Message(t)
		if !strings.HasPrefix(m.Subject, "Cancelled by the theatre: ") {
			continue
		}
		cancelled++
		seen[r.To[0]]++
		if r.To[0] == email(t, s, twice) && strings.Count(m.Text, "Seats: ") != 2 {
			t.Errorf("the moviegoer with two bookings got:\n%s", m.Text)
		}
		if !strings.Contains(m.Text, "refunded in full") {
			t.Errorf("no word of the full refund:\n%s", m.Text)
		}
	}
	if len(users) != 200 || cancelled != len(users) || len(seen) != len(users) {
		t.Fatalf("%d cancellation mails to %d people, want one to each of %d", cancelled, len(seen), len(users))
	}
	for to, n := range seen {
		if n != 1 {
			t.Errorf("%s got %d cancellation mails", to, n)
		}
	}
}

// TestRefusingServerRetriesThenFails has the SMTP server refuse every
// attempt: the mail is retried with River's growing waits, never before
// the wait is over, and after its last attempt it is FAILED with the
// server's answer, for staff to see on the booking.
func TestRefusingServerRetriesThenFails(t *testing.T) {
	s := pgtest.NewStore(t, 4)
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 2, clock.Now().Add(72*time.Hour))
	c := book(t, s, pgtest.User(t, s), show, []string{"A1"}, "pay-refused")
	srv := mailtest.Start(t)
	srv.Refuse(-1)
	w := worker(t, s, srv)
	w.Counts = metrics.New(prometheus.NewRegistry())

	pgtest.WorkJobs(t, s, w)
	if srv.Refused() != 1 {
		t.Fatalf("refused %d times, want 1", srv.Refused())
	}
	// Not again until River's wait is over.
	pgtest.WorkJobs(t, s, w)
	if srv.Refused() != 1 {
		t.Fatalf("retried before the wait: refused %d times", srv.Refused())
	}
	mails, err := s.BookingMails(context.Background(), c.BookingID)
	if err != nil || len(mails) != 1 || mails[0].Status != "QUEUED" || mails[0].Attempts != 1 || !strings.Contains(mails[0].LastError, "451") {
		t.Fatalf("after one refusal: %+v, %v", mails, err)
	}
	waits := []time.Duration{}
	for attempt := 2; attempt <= jobs.MailAttempts; attempt++ {
		due := pgtest.Scalar[time.Time](t, s.Pool(), `SELECT scheduled_at FROM river_job WHERE kind = 'mail'`)
		waits = append(waits, due.Sub(clock.Now()))
		clock.Set(due)
		pgtest.WorkJobs(t, s, w)
		if srv.Refused() != attempt {
			t.Fatalf("attempt %d: refused %d times", attempt, srv.Refused())
		}
	}
	// The waits grow (River's backoff, with its jitter).
	if waits[len(waits)-1] < 10*waits[0] {
		t.Errorf("waits did not grow: %v", waits)
	}
	if state := pgtest.Scalar[string](t, s.Pool(), `SELECT state::text FROM river_job WHERE kind = 'mail'`); state != "discarded" {
		t.Errorf("job is %s after its last attempt, want discarded", state)
	}
	mails, err = s.BookingMails(context.Background(), c.BookingID)
	if err != nil || len(mails) != 1 || mails[0].Status != "FAILED" || mails[0].Attempts != jobs.MailAttempts || !strings.Contains(mails[0].LastError, "451") {
		t.Fatalf("after the last refusal: %+v, %v", mails, err)
	}
	if len(srv.Received()) != 0 {
		t.Fatalf("a refused mail arrived")
	}
	// The metrics count each attempt: all but the last failed, the last
	// gave up.
	counted := func(outcome string) int {
		return int(testutil.ToFloat64(w.Counts.Mails.WithLabelValues("ticket", outcome)))
	}
	if counted("failed") != jobs.MailAttempts-1 || counted("gave_up") != 1 || counted("sent") != 0 {
		t.Fatalf("marquee_mails_total: failed %d, gave_up %d, sent %d; want %d, 1, 0", counted("failed"), counted("gave_up"), counted("sent"), jobs.MailAttempts-1)
	}
}

// TestRefundMails follows the mails of refunds: a moviegoer's
// cancellation, its refund paid; a payment that came late; and a refund
// that keeps failing, told to the moviegoer and customer service once.
func TestRefundMails(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	s.SupportEmail = "help@example.com"
	clock := pgtest.NewClock(time.Now())
	s.Clock = clock.Now
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 4, clock.Now().Add(72*time.Hour))
	srv := mailtest.Start(t)
	w := worker(t, s, srv)
	subjects := func(to string) []string {
		var out []string
		for _, r := range srv.To(to) {
			out = append(out, r.Message(t).Subject)
		}
		return out
	}

	// Cancelled three days ahead: a full refund under the default policy.
	alice := pgtest.User(t, s)
	c := book(t, s, alice, show, []string{"A1"}, "pay-alice")
	if _, err := s.CancelBooking(ctx, alice, c.BookingID); err != nil {
		t.Fatal(err)
	}
	pgtest.WorkJobs(t, s, w)
	refundID := pgtest.Scalar[string](t, s.Pool(), `SELECT id::text FROM refunds WHERE booking_id = $1`, c.BookingID)
	if err := s.RefundSucceeded(ctx, refundID); err != nil {
		t.Fatal(err)
	}
	if err := s.RefundSucceeded(ctx, refundID); err != nil { // told twice: one mail
		t.Fatal(err)
	}
	pgtest.WorkJobs(t, s, w)
	got := subjects(email(t, s, alice))
	if len(got) != 3 || !strings.HasPrefix(got[0], "Your tickets") || !strings.HasPrefix(got[1], "Booking cancelled") || !strings.HasPrefix(got[2], "Refund paid") {
		t.Fatalf("alice got %q", got)
	}
	if m := srv.To(email(t, s, alice))[1].Message(t); !strings.Contains(m.Text, "We are refunding") {
		t.Errorf("cancellation mail does not say what is refunded:\n%s", m.Text)
	}

	// Paid after the hold ended.
	bob := pgtest.User(t, s)
	res, err := s.HoldSeats(ctx, booking.HoldRequest{UserID: bob, ShowID: show, Seats: []string{"B1"}, TTL: time.Minute, Key: "bob"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(res.Hold.ExpiresAt.Add(time.Hour))
	if cf, err := s.ConfirmPayment(ctx, booking.Payment{ID: "pay-bob", HoldRef: res.Hold.ID, AmountMinor: res.Hold.AmountMinor, Currency: res.Hold.Currency}); err != nil || cf.Outcome != booking.OutcomeRefundRequired {
		t.Fatalf("late payment = %+v, %v", cf, err)
	}
	pgtest.WorkJobs(t, s, w)
	got = subjects(email(t, s, bob))
	if len(got) != 1 || !strings.HasPrefix(got[0], "We're refunding your payment of") {
		t.Fatalf("bob got %q", got)
	}
	if m := srv.To(email(t, s, bob))[0].Message(t); !strings.Contains(m.Text, "arrived after the time to pay") {
		t.Errorf("late payment mail does not say what happened:\n%s", m.Text)
	}

	// Paid twice for one hold (two payments, each delivered twice): the
	// seats are booked once, with one ticket, and the second payment is
	// refunded with one mail that says so.
	carol := pgtest.User(t, s)
	first := book(t, s, carol, show, []string{"A2"}, "pay-carol-1")
	for range 2 {
		second, err := s.ConfirmPayment(ctx, booking.Payment{ID: "pay-carol-2", HoldRef: first.HoldID,
			AmountMinor: pgtest.Scalar[int64](t, s.Pool(), `SELECT amount_minor FROM holds WHERE id = $1`, first.HoldID),
			Currency:    pgtest.Scalar[string](t, s.Pool(), `SELECT currency FROM holds WHERE id = $1`, first.HoldID)})
		if err != nil || second.Outcome != booking.OutcomeRefundRequired {
			t.Fatalf("second payment = %+v, %v", second, err)
		}
	}
	pgtest.WorkJobs(t, s, w)
	got = subjects(email(t, s, carol))
	if len(got) != 2 || !strings.HasPrefix(got[0], "Your tickets") || !strings.HasPrefix(got[1], "We're refunding your payment of") {
		t.Fatalf("carol got %q", got)
	}
	if m := srv.To(email(t, s, carol))[1].Message(t); !strings.Contains(m.Text, "You paid twice for the same seats") || !strings.Contains(m.Text, "refunded in full") {
		t.Errorf("second payment's mail does not say what happened:\n%s", m.Text)
	}

	// A refund the provider keeps refusing.
	bobRefund := pgtest.Scalar[string](t, s.Pool(), `SELECT id::text FROM refunds WHERE payment_id = 'pay-bob'`)
	for i := range postgres.RefundFailingAfter + 2 {
		if _, err := s.StartRefund(ctx, bobRefund); err != nil {
			t.Fatal(err)
		}
		if err := s.RefundFailed(ctx, bobRefund, fmt.Errorf("card issuer unavailable (%d)", i)); err != nil {
			t.Fatal(err)
		}
		pgtest.WorkJobs(t, s, w)
	}
	got = subjects(email(t, s, bob))
	if len(got) != 2 || !strings.HasSuffix(got[1], "is delayed") {
		t.Fatalf("bob got %q", got)
	}
	staff := srv.To("help@example.com")
	if len(staff) != 1 {
		t.Fatalf("customer service got %d mails, want 1", len(staff))
	}
	if m := staff[0].Message(t); !strings.Contains(m.Text, bobRefund) || !strings.Contains(m.Text, "card issuer unavailable (4)") || !strings.Contains(m.Text, email(t, s, bob)) {
		t.Errorf("customer service's mail lacks the refund, its error or the moviegoer:\n%s", m.Text)
	}
}

// TestShowCancelledMailsCounterCustomers cancels a show sold online and at
// the counter: a moviegoer with two online bookings, a counter customer
// with an e-mail address who bought twice (cash, then card), one who
// bought without an address, one given complimentary seats, a moviegoer
// who also bought at the counter under their own address, and the seller,
// who booked online too. Each address gets exactly one mail, with its own
// bookings; a counter customer is told the box office pays them back, not
// the payment provider; the customer without an address gets nothing.
func TestShowCancelledMailsCounterCustomers(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 4, 6, time.Now().Add(48*time.Hour))
	seller := pgtest.User(t, s)
	sell := func(sale booking.CounterSale) booking.Booking {
		t.Helper()
		sale.ShowID, sale.Seller, sale.Key = show, seller, fmt.Sprint("counter-", sale.Seats)
		b, err := s.SellAtCounter(ctx, sale, 10)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	moviegoer := pgtest.User(t, s)
	book(t, s, moviegoer, show, []string{"A1"}, "pay-a1")
	book(t, s, moviegoer, show, []string{"A2"}, "pay-a2")
	const meera = "meera@example.com"
	sell(booking.CounterSale{Seats: []string{"B1"}, PaidBy: booking.PaidCash, Name: "Meera", Email: meera})
	sell(booking.CounterSale{Seats: []string{"B2", "B3"}, PaidBy: booking.PaidCard, Name: "Meera", Email: "Meera@Example.com"})
	silent := sell(booking.CounterSale{Seats: []string{"B4"}, PaidBy: booking.PaidCash, Name: "No address"})
	const critic = "critic@example.com"
	sell(booking.CounterSale{Seats: []string{"C1"}, PaidBy: booking.PaidComplimentary, Name: "Critic", Email: critic, Reason: "Press"})
	both := pgtest.User(t, s)
	book(t, s, both, show, []string{"C2"}, "pay-c2")
	sell(booking.CounterSale{Seats: []string{"C3"}, PaidBy: booking.PaidCash, Name: "Both ways", Email: email(t, s, both)})
	book(t, s, seller, show, []string{"A6"}, "pay-a6")

	srv := mailtest.Start(t)
	w := worker(t, s, srv)
	pgtest.WorkJobs(t, s, w) // the tickets
	e := audit.Entry{ActorID: seller, TheatreID: v.TheatreID, Action: "show.cancel", Object: fmt.Sprintf("show %d", show)}
	for range 2 { // cancelling again owes nothing more
		if _, err := s.CancelShow(ctx, show, e); err != nil {
			t.Fatal(err)
		}
	}
	pgtest.WorkJobs(t, s, w)

	got := map[string][]mailtest.Received{}
	for _, r := range srv.Received() {
		if strings.HasPrefix(r.Message(t).Subject, "Cancelled by the theatre: ") {
			got[r.To[0]] = append(got[r.To[0]], r)
		}
	}
	want := map[string]int{ // the number of bookings each mail lists
		email(t, s, moviegoer): 2, meera: 2, critic: 1, email(t, s, both): 2, email(t, s, seller): 1,
	}
	if len(got) != len(want) {
		t.Errorf("cancellation mails went to %d addresses, want %d", len(got), len(want))
	}
	text := map[string]string{}
	for to, n := range want {
		if len(got[to]) != 1 {
			t.Errorf("%s got %d cancellation mails, want 1", to, len(got[to]))
			continue
		}
		m := got[to][0].Message(t)
		text[to] = m.Text
		if c := strings.Count(m.Text, "Seats: "); c != n {
			t.Errorf("%s's mail lists %d bookings, want %d:\n%s", to, c, n, m.Text)
		}
	}
	if n := pgtest.Scalar[int64](t, s.Pool(), `SELECT count(*) FROM mails WHERE kind = 'show_cancelled' AND user_id IS NULL`); n != 2 {
		t.Errorf("%d cancellation mails without an account, want 2 (the counter customers')", n)
	}

	const byProvider = "It goes back to the card or account you paid with"
	const atCounter = "As you paid at the box office, it is paid back there, not online: bring your ticket or this e-mail to the box office of Test Cinema"
	price := pgtest.Prices["STANDARD"]
	if m := text[meera]; !strings.Contains(m, atCounter) || strings.Contains(m, byProvider) || strings.Contains(m, "You don't need to do anything") ||
		!strings.Contains(m, "Your bookings from the box office are cancelled and refunded in full: "+format.Money(3*price, "INR")) ||
		!strings.Contains(m, "Seats: B2, B3") {
		t.Errorf("the counter customer's mail:\n%s", m)
	}
	if to := got[meera][0].Message(t).Header.Get("To"); !strings.Contains(to, "Meera") {
		t.Errorf("the counter customer's mail is to %q, want her name", to)
	}
	if m := text[critic]; !strings.Contains(m, "It was free, so there is nothing to pay back") || strings.Contains(m, atCounter) ||
		strings.Contains(m, byProvider) {
		t.Errorf("the complimentary customer's mail:\n%s", m)
	}
	if m := text[email(t, s, moviegoer)]; !strings.Contains(m, "Your bookings are cancelled and refunded in full: "+format.Money(2*price, "INR")+". "+byProvider) ||
		strings.Contains(m, atCounter) {
		t.Errorf("the online moviegoer's mail:\n%s", m)
	}
	if m := text[email(t, s, both)]; !strings.Contains(m, "Your online booking is cancelled and refunded in full") || !strings.Contains(m, byProvider) ||
		!strings.Contains(m, "Your booking from the box office is cancelled and refunded in full") || !strings.Contains(m, atCounter) {
		t.Errorf("the mail of a moviegoer who also bought at the counter:\n%s", m)
	}
	if m := text[email(t, s, seller)]; !strings.Contains(m, "Seats: A6") || strings.Contains(m, "box office") {
		t.Errorf("the seller's own booking's mail lists what they sold:\n%s", m)
	}

	// Staff see each mail on the booking it is about; the sale without an
	// address has none.
	if mails, err := s.BookingMails(ctx, silent.ID); err != nil || len(mails) != 0 {
		t.Errorf("mails of the sale without an address = %+v, %v", mails, err)
	}
	meeraBooking := pgtest.Scalar[string](t, s.Pool(), `SELECT id::text FROM bookings WHERE 'B1' = ANY (seat_ids) AND show_id = $1`, show)
	mails, err := s.BookingMails(ctx, meeraBooking)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, m := range mails {
		kinds = append(kinds, string(m.Kind)+" to "+m.Recipient)
	}
	if strings.Join(kinds, ", ") != "ticket to "+meera+", show_cancelled to "+meera {
		t.Errorf("mails of the counter customer's booking: %v", kinds)
	}
}

// A booking the box office refunds is told so in the theatre's name: an
// online one refunded to the card, a counter sale at the counter. When the
// show is cancelled later, neither is mailed again: they were no longer
// the show's.
func TestStaffRefundMails(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	v := pgtest.NewVenue(t, s)
	show := pgtest.NewShow(t, s, v, 2, 4, time.Now().Add(48*time.Hour))
	desk := pgtest.User(t, s)
	moviegoer := pgtest.User(t, s)
	online := book(t, s, moviegoer, show, []string{"A1"}, "pay-staff-refund")
	const walkIn = "walk-in@example.com"
	sold, err := s.SellAtCounter(ctx, booking.CounterSale{ShowID: show, Seats: []string{"A2"}, Seller: desk, PaidBy: booking.PaidCash,
		Name: "Walk-in", Email: walkIn, Key: "staff-refund-counter"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	srv := mailtest.Start(t)
	w := worker(t, s, srv)
	pgtest.WorkJobs(t, s, w) // the tickets
	for _, id := range []string{online.BookingID, sold.ID} {
		e := audit.Entry{ActorID: desk, TheatreID: v.TheatreID, Action: "booking.refund", Object: "booking " + id}
		if _, err := s.RefundBooking(ctx, id, booking.StaffRefund{Full: true, Reason: "Asked at the desk"}, e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CancelShow(ctx, show, audit.Entry{ActorID: desk, TheatreID: v.TheatreID, Action: "show.cancel", Object: fmt.Sprintf("show %d", show)}); err != nil {
		t.Fatal(err)
	}
	pgtest.WorkJobs(t, s, w)

	texts := map[string][]string{}
	for _, r := range srv.Received() {
		m := r.Message(t)
		if !strings.HasPrefix(m.Subject, "Your tickets") {
			texts[r.To[0]] = append(texts[r.To[0]], m.Subject+"\n"+m.Text)
		}
	}
	price := format.Money(pgtest.Prices["STANDARD"], "INR")
	if got := texts[email(t, s, moviegoer)]; len(got) != 1 || !strings.HasPrefix(got[0], "Booking cancelled: ") ||
		!strings.Contains(got[0], "Test Cinema has cancelled your booking") || !strings.Contains(got[0], "We are refunding "+price) ||
		!strings.Contains(got[0], "/bookings") {
		t.Errorf("the online moviegoer's mails: %q", got)
	}
	if got := texts[walkIn]; len(got) != 1 || !strings.Contains(got[0], "You get back "+price) ||
		!strings.Contains(got[0], "paid back there, not online") || strings.Contains(got[0], "/bookings") {
		t.Errorf("the counter customer's mails: %q", got)
	}
}

// A booking the box office moves to another show is sent its new ticket,
// saying it moved: the QR code of the new show, the new time.
func TestBookingMovedMail(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	v := pgtest.NewVenue(t, s)
	from := pgtest.NewShow(t, s, v, 2, 4, time.Now().Add(48*time.Hour))
	to := pgtest.NewShow(t, s, v, 2, 4, time.Now().Add(72*time.Hour))
	desk, user := pgtest.User(t, s), pgtest.User(t, s)
	c := book(t, s, user, from, []string{"A1"}, "pay-moved")
	srv := mailtest.Start(t)
	w := worker(t, s, srv)
	pgtest.WorkJobs(t, s, w) // the first ticket
	e := audit.Entry{ActorID: desk, TheatreID: v.TheatreID, Action: "booking.move", Object: "booking " + c.BookingID}
	if _, err := s.MoveBooking(ctx, c.BookingID, to, []string{"A3"}, e); err != nil {
		t.Fatal(err)
	}
	if n := pgtest.WorkJobs(t, s, w); n != 1 {
		t.Fatalf("worked %d mail jobs, want 1", n)
	}
	got := srv.Received()
	if len(got) != 2 {
		t.Fatalf("received %d mails, want 2", len(got))
	}
	m := got[1].Message(t)
	if !strings.HasPrefix(m.Subject, "Your booking has moved: The Last Algorithm, ") || !strings.Contains(m.Text, "no longer admits") ||
		!strings.Contains(m.Text, "A3") {
		t.Fatalf("the move's mail: %q\n%s", m.Subject, m.Text)
	}
	code := pgtest.Scalar[string](t, s.Pool(), `SELECT code FROM bookings WHERE id = $1`, c.BookingID)
	if qr, ok := m.Part("qr-" + code + "@marquee"); !ok || qr.Type != "image/png" {
		t.Fatalf("no QR code of the new ticket; parts: %+v", m.Parts)
	}
}
