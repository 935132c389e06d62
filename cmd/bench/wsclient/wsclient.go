// Package wsclient is a viewer of the live seat map as the benchmarks run
// thousands of them: a guest's websocket to a show, each update's seats and
// states read into a stream.Receiver.
package wsclient

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/marquee-tickets/marquee/cmd/bench/stream"
)

// Client is one guest's websocket on a show page.
type Client struct {
	conn    *websocket.Conn
	r       *stream.Receiver
	first   chan struct{} // closed when the initial seat map arrived
	dropped atomic.Bool   // the server closed it or a read failed
	closing atomic.Bool   // we are closing it
	bytes   int64
	err     error
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Dial opens a websocket to show's live seat map on the server at base as a
// guest with the site's Origin, over hc, and reads its messages into r,
// until the connection ends, in a goroutine of wg's.
func Dial(ctx context.Context, base string, hc *http.Client, show int64, r *stream.Receiver, wg *sync.WaitGroup) (*Client, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(dctx, fmt.Sprintf("%s/shows/%d/live", base, show), &websocket.DialOptions{ //nolint:bodyclose // coder/websocket: the handshake response has no body to close
		HTTPClient: hc,
		HTTPHeader: http.Header{"Origin": []string{base}},
	})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(1 << 20) // the first message is the whole map
	c := &Client{conn: conn, r: r, first: make(chan struct{})}
	wg.Go(func() {
		firstDone := false
		for {
			_, rd, err := conn.Reader(context.Background())
			if err != nil {
				if !c.closing.Load() {
					c.dropped.Store(true)
					c.err = err
				}
				if !firstDone {
					close(c.first)
				}
				return
			}
			buf := bufPool.Get().(*bytes.Buffer)
			buf.Reset()
			_, err = buf.ReadFrom(rd)
			at := r.Now()
			if err == nil {
				c.bytes += int64(buf.Len())
				if firstDone {
					r.Msgs++
					ScanSeats(buf.Bytes(), func(seat, status string) {
						switch status {
						case "held", "booked", "mine":
							r.Saw(seat, status == "held", at)
						case "available":
							r.Saw(seat, false, at)
						}
					})
				}
			}
			bufPool.Put(buf)
			if !firstDone {
				firstDone = true
				close(c.first)
			}
		}
	})
	return c, nil
}

// First is closed once the initial seat map has arrived (or the connection
// ended before it).
func (c *Client) First() <-chan struct{} { return c.first }

// Close closes the connection; it does not count as dropped.
func (c *Client) Close() {
	c.closing.Store(true)
	c.conn.CloseNow()
}

// Receiver is the receiver the client feeds.
func (c *Client) Receiver() *stream.Receiver { return c.r }

// Dropped reports whether the server closed the connection or a read
// failed before Close. Read it after the reader is done.
func (c *Client) Dropped() bool { return c.dropped.Load() }

// Err is why a dropped connection ended.
func (c *Client) Err() error { return c.err }

// Bytes is how many bytes of messages the client read. Read it after the
// reader is done.
func (c *Client) Bytes() int64 { return c.bytes }

// ScanSeats calls f with each seat button's data-seat and data-status in an
// out-of-band fragment (components.Seat writes data-seat, then
// data-status).
func ScanSeats(b []byte, f func(seat, status string)) {
	const seatAttr, statusAttr = `data-seat="`, `data-status="`
	for {
		i := bytes.Index(b, []byte(seatAttr))
		if i < 0 {
			return
		}
		b = b[i+len(seatAttr):]
		j := bytes.IndexByte(b, '"')
		if j < 0 {
			return
		}
		seat := string(b[:j])
		b = b[j:]
		k := bytes.Index(b, []byte(statusAttr))
		if k < 0 {
			return
		}
		b = b[k+len(statusAttr):]
		j = bytes.IndexByte(b, '"')
		if j < 0 {
			return
		}
		f(seat, string(b[:j]))
		b = b[j:]
	}
}
