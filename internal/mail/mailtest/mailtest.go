// Package mailtest is an SMTP server for tests, on loopback: it receives
// what the app sends, as a real server would, and can refuse it.
package mailtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/marquee-tickets/marquee/internal/mail"
)

// Received is one message as the server got it.
type Received struct {
	From string
	To   []string
	Raw  []byte
}

// Message parses r.
func (r Received) Message(tb testing.TB) mail.Message {
	tb.Helper()
	m, err := mail.Parse(r.Raw)
	if err != nil {
		tb.Fatalf("parse received mail: %v", err)
	}
	return m
}

// Server is a running SMTP server.
type Server struct {
	srv *smtp.Server
	// URL is its SMTP_URL (plain SMTP on loopback).
	URL string

	mu       sync.Mutex
	received []Received
	refuse   int // how many more messages to refuse; -1 all
	refused  int
	arrived  chan struct{}
}

// Start starts a server, closed when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("mailtest: listen: %v", err)
	}
	s := &Server{arrived: make(chan struct{}, 1)}
	s.srv = smtp.NewServer(backend{s})
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout, s.srv.WriteTimeout = time.Minute, time.Minute
	s.URL = "smtp://" + ln.Addr().String() + "?tls=none"
	served := make(chan error, 1)
	go func() { served <- s.srv.Serve(ln) }()
	tb.Cleanup(func() {
		s.srv.Close()
		if err := <-served; err != nil && !errors.Is(err, smtp.ErrServerClosed) {
			tb.Errorf("mailtest: serve: %v", err)
		}
	})
	return s
}

// Refuse makes the server refuse the next n messages with a temporary
// error (451), or every one from now on with n < 0.
func (s *Server) Refuse(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = n
}

// Received returns the messages received so far.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Refused is how many messages were refused.
func (s *Server) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// WaitFor waits until n messages have arrived, failing the test after
// timeout, and returns them.
func (s *Server) WaitFor(tb testing.TB, n int, timeout time.Duration) []Received {
	tb.Helper()
	deadline := time.After(timeout)
	for {
		if got := s.Received(); len(got) >= n {
			return got
		}
		select {
		case <-s.arrived:
		case <-deadline:
			tb.Fatalf("mailtest: %d messages arrived in %v, want %d", len(s.Received()), timeout, n)
		}
	}
}

// To returns the messages received for address.
func (s *Server) To(address string) []Received {
	var out []Received
	for _, r := range s.Received() {
		for _, to := range r.To {
			if strings.EqualFold(to, address) {
				out = append(out, r)
			}
		}
	}
	return out
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *Server
	from string
	to   []string
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

var errRefused = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Mailbox temporarily unavailable, try again later"}

func (x *session) Data(r io.Reader) error {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, r); err != nil {
		return fmt.Errorf("mailtest: read data: %w", err)
	}
	s := x.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse != 0 {
		if s.refuse > 0 {
			s.refuse--
		}
		s.refused++
		return errRefused
	}
	if len(x.to) == 0 {
		return errors.New("mailtest: no recipient")
	}
	s.received = append(s.received, Received{From: x.from, To: x.to, Raw: buf.Bytes()})
	select {
	case s.arrived <- struct{}{}:
	default:
	}
	return nil
}
