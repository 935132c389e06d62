package main

import (
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"strings"

	"github.com/marquee-tickets/marquee/internal/mail"
	"github.com/marquee-tickets/marquee/internal/notify"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// loadMail reads SMTP_URL, MAIL_FROM and SUPPORT_EMAIL into cfg.
func (cfg *config) loadMail(get func(string) string, bad func(string, ...any)) {
	if v := get("SMTP_URL"); v != "" {
		if _, err := mail.ParseSMTP(v); err != nil {
			bad("SMTP_URL: %v", err)
		}
		cfg.SMTPURL = v
	}
	if v := get("MAIL_FROM"); v != "" {
		if _, err := netmail.ParseAddress(v); err != nil {
			bad("MAIL_FROM=%q: not an e-mail address (e.g. tickets@example.com)", v)
		}
		cfg.MailFrom = v
	} else if cfg.SMTPURL != "" {
		bad("MAIL_FROM is required with SMTP_URL: the address mail is sent from, one your SMTP server may send as")
	}
	if v := get("SUPPORT_EMAIL"); v != "" {
		if _, err := netmail.ParseAddress(v); err != nil {
			bad("SUPPORT_EMAIL=%q: not an e-mail address", v)
		}
		cfg.SupportEmail = v
	}
}

// mailSite is where mail comes from and links to. Without MAIL_FROM (no
// SMTP: the dev mailbox, or mail waiting) it is tickets@ the public host.
func (cfg config) mailSite() mail.Site {
	site := mail.Site{PublicURL: cfg.PublicURL, Tickets: cfg.Tickets}
	if a, err := netmail.ParseAddress(cfg.MailFrom); err == nil {
		site.From = *a
	} else {
		host := "localhost"
		if u, err := url.Parse(cfg.PublicURL); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
		site.From = netmail.Address{Address: "tickets@" + host}
	}
	site.Support = site.From.Address
	if a, err := netmail.ParseAddress(cfg.SupportEmail); err == nil {
		site.Support = strings.ToLower(a.Address)
	}
	return site
}

// mailSender is how this instance sends mail: SMTP when configured, else
// the dev mailbox in demo mode; nil (said at start) when it cannot, and
// mail waits in its queue for an instance that can.
func mailSender(cfg config, store *postgres.Store, demo bool, log *slog.Logger) (notify.Sender, error) {
	switch {
	case cfg.SMTPURL != "":
		s, err := mail.ParseSMTP(cfg.SMTPURL)
		if err != nil {
			return nil, fmt.Errorf("SMTP_URL: %w", err)
		}
		log.Info("e-mail goes through SMTP", "from", cfg.mailSite().From.Address)
		return s, nil
	case demo:
		log.Info("SMTP_URL is not set: e-mails go to the dev mailbox, "+cfg.PublicURL+"/dev/mailbox", "from", cfg.mailSite().From.Address)
		return mail.Mailbox{Keep: store.KeepMail}, nil
	}
	log.Warn("SMTP_URL is not set: no e-mail is sent; tickets, cancellations and refund mails wait in the queue " +
		"until an instance with SMTP_URL (and MAIL_FROM) starts")
	return nil, nil
}
