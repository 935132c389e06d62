// Package notify sends the mail the store queues: the River worker of
// jobs.Mail. It reads what a mail says when it is sent (internal/postgres),
// writes it (internal/mail) and hands it to a Sender, recording the outcome
// on the mail so staff see what each booking's moviegoer was told.
//
// A mail goes once: its row is keyed (a booking's ticket, a refund's
// payment), its job is unique, and a mail recorded as sent is not sent
// again when its job runs again (a crash between sending and recording can
// still send it twice; its Message-ID is the same, so mail programs that
// see both show one).
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	gomail "github.com/wneessen/go-mail"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/mail"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Sender hands a message over: mail.SMTP, or demo mode's mail.Mailbox.
type Sender interface {
	Send(ctx context.Context, m *gomail.Msg) error
}

// Worker sends one queued mail a job.
type Worker struct {
	river.WorkerDefaults[jobs.Mail]
	Store  *postgres.Store
	Sender Sender
	Site   mail.Site
	Log    *slog.Logger     // may be nil
	Counts *metrics.Metrics // may be nil
}

// sendTimeout bounds one attempt, the SMTP conversation included.
const sendTimeout = time.Minute

func (w *Worker) Timeout(*river.Job[jobs.Mail]) time.Duration { return sendTimeout }

// Work sends mail job.Args.MailID unless it was sent already. A failed
// attempt is recorded on the mail and returned, for River to retry with
// its backoff; the last one marks the mail FAILED.
func (w *Worker) Work(ctx context.Context, job *river.Job[jobs.Mail]) error {
	id := job.Args.MailID
	m, err := w.Store.MailFacts(ctx, id)
	if errors.Is(err, booking.ErrNotFound) {
		return river.JobCancel(err)
	}
	if err != nil {
		return err
	}
	if m.Status != "QUEUED" && m.Status != "FAILED" {
		return nil // sent already (a job rescued or inserted again), or never to be sent
	}
	kind := string(m.Facts.Kind)
	msg, err := mail.Compose(w.Site, m.Facts)
	if err != nil {
		// Nothing to retry: the facts cannot make a message.
		w.failed(ctx, job, kind, err, true)
		return river.JobCancel(err)
	}
	if err := w.Sender.Send(ctx, msg); err != nil {
		w.failed(ctx, job, kind, err, job.Attempt >= job.MaxAttempts)
		return fmt.Errorf("mail %d: %w", id, err)
	}
	w.count(kind, "sent")
	if err := w.Store.MailSent(ctx, id, job.Attempt); err != nil {
		return err
	}
	w.log().Info("mail sent", "mail_id", id, "kind", m.Facts.Kind, "attempt", job.Attempt)
	return nil
}

func (w *Worker) failed(ctx context.Context, job *river.Job[jobs.Mail], kind string, cause error, final bool) {
	if final {
		w.count(kind, "gave_up")
	} else {
		w.count(kind, "failed")
	}
	w.log().Warn("mail not sent", "mail_id", job.Args.MailID, "attempt", job.Attempt, "gave_up", final, "err", cause)
	if err := w.Store.MailFailed(ctx, job.Args.MailID, job.Attempt, cause, final); err != nil {
		w.log().Error("record mail failure", "mail_id", job.Args.MailID, "err", err)
	}
}

func (w *Worker) count(kind, outcome string) {
	if w.Counts != nil {
		w.Counts.Mails.WithLabelValues(kind, outcome).Inc()
	}
}

func (w *Worker) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log
}
