package schedule

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/web"
)

// PriceReading says how a price typed in a schedule form reads: GET
// /admin/price-reading?currency=EUR&price-…=7,50 answers "Reads as €7.50",
// or why it cannot be read. Each price field asks as the admin types, so
// what it shows is what saving the form stores: the same parser reads
// both.
func (h *Handlers) PriceReading(c echo.Context) error {
	currency := strings.ToUpper(strings.TrimSpace(c.QueryParam("currency")))
	var typed string
	for name, values := range c.QueryParams() {
		// The field sends itself under its own name, price-<screen>-<category>.
		if strings.HasPrefix(name, "price-") && len(values) > 0 {
			typed = values[0]
		}
	}
	return web.Render(c, http.StatusOK, adminview.PriceReadingText(priceReading(typed, currency)))
}

// priceReading is what a price field says of typed in currency: nothing
// while it is empty.
func priceReading(typed, currency string) adminview.PriceReading {
	if strings.TrimSpace(typed) == "" {
		return adminview.PriceReading{}
	}
	if !money.ValidCurrency(currency) {
		return adminview.PriceReading{Text: "Give the currency first, such as INR or EUR.", Problem: true}
	}
	minor, err := money.ParsePrice(typed, currency)
	if err != nil {
		return adminview.PriceReading{Text: priceProblem(err), Problem: true}
	}
	return adminview.PriceReading{Text: "Reads as " + format.Money(minor, currency)}
}
