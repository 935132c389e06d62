package mail

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
)

// Message is a sent mail read back: what the dev mailbox shows and what
// the tests check.
type Message struct {
	Header mail.Header
	// Subject, From, To and ReplyTo are those headers as a person reads
	// them: an encoded word (a theatre's or a moviegoer's name in another
	// script, a ₹) decoded.
	Subject, From, To, ReplyTo string
	Text                       string // the text/plain part
	HTML                       string // the text/html part
	Parts                      []Part // inline images and attachments
}

// Part is a file of a message.
type Part struct {
	Type      string // its media type, without parameters
	ContentID string // without its angle brackets
	Filename  string
	Data      []byte
}

// Parse reads a message as the SMTP server received it.
func Parse(raw []byte) (Message, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, fmt.Errorf("read message: %w", err)
	}
	var dec mime.WordDecoder
	readable := func(name string) string {
		v, err := dec.DecodeHeader(m.Header.Get(name))
		if err != nil {
			return m.Header.Get(name)
		}
		return v
	}
	msg := Message{Header: m.Header, Subject: readable("Subject"), From: readable("From"), To: readable("To"), ReplyTo: readable("Reply-To")}
	if err := msg.walk(m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), "", "", m.Body); err != nil {
		return Message{}, err
	}
	return msg, nil
}

// walk reads one part, and the parts within it.
func (msg *Message) walk(contentType, encoding, disposition, contentID string, body io.Reader) error {
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		media, params = "text/plain", nil
	}
	if strings.HasPrefix(media, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", media, err)
			}
			// NextPart undoes quoted-printable itself; base64 is left.
			if err := msg.walk(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"),
				p.Header.Get("Content-Disposition"), p.Header.Get("Content-Id"), p); err != nil {
				return err
			}
		}
	}
	if strings.EqualFold(encoding, "base64") {
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("read %s part: %w", media, err)
	}
	_, dparams, _ := mime.ParseMediaType(disposition)
	filename := dparams["filename"]
	if filename == "" {
		filename = params["name"]
	}
	switch {
	case media == "text/plain" && filename == "" && msg.Text == "":
		msg.Text = string(data)
	case media == "text/html" && filename == "" && msg.HTML == "":
		msg.HTML = string(data)
	default:
		msg.Parts = append(msg.Parts, Part{Type: media, ContentID: strings.Trim(contentID, "<>"), Filename: filename, Data: data})
	}
	return nil
}

// Part returns the part with content id cid.
func (msg Message) Part(cid string) (Part, bool) {
	for _, p := range msg.Parts {
		if p.ContentID == cid {
			return p, true
		}
	}
	return Part{}, false
}
