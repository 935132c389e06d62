package jobs

import "github.com/riverqueue/river"

// QueueMail is the queue of e-mails. Only an instance that can send mail
// (SMTP_URL, or the dev mailbox of demo mode) works it: elsewhere mail
// waits in the queue rather than failing.
const QueueMail = "mail"

// Mail sends queued mail MailID (a row of the mails table). One job per
// mail, whatever inserts it again.
type Mail struct {
	MailID int64 `json:"mail_id"`
}

func (Mail) Kind() string { return "mail" }

// MailAttempts is how many times a mail is tried before it is marked
// failed for staff to see: River's waits add up to about a day and a half,
// past which a ticket mail is little use.
const MailAttempts = 15

func (Mail) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMail, MaxAttempts: MailAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}
