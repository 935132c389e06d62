package faults_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/faults"
)

// echoServer answers every line with the same line.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends line and reads it back within wait.
func roundTrip(c net.Conn, r *bufio.Reader, line string, wait time.Duration) (string, error) {
	if err := c.SetDeadline(time.Now().Add(wait)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	got, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	return got[:len(got)-1], nil
}

func dial(t *testing.T, p *faults.Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func TestProxy(t *testing.T) {
	t.Parallel()
	p := faults.NewProxy(t, echoServer(t))
	c, r := dial(t, p)
	if got, err := roundTrip(c, r, "hello", 10*time.Second); err != nil || got != "hello" {
		t.Fatalf("through the proxy: %q, %v", got, err)
	}

	t.Run("latency delays both ways", func(t *testing.T) {
		p.SetLatency(150 * time.Millisecond)
		defer p.SetLatency(0)
		began := time.Now()
		if got, err := roundTrip(c, r, "slow", 10*time.Second); err != nil || got != "slow" {
			t.Fatalf("%q, %v", got, err)
		}
		if took := time.Since(began); took < 300*time.Millisecond {
			t.Errorf("a round trip took %v, want at least twice the latency (300ms)", took)
		}
	})

	t.Run("a silent network delivers nothing until it speaks", func(t *testing.T) {
		p.Silence()
		_, err := roundTrip(c, r, "held", 300*time.Millisecond)
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("through a silent network: %v, want a timeout", err)
		}
		p.Speak()
		if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadString('\n')
		if err != nil || got != "held\n" {
			t.Fatalf("after Speak: %q, %v, want the line held back", got, err)
		}
	})

	t.Run("refused connections are reset; open ones go on", func(t *testing.T) {
		p.Refuse(true)
		// The reset may come before the dial completes, or after.
		if c2, err := net.Dial("tcp", p.Addr()); err == nil {
			_, err := roundTrip(c2, bufio.NewReader(c2), "x", 10*time.Second)
			c2.Close()
			if err == nil {
				p.Refuse(false)
				t.Fatal("a new connection worked while refusing")
			}
		}
		if got, err := roundTrip(c, r, "still", 10*time.Second); err != nil || got != "still" {
			t.Fatalf("the open connection: %q, %v", got, err)
		}
		p.Refuse(false)
		c3, r3 := dial(t, p)
		if got, err := roundTrip(c3, r3, "again", 10*time.Second); err != nil || got != "again" {
			t.Fatalf("after Refuse(false): %q, %v", got, err)
		}
	})

	t.Run("cut resets every connection", func(t *testing.T) {
		if n := p.Cut(); n < 1 {
			t.Fatalf("Cut reset %d connections, want the open ones", n)
		}
		if _, err := roundTrip(c, r, "gone", 10*time.Second); err == nil {
			t.Fatal("a connection still works after Cut")
		}
		c4, r4 := dial(t, p)
		if got, err := roundTrip(c4, r4, "new", 10*time.Second); err != nil || got != "new" {
			t.Fatalf("a new connection after Cut: %q, %v", got, err)
		}
	})
}
