// Package apiclient is the benchmarks' load client of Marquee's JSON API: a
// minimal HTTP/1.1 client with one keep-alive connection per signed-in
// user.
//
// Each request is one write and one read, with no goroutines of its own,
// as a load generator such as wrk has. The clients share the machine's
// cores with the server under test and Postgres, so every cycle net/http's
// client spent on its goroutine hand-offs and cookie jar would be taken
// from the server being measured.
package apiclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// ErrSeatsUnavailable is the 409 seats_unavailable answer to a hold: an
// attempt that lost.
var ErrSeatsUnavailable = errors.New("seats unavailable")

// Conn is one keep-alive HTTP/1.1 connection to the server, used by one
// goroutine at a time.
type Conn struct {
	// Deadline bounds each request, from its write to the end of its
	// answer; 0 means 30 s.
	Deadline time.Duration

	nc     net.Conn
	r      *bufio.Reader
	host   string
	cookie string // name=value, sent with every request once set
	bearer string // a token sent as Authorization: Bearer, once set
	buf    bytes.Buffer
}

// maxBody is the most of an answer's body read.
const maxBody = 1 << 20

// ErrClosed comes with an answer that closed the connection: the answer is
// whole, but the next request needs a new connection.
var ErrClosed = errors.New("the server closed the connection")

// Dial connects to the server at base (http://host:port).
func Dial(ctx context.Context, base string) (*Conn, error) {
	host := strings.TrimPrefix(base, "http://")
	nc, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	return &Conn{nc: nc, r: bufio.NewReader(nc), host: host}, nil
}

// Close closes the connection.
func (c *Conn) Close() { c.nc.Close() }

// Cookie is the session cookie the connection sends, name=value, or "".
func (c *Conn) Cookie() string { return c.cookie }

// SetBearer makes the connection send token as Authorization: Bearer with
// every request: how a server that signs its users in with a token rather
// than a cookie (the peer benchmark's) knows them.
func (c *Conn) SetBearer(token string) { c.bearer = token }

// SetCookie makes the connection send cookie (name=value) with every
// request: a session signed in on another connection.
func (c *Conn) SetCookie(cookie string) { c.cookie = cookie }

// Answer is a response, its body read to the end.
type Answer struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// Cookies are the cookies the answer sets.
func (a Answer) Cookies() []*http.Cookie {
	var out []*http.Cookie
	for _, line := range a.Header.Values("Set-Cookie") {
		if ck, err := http.ParseSetCookie(line); err == nil {
			out = append(out, ck)
		}
	}
	return out
}

// Do sends one request with a JSON body (when body is not nil) and, when
// key is set, an Idempotency-Key, and returns the answer with its whole
// body, read to the end so the connection can carry the next request. An
// answer that closes the connection comes with ErrClosed: the next request
// would find it gone.
func (c *Conn) Do(method, path, key string, body any) (Answer, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return Answer{}, err
		}
	}
	c.buf.Reset()
	c.writeHead(method, path, len(payload))
	if body != nil {
		c.buf.WriteString("Content-Type: application/json\r\n")
	}
	if key != "" {
		c.buf.WriteString("Idempotency-Key: " + key + "\r\n")
	}
	return c.roundTrip(payload)
}

// Send sends one request with the header lines given and payload as its
// body (none when empty), as Do does.
func (c *Conn) Send(method, path string, header http.Header, payload []byte) (Answer, error) {
	c.buf.Reset()
	c.writeHead(method, path, len(payload))
	for name, values := range header {
		for _, v := range values {
			c.buf.WriteString(name + ": " + v + "\r\n")
		}
	}
	return c.roundTrip(payload)
}

// writeHead starts a request in c.buf: its line, Host and Content-Length,
// and the cookie when set.
func (c *Conn) writeHead(method, path string, length int) {
	fmt.Fprintf(&c.buf, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", method, path, c.host, length)
	if c.cookie != "" {
		c.buf.WriteString("Cookie: " + c.cookie + "\r\n")
	}
	if c.bearer != "" {
		c.buf.WriteString("Authorization: Bearer " + c.bearer + "\r\n")
	}
}

// roundTrip ends the head in c.buf, writes it and payload in one write and
// reads the answer.
func (c *Conn) roundTrip(payload []byte) (Answer, error) {
	c.buf.WriteString("\r\n")
	c.buf.Write(payload)
	deadline := c.Deadline
	if deadline == 0 {
		deadline = 30 * time.Second
	}
	if err := c.nc.SetDeadline(time.Now().Add(deadline)); err != nil {
		return Answer{}, fmt.Errorf("set the connection's deadline: %w", err)
	}
	if _, err := c.nc.Write(c.buf.Bytes()); err != nil {
		return Answer{}, err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	var b []byte
	if n := resp.ContentLength; n >= 0 && n <= maxBody {
		// One allocation of the right size, not ReadAll's growing ones.
		b = make([]byte, n)
		_, err = io.ReadFull(resp.Body, b)
	} else {
		b, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
	}
	if err != nil {
		return Answer{}, err
	}
	a := Answer{StatusCode: resp.StatusCode, Header: resp.Header, Body: b}
	if resp.Close {
		return a, ErrClosed
	}
	return a, nil
}

// Login signs in through POST /api/v1/login on a new connection to base
// and returns it, sending the session cookie (named cookieName) with every
// request from then on.
func Login(ctx context.Context, base, cookieName, email, password string) (*Conn, error) {
	c, err := Dial(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("login %s: %w", email, err)
	}
	a, err := c.Do(http.MethodPost, "/api/v1/login", "",
		map[string]string{"email": email, "password": password})
	if err == nil && a.StatusCode != http.StatusOK {
		err = fmt.Errorf("%d %s", a.StatusCode, a.Body)
	}
	if err == nil {
		err = errors.New("no session cookie in the answer")
		for _, ck := range a.Cookies() {
			if ck.Name == cookieName && ck.Value != "" {
				c.cookie, err = ck.Name+"="+ck.Value, nil
			}
		}
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("login %s: %w", email, err)
	}
	return c, nil
}

// Hold asks for seats of show under Idempotency-Key key (POST
// /api/v1/shows/{id}/holds) and returns the hold's id, or
// ErrSeatsUnavailable when a seat is taken.
func (c *Conn) Hold(showID int64, seats []string, key string) (string, error) {
	a, err := c.Do(http.MethodPost, fmt.Sprintf("/api/v1/shows/%d/holds", showID),
		key, map[string][]string{"seats": seats})
	if err != nil {
		return "", fmt.Errorf("hold: %w", err)
	}
	var answer struct {
		HoldID string `json:"hold_id"`
		Error  string `json:"error"`
	}
	switch a.StatusCode {
	case http.StatusCreated:
		if err := json.Unmarshal(a.Body, &answer); err != nil || answer.HoldID == "" {
			return "", fmt.Errorf("hold: 201 without a hold_id: %s", a.Body)
		}
		return answer.HoldID, nil
	case http.StatusConflict:
		if json.Unmarshal(a.Body, &answer) == nil && answer.Error == "seats_unavailable" {
			return "", ErrSeatsUnavailable
		}
	}
	return "", fmt.Errorf("hold: %d %s", a.StatusCode, a.Body)
}

// Release cancels hold holdID (DELETE /api/v1/holds/{id}), freeing its
// seats.
func (c *Conn) Release(holdID string) error {
	a, err := c.Do(http.MethodDelete, "/api/v1/holds/"+holdID, "", nil)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	if a.StatusCode != http.StatusOK {
		return fmt.Errorf("release: %d %s", a.StatusCode, a.Body)
	}
	return nil
}
