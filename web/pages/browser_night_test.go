package pages_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/ticket"
)

// TestBrowserCinemaNight follows a cinema night from the manager's desk: a
// show sold online, in cash, by card and complimentary. The show's page,
// never reloaded, counts the ticket an usher admits at the door (the same
// live region, told the new figure by its poll); the sales report splits
// the night by channel. axe-core finds nothing wrong with either page, at
// a desktop's width and a phone's, and neither scrolls sideways.
func TestBrowserCinemaNight(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	ctx := context.Background()
	s := newSite(t, siteConfig{})
	show := s.newShow(4, 6)
	theatre := scalar[int64](s, `SELECT sc.theatre_id FROM shows sh JOIN screens sc ON sc.id = sh.screen_id WHERE sh.id = $1`, show)
	staff := func(role string) (id, email string) {
		id = pgtest.User(t, s.Store)
		pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, id)
		pgtest.Exec(t, s.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, $3)`, theatre, id, role)
		return id, scalar[string](s, `SELECT email FROM users WHERE id = $1`, id)
	}
	_, managerEmail := staff("manager")
	deskID, _ := staff("box_office")
	usherID, _ := staff("usher")

	svc := &admin.Service{Store: s.Store}
	actor := func(id string) admin.Actor {
		a, err := svc.Actor(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	online := s.confirmed(show, "C3", "C4")
	desk := actor(deskID)
	for _, sale := range []booking.CounterSale{
		{Seats: []string{"A1"}, PaidBy: booking.PaidCash},
		{Seats: []string{"A2", "A3"}, PaidBy: booking.PaidCard},
		{Seats: []string{"B1"}, PaidBy: booking.PaidComplimentary, Reason: "Press screening"},
	} {
		sale.ShowID, sale.Name, sale.Key = show, "Walk-in", string(sale.PaidBy)
		if _, err := svc.Sell(ctx, desk, sale); err != nil {
			t.Fatal(err)
		}
	}

	// The manager's show page, open while the usher admits the online
	// booking's pair.
	showPath := fmt.Sprintf("/admin/shows/%d", show)
	mt := s.adminTab(t, browser, "night-manager", managerEmail, desktop)
	mt.open(showPath)
	mt.waitVisible("[data-admitted-live]")
	wantText(t, "the admitted figure", mt.Text("[data-admitted-live]"), "Admitted 0 of 6")
	mt.lookLoaded("desktop show before the door opens")
	eval[bool](mt, `(window.nightLive = document.querySelector('[data-admitted-live]'), true)`)
	if _, err := svc.CheckIn(ctx, actor(usherID), show, ticket.DevKeys().Code(online.Code, show), "North"); err != nil {
		t.Fatal(err)
	}
	mt.waitForWithin("the admitted figure to change by itself", `document.querySelector('[data-admitted-live]').textContent.replace(/\s+/g, ' ').trim() === 'Admitted 2 of 6'`, 20*time.Second)
	// The same page and the same live region: only its figure was swapped.
	if !eval[bool](mt, `window.nightLive === document.querySelector('[data-admitted-live]') && window.nightLive.isConnected`) {
		t.Fatal("the page was reloaded, or its live region replaced")
	}
	mt.lookLoaded("desktop show after an admission")

	// The sales report, split by channel.
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	day := scalar[time.Time](s, `SELECT starts_at FROM shows WHERE id = $1`, show).In(kolkata).Format(time.DateOnly)
	salesPath := fmt.Sprintf("/admin/reports/sales?theatre_id=%d&from=%s&to=%s", theatre, day, day)
	price := pgtest.Prices["STANDARD"]
	mt.open(salesPath)
	mt.waitVisible("[data-channels-table]")
	wantText(t, "the online total", mt.Text(`[data-channel-total="online"]`), "2 tickets", rupees(2*price))
	wantText(t, "the box office total", mt.Text(`[data-channel-total="box-office"]`), "3 tickets", rupees(3*price), "cash 1 ticket", "card 2 tickets")
	wantText(t, "the complimentary total", mt.Text(`[data-channel-total="complimentary"]`), "1 ticket")
	mt.lookLoaded("desktop sales by channel")

	ph := s.adminTab(t, browser, "night-manager-phone", managerEmail, phone)
	ph.open(salesPath)
	ph.waitVisible("[data-channels-list]")
	if eval[bool](ph, `getComputedStyle(document.querySelector('[data-channels-table]').parentElement).display !== 'none'`) {
		t.Fatal("a phone shows the wide table of channels")
	}
	wantText(t, "a phone's card of the show", ph.Text(fmt.Sprintf(`[data-channel-card="%d"]`, show)), "Online", "Box office", "of which cash", "Complimentary")
	ph.lookLoaded("phone sales by channel")
	ph.open(showPath)
	ph.waitVisible(`#seatmap[data-ready="true"]`)
	wantText(t, "the admitted figure on a phone", ph.Text("[data-admitted-live]"), "Admitted 2 of 6")
	ph.lookLoaded("phone show")
}
