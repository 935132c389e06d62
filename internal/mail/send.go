package mail

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	netmail "net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// SMTP sends mail through an SMTP server.
type SMTP struct {
	host string
	opts []gomail.Option
}

// sendTimeout bounds one conversation with the server.
const sendTimeout = 30 * time.Second

// ParseSMTP reads SMTP_URL:
//
//	smtp://user:password@host:587    STARTTLS, required (the default port 587)
//	smtps://user:password@host:465   TLS from the first byte (the default port 465)
//	smtp://host:25?tls=none          no TLS: a relay on this machine or network
//	smtp://host:25?tls=opportunistic STARTTLS when the server offers it
//
// Credentials, when given, are sent with the best mechanism the server
// offers. Errors never echo the password.
func ParseSMTP(raw string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a URL like smtp://user:password@host:587")
	}
	s := &SMTP{host: u.Hostname(), opts: []gomail.Option{gomail.WithTimeout(sendTimeout)}}
	if s.host == "" {
		return nil, fmt.Errorf("no host (e.g. smtp://user:password@smtp.example.com:587)")
	}
	port := 587
	switch u.Scheme {
	case "smtp":
	case "smtps":
		port = 465
		s.opts = append(s.opts, gomail.WithSSL())
	default:
		return nil, fmt.Errorf("scheme %q: use smtp:// or smtps://", u.Scheme)
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return nil, fmt.Errorf("port %q: not a port number", p)
		}
	}
	s.opts = append(s.opts, gomail.WithPort(port))
	if u.Scheme == "smtp" {
		switch tls := strings.ToLower(u.Query().Get("tls")); tls {
		case "", "required":
			s.opts = append(s.opts, gomail.WithTLSPortPolicy(gomail.TLSMandatory))
		case "opportunistic":
			s.opts = append(s.opts, gomail.WithTLSPortPolicy(gomail.TLSOpportunistic))
		case "none":
			s.opts = append(s.opts, gomail.WithTLSPortPolicy(gomail.NoTLS))
		default:
			return nil, fmt.Errorf("tls=%q: use required, opportunistic or none", tls)
		}
	}
	if user := u.User.Username(); user != "" {
		pass, _ := u.User.Password()
		s.opts = append(s.opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(user), gomail.WithPassword(pass))
	}
	return s, nil
}

// Send sends m in a conversation of its own.
func (s *SMTP) Send(ctx context.Context, m *gomail.Msg) error {
	c, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return fmt.Errorf("smtp client for %s: %w", s.host, err)
	}
	if err := c.DialAndSendWithContext(ctx, m); err != nil {
		return fmt.Errorf("send through %s: %w", s.host, err)
	}
	return nil
}

// Mailbox keeps mail instead of sending it: the dev mailbox of demo mode,
// where a new user reads what would have been sent.
type Mailbox struct {
	// Keep stores one message as it would have been sent.
	Keep func(ctx context.Context, to, subject string, raw []byte) error
}

// Send keeps m.
func (b Mailbox) Send(ctx context.Context, m *gomail.Msg) error {
	var raw bytes.Buffer
	if _, err := m.WriteTo(&raw); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	var to []string
	rcpts, err := m.GetRecipients()
	if err != nil {
		return fmt.Errorf("recipients: %w", err)
	}
	for _, r := range rcpts {
		if a, err := netmail.ParseAddress(r); err == nil {
			r = a.Address
		}
		to = append(to, strings.ToLower(r))
	}
	// The mailbox lists the subject as a person reads it: go-mail keeps
	// it encoded for the wire (=?UTF-8?q?...?= once it holds a ₹ or a
	// title in Devanagari).
	subject := ""
	if s := m.GetGenHeader(gomail.HeaderSubject); len(s) > 0 {
		if subject, err = new(mime.WordDecoder).DecodeHeader(s[0]); err != nil {
			subject = s[0]
		}
	}
	return b.Keep(ctx, strings.Join(to, ", "), subject, raw.Bytes())
}
