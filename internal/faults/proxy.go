package faults

import (
	"errors"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections to a target (the app's database) and
// misbehaves on demand: it delays what it forwards, goes silent, cuts every
// connection, or refuses new ones. Faults apply to the connections already
// open and to new ones alike.
type Proxy struct {
	ln     net.Listener
	target string

	mu       sync.Mutex
	latency  time.Duration
	silent   chan struct{} // closed when the network speaks again; nil while it does
	refusing bool
	links    map[*link]struct{}
	closed   bool
}

// NewProxy listens on a loopback port and forwards every connection to
// target (host:port) until the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: target, links: map[*link]struct{}{}}
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// Addr is the proxy's host:port, for the app to connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetLatency delays every chunk of bytes read from now on, in either
// direction, by d before it is forwarded. A connection's end is forwarded
// after what came before it.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// Silence makes the network go quiet, as a partition does: bytes are
// accepted on both sides but none arrive, and no connection's end is
// passed on, so neither end learns that the other is gone. Speak ends it.
func (p *Proxy) Silence() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.silent == nil {
		p.silent = make(chan struct{})
	}
}

// Speak ends a Silence: what was held back is delivered.
func (p *Proxy) Speak() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.silent != nil {
		close(p.silent)
		p.silent = nil
	}
}

// Refuse makes the proxy reset every new connection at once (on), or
// forward them again (off).
func (p *Proxy) Refuse(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refusing = on
}

// Cut resets every open connection, both ends, and returns how many there
// were: what a restarted router or a dropped VPN does.
func (p *Proxy) Cut() int {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		l.reset()
	}
	return len(links)
}

// Open is how many connections are open through the proxy.
func (p *Proxy) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.links)
}

// Close stops listening and resets every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.ln.Close()
	p.Cut()
	p.Speak()
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refusing := p.refusing || p.closed
		p.mu.Unlock()
		if refusing {
			resetConn(c)
			continue
		}
		go p.forward(c)
	}
}

func (p *Proxy) forward(client net.Conn) {
	server, err := net.DialTimeout("tcp", p.target, 10*time.Second)
	if err != nil {
		resetConn(client)
		return
	}
	l := &link{client: client, server: server, done: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.reset()
		return
	}
	p.links[l] = struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(func() { p.pipe(l, client, server) })
	wg.Go(func() { p.pipe(l, server, client) })
	wg.Wait()
	l.close()
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}

// link is one proxied connection: the client's end and the server's.
type link struct {
	client, server net.Conn
	done           chan struct{} // closed when the link is torn down
	once           sync.Once
}

func (l *link) close() {
	l.once.Do(func() {
		close(l.done)
		l.client.Close()
		l.server.Close()
	})
}

// reset tears the link down with a TCP reset on both ends.
func (l *link) reset() {
	l.once.Do(func() {
		close(l.done)
		resetConn(l.client)
		resetConn(l.server)
	})
}

func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close sends RST
	}
	c.Close()
}

// chunk is what one read returned, due to be written at due; eof is the
// end of the stream.
type chunk struct {
	b   []byte
	due time.Time
	eof bool
}

// pipe copies from src to dst through the proxy's faults. The reader never
// waits for the writer (up to a bound), so a silent network still accepts
// bytes, as a partition's sender does until its buffers fill.
func (p *Proxy) pipe(l *link, src, dst net.Conn) {
	chunks := make(chan chunk, 256)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			p.mu.Lock()
			due := time.Now().Add(p.latency)
			p.mu.Unlock()
			if n > 0 {
				select {
				case chunks <- chunk{b: buf[:n], due: due}:
				case <-l.done:
					return
				}
			}
			if err != nil {
				select {
				case chunks <- chunk{due: due, eof: true}:
				case <-l.done:
				}
				return
			}
		}
	}()
	for c := range chunks {
		if !p.wait(l, c.due) {
			return
		}
		if c.eof {
			l.close() // the end, forwarded: both directions are over
			return
		}
		if _, err := dst.Write(c.b); err != nil {
			if !errors.Is(err, net.ErrClosed) {
				l.close()
			}
			return
		}
	}
}

// wait waits until due and while the network is silent; false when the
// link was torn down meanwhile.
func (p *Proxy) wait(l *link, due time.Time) bool {
	if d := time.Until(due); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-l.done:
			t.Stop()
			return false
		}
	}
	for {
		p.mu.Lock()
		silent := p.silent
		p.mu.Unlock()
		if silent == nil {
			return true
		}
		select {
		case <-silent:
		case <-l.done:
			return false
		}
	}
}
