package pages_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestAddCategoryInBrowser: a theatre admin paints a row of a screen on
// sale in a seat category its show has no price for, saves, is asked for
// the new category's price there and then, gives one for every show and
// another for the show itself, and saves the layout and the price in one
// step; at 1280 and 390 px, axe-core finding nothing wrong on the way.
func TestAddCategoryInBrowser(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			addCategory(t, browser, vp)
		})
	}
}

func addCategory(t *testing.T, browser context.Context, vp viewport) {
	s, email := adminSite(t, siteConfig{})
	ctx := context.Background()
	theatre := s.adminTheatre()
	screen, err := s.Store.CreateScreen(ctx, theatre, "Screen 1", pgtest.Grid(4, 6))
	if err != nil {
		t.Fatal(err)
	}
	movie, err := s.Store.CreateMovie(ctx, catalog.Movie{Title: "The Long Reel", DurationMinutes: 100})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(72 * time.Hour)
	show, err := s.Store.CreateShow(ctx, catalog.Show{MovieID: movie, ScreenID: screen, StartsAt: at, EndsAt: at.Add(2 * time.Hour),
		Currency: "INR", Prices: pgtest.Prices})
	if err != nil {
		t.Fatal(err)
	}

	ad := s.adminTab(t, browser, "add-category-"+vp.name, email, vp)
	ad.open(fmt.Sprintf("/admin/screens/%d", screen))
	ad.waitVisible(`[data-editor-tools]`)
	// A new brush, and the front row painted with it.
	ad.fill("new-category", "VIP")
	ad.click(`[data-cmd="add-category"]`)
	ad.waitFor("the VIP brush chosen", `!!document.querySelector('input[name=brush][value="seat:VIP"]:checked')`)
	ad.click(`[data-cmd="paint-row"]`)
	ad.waitFor("row A painted VIP", `document.querySelector('[data-layout-json]').value.includes('"VIP"')`)
	ad.click(`#layout-form button[type=submit]`)

	// Asked for the price, the row still drawn.
	ad.waitVisible("#new-prices")
	if !eval[bool](ad, `document.querySelector('[data-layout-json]').value.includes('"VIP"')`) {
		t.Fatal("the draft was lost when the prices were asked for")
	}
	wantText(t, "the notice", ad.Text("#editor-notice"), "no price for")
	ad.lookLoaded("asked for the new category's prices")
	if n := scalar[int64](s, `SELECT count(*) FROM show_seats WHERE show_id = $1 AND category = 'VIP'`, show); n != 0 {
		t.Fatalf("%d seats became VIP before the price was given", n)
	}

	// A price that cannot be read is named at its field, nothing saved.
	all, own := "newprice-VIP-INR", fmt.Sprintf("newprice-VIP-show-%d", show)
	ad.fill(all, "six hundred")
	ad.click(`#layout-form button[type=submit]`)
	ad.waitVisible("#" + all + "-error")
	ad.look("a price that cannot be read")

	// One price for all, another for the show itself: saved together.
	ad.fill(all, "600")
	ad.click(`#new-prices details summary`)
	ad.fill(own, "750.50")
	ad.click(`#layout-form button[type=submit]`)
	ad.waitFor("the layout saved with its price", `new URLSearchParams(location.search).get("priced") === "1" && !!document.querySelector('#editor-notice[data-notice="success"]')`)
	wantText(t, "the saved notice", ad.Text("#editor-notice"), "1 upcoming show now has a price")
	ad.lookLoaded("saved with the new category's price")
	if got := scalar[int64](s, `SELECT price_minor FROM show_prices WHERE show_id = $1 AND category = 'VIP'`, show); got != 75050 {
		t.Fatalf("the show's VIP price is %d, want 75050", got)
	}
	if n := scalar[int64](s, `SELECT count(*) FROM show_seats WHERE show_id = $1 AND category = 'VIP'`, show); n != 6 {
		t.Fatalf("%d seats of the show are VIP, want row A's 6", n)
	}
}
