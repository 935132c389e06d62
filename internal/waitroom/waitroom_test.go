package waitroom_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/waitroom"
)

func TestTickets(t *testing.T) {
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	s, err := waitroom.NewSigner([]byte("a key of sixteen bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := waitroom.NewSigner([]byte("another key, as long as that one"))
	ticket := s.Sign(7, 42, now)
	if id, err := s.Verify(ticket, 7, now.Add(time.Hour)); err != nil || id != 42 {
		t.Fatalf("verify = %d, %v; want 42", id, err)
	}
	refused := map[string]struct {
		ticket string
		show   int64
		at     time.Time
	}{
		"another show's":        {ticket, 8, now},
		"signed by another key": {other.Sign(7, 42, now), 7, now},
		"too old":               {ticket, 7, now.Add(waitroom.TicketLife + time.Second)},
		"from the future":       {s.Sign(7, 42, now.Add(time.Hour)), 7, now},
		"empty":                 {"", 7, now},
		"garbage":               {"q1.!!!.???", 7, now},
		"its id changed":        {tamper(ticket), 7, now},
		"its signature cut":     {ticket[:len(ticket)-2], 7, now},
	}
	for name, c := range refused {
		if _, err := s.Verify(c.ticket, c.show, c.at); !errors.Is(err, waitroom.ErrQueueRequired) {
			t.Errorf("%s: %v, want ErrQueueRequired", name, err)
		}
	}
	if _, err := waitroom.NewSigner([]byte("short")); err == nil {
		t.Fatal("a 5-byte key was taken")
	}
}

// tamper changes one character of a ticket's body.
func tamper(ticket string) string {
	body, sig, _ := strings.Cut(strings.TrimPrefix(ticket, "q1."), ".")
	b := []byte(body)
	if b[15] == 'A' {
		b[15] = 'B'
	} else {
		b[15] = 'A'
	}
	return "q1." + string(b) + "." + sig
}

func TestPlaceAndEstimate(t *testing.T) {
	if _, _, ok := waitroom.Place(0, 10, 60); ok {
		t.Fatal("a pre-queue ticket has a place")
	}
	pos, eta, ok := waitroom.Place(130, 10, 60)
	if !ok || pos != 120 || eta != 2*time.Minute {
		t.Fatalf("place = %d, %v, %v; want 120 ahead-or-next, 2 minutes at 60 a minute", pos, eta, ok)
	}
	if pos, _, _ := waitroom.Place(5, 10, 60); pos != 1 {
		t.Fatalf("a number the front passed: position %d, want 1", pos)
	}
	if eta := waitroom.Estimate(1, 600); eta != time.Second {
		t.Fatalf("next of 600 a minute: %v", eta)
	}
}

func TestRate(t *testing.T) {
	cases := []struct {
		name     string
		set, got int
		window   time.Duration
		want     float64
	}{
		{"too soon to tell: the set rate", 600, 3, 5 * time.Second, 600},
		{"slower than set: what was achieved", 600, 150, time.Minute, 150},
		{"never faster than set", 600, 900, time.Minute, 600},
		{"half a minute's measure", 600, 100, 30 * time.Second, 200},
		{"nothing admitted: one a minute, not forever", 600, 0, time.Minute, 1},
	}
	for _, c := range cases {
		if got := waitroom.Rate(c.set, c.got, c.window, 10*time.Second); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSettings(t *testing.T) {
	for _, bad := range []waitroom.Settings{
		{Enabled: true, AdmitPerMinute: 0, MaxActive: 10},
		{Enabled: true, AdmitPerMinute: 10, MaxActive: 0},
		{Enabled: true, AdmitPerMinute: waitroom.MaxRate + 1, MaxActive: 10},
	} {
		if err := bad.Check(); !errors.Is(err, waitroom.ErrInvalidSettings) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if err := (waitroom.Settings{}).Check(); err != nil {
		t.Errorf("a room off: %v", err)
	}
}
