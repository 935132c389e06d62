package notify_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/mail/mailtest"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestShowRescheduledMailsEachPersonOnce moves a show with three bookings
// of two moviegoers and two counter sales, one of them with an address:
// each person gets one mail with the old and the new time, their bookings
// and how to decline; moving it again mails them again, once.
func TestShowRescheduledMailsEachPersonOnce(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t, 4)
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	clock := pgtest.NewClock(time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC))
	s.Clock = clock.Now
	v := pgtest.NewVenue(t, s)
	first := time.Date(2026, 12, 9, 15, 30, 0, 0, time.UTC) // Wed 21:00 in Kolkata
	show := pgtest.NewShow(t, s, v, 3, 4, first)
	svc := &admin.Service{Store: s}
	manager := admin.Actor{UserID: pgtest.User(t, s), Role: auth.RolePlatformAdmin}

	alice, bob := pgtest.User(t, s), pgtest.User(t, s)
	book(t, s, alice, show, []string{"A1"}, "pay-a1")
	book(t, s, alice, show, []string{"A2", "A3"}, "pay-a2")
	book(t, s, bob, show, []string{"B1"}, "pay-b1")
	for i, email := range []string{"walkin@example.com", ""} {
		if _, err := svc.Sell(ctx, manager, booking.CounterSale{ShowID: show, Seats: []string{[]string{"C1", "C2"}[i]},
			PaidBy: booking.PaidCash, Name: "Walk-in", Email: email, Key: "counter-" + email}); err != nil {
			t.Fatal(err)
		}
	}
	srv := mailtest.Start(t)
	w := worker(t, s, srv)
	pgtest.WorkJobs(t, s, w) // the tickets
	moves := func() map[string][]string {
		out := map[string][]string{}
		for _, r := range srv.Received() {
			if m := r.Message(t); strings.HasPrefix(m.Subject, "New time: ") {
				out[r.To[0]] = append(out[r.To[0]], m.Text)
			}
		}
		return out
	}

	second := first.Add(24*time.Hour + 30*time.Minute) // Thu 21:30
	if r, err := svc.RescheduleShow(ctx, manager, show, second); err != nil || r.BookingsMoved != 5 || r.MoviegoersTold != 3 {
		t.Fatalf("move = %+v, %v", r, err)
	}
	if n := pgtest.WorkJobs(t, s, w); n != 3 {
		t.Fatalf("sent %d mails of the move, want 3", n)
	}
	pgtest.WorkJobs(t, s, w)
	got := moves()
	if len(got) != 3 || len(got[email(t, s, alice)]) != 1 || len(got[email(t, s, bob)]) != 1 || len(got["walkin@example.com"]) != 1 {
		t.Fatalf("mails of the move to %d people: %v", len(got), got)
	}
	tz := "Asia/Kolkata"
	was, now := format.When(first, tz), format.When(second, tz)
	for to, texts := range got {
		text := texts[0]
		for _, want := range []string{"Test Cinema has moved The Last Algorithm from " + was + " to " + now,
			"still valid", "refund"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s's mail lacks %q:\n%s", to, want, text)
			}
		}
	}
	if a := got[email(t, s, alice)][0]; strings.Count(a, "Seats: ") != 2 || !strings.Contains(a, "cancel in My bookings before the show starts, at "+now+", for a full refund (₹750)") {
		t.Errorf("alice's mail does not name both bookings and how to decline:\n%s", a)
	}
	if c := got["walkin@example.com"][0]; !strings.Contains(c, "box office") || !strings.Contains(c, "refunded in full (₹450)") || strings.Contains(c, "My bookings") {
		t.Errorf("the counter customer's mail does not say how they decline:\n%s", c)
	}
	// The HTML says the same, and the calendar event moves.
	for _, r := range srv.To(email(t, s, bob)) {
		m := r.Message(t)
		if !strings.HasPrefix(m.Subject, "New time: ") {
			continue
		}
		if !strings.Contains(m.HTML, was) || !strings.Contains(m.HTML, now) {
			t.Errorf("the HTML lacks the old or the new time")
		}
		var starts time.Time
		for _, p := range m.Parts {
			if p.Type == "text/calendar" {
				cal, err := ics.ParseCalendar(bytes.NewReader(p.Data))
				if err != nil || len(cal.Events()) != 1 {
					t.Fatalf("calendar: %v", err)
				}
				starts, _ = cal.Events()[0].GetStartAt()
			}
		}
		if !starts.Equal(second) {
			t.Errorf("the calendar event starts %v, want %v", starts, second)
		}
	}

	// Moved again: each is told of this move too, once, from the time
	// the first move set.
	third := second.Add(2 * time.Hour)
	if _, err := svc.RescheduleShow(ctx, manager, show, third); err != nil {
		t.Fatal(err)
	}
	pgtest.WorkJobs(t, s, w)
	pgtest.WorkJobs(t, s, w)
	got = moves()
	for _, to := range []string{email(t, s, alice), email(t, s, bob), "walkin@example.com"} {
		if len(got[to]) != 2 || !strings.Contains(got[to][1], "from "+now+" to "+format.When(third, tz)) {
			t.Errorf("%s after the second move: %q", to, got[to])
		}
	}
	if len(got) != 3 {
		t.Errorf("mails of the moves went to %d people, want 3", len(got))
	}
}
