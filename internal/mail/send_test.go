package mail_test

import (
	"context"
	"strings"
	"testing"

	gomail "github.com/wneessen/go-mail"

	"github.com/marquee-tickets/marquee/internal/mail"
)

// The dev mailbox keeps a message's subject as its reader sees it, however
// the message itself encodes it, and its recipients' addresses alone; read
// back, its names are decoded too.
func TestMailboxKeepsTheSubjectReadable(t *testing.T) {
	for _, subject := range []string{"Refund paid: ₹250", "Your tickets: क्षितिज, Thu 10 Dec", "Booking cancelled: Plain title"} {
		m := gomail.NewMsg()
		if err := m.FromFormat("കൊച്ചിന\u0d4d\u200d Talkies", "tickets@example.com"); err != nil {
			t.Fatal(err)
		}
		if err := m.AddToFormat("Zoë Rao", "Mira@Example.com"); err != nil {
			t.Fatal(err)
		}
		m.Subject(subject)
		m.SetBodyString(gomail.TypeTextPlain, "Hello.")
		var kept struct{ to, subject string }
		var raw []byte
		box := mail.Mailbox{Keep: func(_ context.Context, to, subject string, r []byte) error {
			kept.to, kept.subject, raw = to, subject, r
			return nil
		}}
		if err := box.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		if kept.subject != subject || kept.to != "mira@example.com" {
			t.Errorf("kept %q to %q, want %q to mira@example.com", kept.subject, kept.to, subject)
		}
		// The message itself is as it would have been sent.
		msg, err := mail.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Subject != subject || (strings.ContainsFunc(subject, func(r rune) bool { return r > 127 }) && !strings.Contains(string(raw), "=?UTF-8?")) {
			t.Errorf("the kept message's subject is %q, want %q encoded", msg.Subject, subject)
		}
		// Read back, the names are as they were written.
		if msg.From != "കൊച്ചിന\u0d4d\u200d Talkies <tickets@example.com>" || msg.To != "Zoë Rao <Mira@Example.com>" {
			t.Errorf("read back from %q to %q", msg.From, msg.To)
		}
	}
}
