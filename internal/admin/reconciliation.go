package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/reconcile"
)

// StuckRefundAttempts is how many failed attempts put a refund among the
// payments to check. The worker (internal/refunds) never gives up, its wait
// doubling up to an hour: after this many a person should look.
const StuckRefundAttempts = 5

// UnsettledCheckGrace is how long after its hold's deadline a payment check
// still open is a payment to check: the worker's last check comes
// reconcile.DefaultSettle after the deadline, so one still open well after
// it keeps failing to reach the provider.
const UnsettledCheckGrace = reconcile.DefaultSettle + 10*time.Minute

// MaxResolveNote bounds a resolution's note.
const MaxResolveNote = 1000

// AdminShow is showID, scheduled or cancelled, for an admin of its theatre.
func (s *Service) AdminShow(ctx context.Context, a Actor, showID int64) (catalog.AdminShow, error) {
	if _, err := s.requireShowFor(ctx, a, showID, SeeShows); err != nil {
		return catalog.AdminShow{}, err
	}
	return s.Store.AdminShow(ctx, showID)
}

// Reconciliation is the queue of payments whose story is unfinished, of
// the shows of a's theatres (a platform admin: every payment).
func (s *Service) Reconciliation(ctx context.Context, a Actor) ([]booking.ReconcileItem, error) {
	q := booking.ReconcileQuery{All: a.Platform(), RefundAttempts: StuckRefundAttempts, CheckGrace: UnsettledCheckGrace}
	if !a.Platform() {
		roles, err := s.Store.StaffRoles(ctx, a.UserID)
		if err != nil {
			return nil, err
		}
		q.Theatres = []int64{} // none but those the actor manages
		for theatre, role := range roles {
			if RoleCan(role, Manage) {
				q.Theatres = append(q.Theatres, theatre)
			}
		}
	}
	return s.Store.Reconciliation(ctx, q)
}

// What an admin does with a payment to check.
const (
	ReconcileRetry   = "retry"
	ReconcileResolve = "resolve"
)

// Reconcile acts on a payment to check: id is a payment's id, or for check
// (an unsettled checkout) its hold's. Retry makes a failed refund (or the
// check) due again; resolve takes it off the queue with note. A payment of
// no known show is a platform admin's alone.
func (s *Service) Reconcile(ctx context.Context, a Actor, check bool, id, action, note string) error {
	var theatre int64
	var err error
	object := "payment " + id
	if check {
		theatre, err = s.Store.TheatreOfCheck(ctx, id)
		object = "payment_check " + id
	} else {
		theatre, err = s.Store.TheatreOfPayment(ctx, id)
	}
	if err != nil {
		return err
	}
	if theatre == 0 && !a.Platform() {
		return fmt.Errorf("payment %q: %w", id, booking.ErrNotFound)
	}
	if theatre != 0 {
		if err := s.requireTheatre(ctx, a, theatre); err != nil {
			return err
		}
	}
	switch action {
	case ReconcileRetry:
		if check {
			err = s.Store.RetryPaymentCheck(ctx, id, auditEntry(a, theatre, "payment_check.retry", object, nil, nil))
		} else {
			_, err = s.Store.RetryRefund(ctx, id, auditEntry(a, theatre, "refund.retry", object, nil, nil))
		}
		if errors.Is(err, booking.ErrNothingToRetry) {
			return &catalog.FieldError{Field: "action", Message: "there is nothing to retry: no failed refund, or the check has finished"}
		}
		return err
	case ReconcileResolve:
		note = strings.TrimSpace(note)
		switch {
		case note == "":
			return &catalog.FieldError{Field: "note", Message: "say what was done, for whoever looks next"}
		case utf8.RuneCountInString(note) > MaxResolveNote:
			return &catalog.FieldError{Field: "note", Message: fmt.Sprintf("at most %d characters", MaxResolveNote)}
		case hasControl(strings.NewReplacer("\n", "", "\r", "", "\t", "").Replace(note)):
			return &catalog.FieldError{Field: "note", Message: "the note has characters that cannot be shown"}
		}
		key := "payment:" + id
		if check {
			key = "check:" + id
		}
		return s.Store.ResolveReconcile(ctx, key, a.UserID, note,
			auditEntry(a, theatre, "payment.resolve", object, nil, map[string]string{"note": note}))
	}
	return &catalog.FieldError{Field: "action", Message: "choose retry or resolve"}
}
