package admin

import (
	"context"
	"errors"
	"net/mail"
	"strings"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/names"
)

// maxCounterSeats bounds one counter sale: a hold's most (the holds table
// allows 100).
const maxCounterSeats = 100

// Sell sells seats of showID at the counter (the box office and managers
// of its theatre): see postgres.(*Store).SellAtCounter. Every field at
// fault is reported at once (errors.Join of *catalog.FieldError).
func (s *Service) Sell(ctx context.Context, a Actor, sale booking.CounterSale) (booking.Booking, error) {
	if _, err := s.requireShowFor(ctx, a, sale.ShowID, Sell); err != nil {
		return booking.Booking{}, err
	}
	sale.Seller = a.UserID
	sale.Name, sale.Email, sale.Reason = strings.TrimSpace(sale.Name), strings.TrimSpace(sale.Email), strings.TrimSpace(sale.Reason)
	var bad []error
	field := func(name, msg string) { bad = append(bad, &catalog.FieldError{Field: name, Message: msg}) }
	switch sale.PaidBy {
	case booking.PaidCash, booking.PaidCard:
	case booking.PaidComplimentary:
		if sale.Reason == "" {
			field("reason", "say why these seats are given away")
		}
	default:
		field("paid_by", "choose cash, card or complimentary")
	}
	if n := len([]rune(sale.Name)); n == 0 || n > 100 || hasControl(sale.Name) {
		field("customer.name", "enter the customer's name (at most 100 characters)")
	} else if r, hidden := names.Hidden(sale.Name); hidden {
		field("customer.name", names.Problem("the customer's name", r))
	}
	if sale.Email != "" {
		if addr, err := mail.ParseAddress(sale.Email); err != nil || addr.Address != sale.Email || len(sale.Email) > 254 {
			field("customer.email", "enter an e-mail address such as name@example.com, or leave it out")
		}
	}
	if len([]rune(sale.Reason)) > 500 || hasControl(sale.Reason) {
		field("reason", "say why in at most 500 characters")
	}
	if !booking.ValidKey(sale.Key) {
		field("idempotency_key", "send an Idempotency-Key of 1 to 255 printable characters")
	}
	if len(bad) > 0 {
		return booking.Booking{}, errors.Join(bad...)
	}
	sale.Email = strings.ToLower(sale.Email)
	return s.Store.SellAtCounter(ctx, sale, maxCounterSeats)
}

// CounterShow is showID as its counter shows it (the box office and
// managers of its theatre).
func (s *Service) CounterShow(ctx context.Context, a Actor, showID int64) (catalog.AdminShow, error) {
	if _, err := s.requireShowFor(ctx, a, showID, Sell); err != nil {
		return catalog.AdminShow{}, err
	}
	return s.Store.AdminShow(ctx, showID)
}
