package account

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/mail"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"
)

// The dev mailbox (demo mode without SMTP_URL): GET /dev/mailbox lists the
// mail that would have been sent, /dev/mailbox/:mail_id shows one as its
// recipient would see it, with its HTML (/html, framed), its files
// (/parts/:n) and the whole message (/raw). A moviegoer sees the mail sent
// to them; a platform admin sees everyone's.

// mailboxShown is how many messages the list shows.
const mailboxShown = 100

// mailboxOwner is whose mail the caller may read: their own address, or
// "" (everyone's) for a platform admin.
func (s *Handlers) mailboxOwner(c echo.Context) (string, error) {
	u, err := s.Store.User(c.Request().Context(), session.UserID(c))
	if err != nil {
		return "", err
	}
	if u.Role == auth.RolePlatformAdmin {
		return "", nil
	}
	return u.Email, nil
}

// MailboxPage lists the dev mailbox.
func (s *Handlers) MailboxPage(c echo.Context) error {
	owner, err := s.mailboxOwner(c)
	if err != nil {
		return err
	}
	list, err := s.Store.DevMailbox(c.Request().Context(), owner, mailboxShown)
	if err != nil {
		return err
	}
	v := components.MailboxView{All: owner == ""}
	for _, m := range list {
		v.Items = append(v.Items, components.MailboxItem{
			Href: mailPath(m.ID), To: m.Recipient, Subject: m.Subject,
			When: format.When(m.ReceivedAt, "UTC"), WhenISO: m.ReceivedAt.UTC().Format(time.RFC3339),
		})
	}
	return web.Render(c, http.StatusOK, components.MailboxPage(s.Meta(c, "Dev mailbox"), v))
}

func mailPath(id int64) string { return "/dev/mailbox/" + strconv.FormatInt(id, 10) }

// keptMail reads the message the path names, parsed, if the caller may.
func (s *Handlers) keptMail(c echo.Context) (postgres.KeptMail, mail.Message, error) {
	id, err := strconv.ParseInt(c.Param("mail_id"), 10, 64)
	if err != nil || id <= 0 {
		return postgres.KeptMail{}, mail.Message{}, problem.NotFound("message")
	}
	owner, err := s.mailboxOwner(c)
	if err != nil {
		return postgres.KeptMail{}, mail.Message{}, err
	}
	k, err := s.Store.KeptMail(c.Request().Context(), id, owner)
	if err != nil {
		return postgres.KeptMail{}, mail.Message{}, problem.Lookup("message", err)
	}
	msg, err := mail.Parse(k.Raw)
	if err != nil {
		return postgres.KeptMail{}, mail.Message{}, fmt.Errorf("dev mailbox: %w", err)
	}
	return k, msg, nil
}

// MailPage shows one message.
func (s *Handlers) MailPage(c echo.Context) error {
	k, msg, err := s.keptMail(c)
	if err != nil {
		return err
	}
	base := mailPath(k.ID)
	v := components.MailView{
		Subject: msg.Subject, From: msg.From, To: msg.To, ReplyTo: msg.ReplyTo,
		When: msg.Header.Get("Date"), HTMLSrc: base + "/html", Text: msg.Text, RawHref: base + "/raw",
	}
	for i, p := range msg.Parts {
		name := p.Filename
		if name == "" {
			name = "part-" + strconv.Itoa(i+1)
		}
		v.Parts = append(v.Parts, components.MailPart{Name: name, Type: p.Type, Href: base + "/parts/" + strconv.Itoa(i), Inline: p.ContentID != ""})
	}
	return web.Render(c, http.StatusOK, components.MailPage(s.Meta(c, msg.Subject), v))
}

// cidRef is an inline image's reference in a mail's HTML.
var cidRef = regexp.MustCompile(`cid:([^"'\s>]+)`)

// MailHTML is a message's HTML part, its inline images written into it
// (the frame is sandboxed, a origin of its own that sends no cookie, so it
// could not fetch them from the mailbox). It is framed by MailPage: no
// script runs, and its inline styles are allowed here alone.
func (s *Handlers) MailHTML(c echo.Context) error {
	_, msg, err := s.keptMail(c)
	if err != nil {
		return err
	}
	html := cidRef.ReplaceAllStringFunc(msg.HTML, func(ref string) string {
		if p, ok := msg.Part(strings.TrimPrefix(ref, "cid:")); ok && strings.HasPrefix(p.Type, "image/") {
			return "data:" + p.Type + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
		}
		return ref
	})
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'self'; sandbox")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set(echo.HeaderCacheControl, "no-store")
	return c.HTMLBlob(http.StatusOK, []byte(html))
}

// MailPart is one file of a message.
func (s *Handlers) MailPart(c echo.Context) error {
	_, msg, err := s.keptMail(c)
	if err != nil {
		return err
	}
	i, err := strconv.Atoi(c.Param("part"))
	if err != nil || i < 0 || i >= len(msg.Parts) {
		return problem.NotFound("attachment")
	}
	p := msg.Parts[i]
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	if p.Filename != "" && p.ContentID == "" {
		c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+strings.ReplaceAll(p.Filename, `"`, "")+`"`)
	}
	return c.Blob(http.StatusOK, p.Type, p.Data)
}

// MailRaw is the whole message, as an .eml file.
func (s *Handlers) MailRaw(c echo.Context) error {
	k, _, err := s.keptMail(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="mail-`+strconv.FormatInt(k.ID, 10)+`.eml"`)
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.Blob(http.StatusOK, "message/rfc822", k.Raw)
}
