package format

import "github.com/marquee-tickets/marquee/internal/money"

// TooLarge is how a page writes a sum of money that cannot be
// represented (money.Total's Overflow), in place of a wrong figure.
const TooLarge = "too large to show"

// Total is a sum of money as a page writes it: Money, or TooLarge.
func Total(t money.Total, currency string) string {
	if t.Overflow {
		return TooLarge
	}
	return Money(t.Minor, currency)
}
