package money

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bojanz/currency"
)

// Currency knowledge comes from ISO 4217 and CLDR as github.com/bojanz/currency
// carries them: which codes are current, how many decimals each has (JPY 0,
// KWD 3, most 2) and how a person expects an amount written.

// ValidCurrency reports whether code is a current ISO 4217 currency code in
// capitals, such as INR: withdrawn codes (DEM), codes ISO never assigned (XYZ)
// and the codes of no currency (XXX, XTS) are not.
func ValidCurrency(code string) bool {
	if code == "" || code != strings.ToUpper(code) || !currency.IsValid(code) {
		return false
	}
	_, ok := currency.GetDigits(code)
	return ok
}

// Digits is how many decimals code's amounts have, its minor unit in ISO
// 4217: 2 for INR, USD and EUR, 0 for JPY, 3 for KWD.
func Digits(code string) int {
	d, ok := currency.GetDigits(code)
	if !ok {
		return 2
	}
	return int(d)
}

// Locale is the CLDR locale whose conventions amounts in code are written
// by: en-IN for rupees (12,34,567.89, lakh and crore grouping), en
// otherwise (1,234,567.89). The seat map's script formats with the same
// locale, so the browser and the server write the same string.
func Locale(code string) string {
	if code == "INR" {
		return "en-IN"
	}
	return "en"
}

// Format writes an amount of code's minor units as a person reads it: its
// symbol, grouped digits, and its decimals only when it has some, e.g.
// 45000 INR -> ₹450, 45050 INR -> ₹450.50, 1500 JPY -> ¥1,500, 1250 KWD ->
// KWD 1.250. A code Marquee does not know is written before the number.
func Format(minor int64, code string) string {
	digits := Digits(code)
	n := decimal(minor, digits)
	amount, err := currency.NewAmount(n, code)
	if err != nil {
		return code + "\u00a0" + n
	}
	f := currency.NewFormatter(currency.NewLocale(Locale(code)))
	f.MinDigits = 0 // a whole amount is written without decimals
	if minor%pow10(digits) != 0 {
		f.MinDigits = uint8(digits)
	}
	f.MaxDigits = uint8(digits)
	return f.Format(amount)
}

// Plain writes an amount of code's minor units as a person types it into a
// price field: no symbol, no grouping, a decimal point, decimals only when it
// has some (25000 INR -> 250, 25050 INR -> 250.50, 1500 JPY -> 1500).
func Plain(minor int64, code string) string {
	digits := Digits(code)
	if minor%pow10(digits) == 0 {
		return strconv.FormatInt(minor/pow10(digits), 10)
	}
	return decimal(minor, digits)
}

// decimal writes minor units as a decimal number with digits decimals.
func decimal(minor int64, digits int) string {
	s := strconv.FormatInt(minor, 10)
	if digits == 0 {
		return s
	}
	sign := ""
	if minor < 0 {
		sign, s = "-", s[1:]
	}
	if len(s) <= digits {
		s = strings.Repeat("0", digits-len(s)+1) + s
	}
	return sign + s[:len(s)-digits] + "." + s[len(s)-digits:]
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// PriceError is a price typed in a form that cannot be read, or not read
// one way only. Message says how it was read and what to type instead.
type PriceError struct {
	Typed   string
	Message string
}

func (e *PriceError) Error() string { return e.Message }

// ParsePrice reads a seat's price typed in code's major units, as people
// type it in their own convention: 250, 7.50, 7,50 (a decimal comma),
// 1,234.50, 1.234,50, 12,34,567 (Indian grouping).
//
// When both a comma and a point appear, the last is the decimal separator
// and the other groups digits. A separator that appears several times
// groups digits. A single one followed by exactly three digits groups
// thousands in a currency without decimals (1,500 yen); in one with
// decimals a comma there is ambiguous (1,500 euros: 1500 or 1.50?) and is
// refused, and a point is a decimal point. Any other single separator is
// a decimal one. More decimals than the currency has, a negative price
// and a price above MaxPriceMinor are refused; nothing is rounded.
func ParsePrice(typed, code string) (int64, error) {
	s := strings.TrimSpace(typed)
	digits := Digits(code)
	refuse := func(format string, args ...any) (int64, error) {
		return 0, &PriceError{Typed: s, Message: fmt.Sprintf(format, args...)}
	}
	example := "250"
	if digits > 0 {
		example = "250 or 250." + strings.Repeat("5", digits)
	}
	if s == "" {
		return refuse("Give a price, such as %s.", example)
	}
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "−") {
		return refuse("“%s” is negative: a price is 0 or more.", s)
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != ',' && r != '.' {
			return refuse("“%s” is not a number: type digits only, such as %s.", s, example)
		}
	}
	if strings.Count(s, ",")+strings.Count(s, ".")+15+digits < len(s) {
		return refuse("“%s” is more than a seat may cost. %s", s, largest(code))
	}
	whole, frac, group, point := s, "", "", ""
	lastComma, lastDot := strings.LastIndex(s, ","), strings.LastIndex(s, ".")
	switch {
	case lastComma >= 0 && lastDot >= 0:
		// Both: the last one is the decimal separator, the other groups.
		point, group = ".", ","
		if lastComma > lastDot {
			point, group = ",", "."
		}
		i := strings.LastIndex(s, point)
		if strings.Count(s, point) > 1 {
			return refuse("“%s” has more than one decimal separator “%s”.", s, point)
		}
		whole, frac = s[:i], s[i+1:]
	case lastComma >= 0 || lastDot >= 0:
		sep := ","
		if lastDot >= 0 {
			sep = "."
		}
		whole, frac, _ = strings.Cut(s, sep)
		switch {
		case strings.Count(s, sep) > 1:
			whole, frac, group = s, "", sep // 1,234,567
		case len(frac) == 3 && digits == 0:
			whole, frac, group = s, "", sep // 1,500 yen: JPY has no decimals
		case len(frac) == 3 && sep == ",":
			return refuse("%s", ambiguous(s, whole, frac, code))
		default:
			point = sep
		}
	}
	if group != "" {
		var err error
		if whole, err = ungroup(whole, group); err != nil {
			return refuse("“%s” does not read as a number: its %s separators are not every three digits. Type it without them, such as %s.", s, separatorName(group), example)
		}
	}
	if whole == "" || (point != "" && frac == "") {
		return refuse("“%s” is not a whole price: type digits on both sides of the separator, such as %s.", s, example)
	}
	if len(frac) > digits {
		if digits == 0 {
			return refuse("“%s” reads as %s.%s, but %s has no decimals: type a whole number, such as %s.", s, whole, frac, code, whole)
		}
		msg := fmt.Sprintf("“%s” reads as %s.%s, but %s has %d decimals: type at most %d, such as %s.%s",
			s, whole, frac, code, digits, digits, whole, frac[:digits])
		if n := strings.TrimLeft(whole+frac, "0"); n != "" && len(n) <= 15 {
			msg += fmt.Sprintf(", or %s without a point for %s", n, Format(minorUnits(n, "", digits), code))
		}
		return refuse("%s.", msg)
	}
	if len(strings.TrimLeft(whole, "0")) > 15 {
		return refuse("“%s” is more than a seat may cost. %s", s, largest(code))
	}
	minor := minorUnits(whole, frac, digits)
	if !ValidPrice(minor) {
		return refuse("%s is more than a seat may cost. %s", Format(minor, code), largest(code))
	}
	return minor, nil
}

// largest names the largest price in code, as shown and as typed.
func largest(code string) string {
	return fmt.Sprintf("The largest price is %s (type %s).", Format(MaxPriceMinor, code), Plain(MaxPriceMinor, code))
}

// ambiguous says how s, a number with one comma followed by three digits
// in a currency with decimals, reads both ways, and what to type for each.
func ambiguous(s, whole, frac, code string) string {
	digits := Digits(code)
	thousands := whole + frac
	if len(strings.TrimLeft(thousands, "0")) > 15 {
		return fmt.Sprintf("“%s” is more than a seat may cost. %s", s, largest(code))
	}
	asThousands := minorUnits(thousands, "", digits)
	short := strings.TrimRight(frac, "0")
	if len(short) > digits {
		return fmt.Sprintf("“%s” could be %s (with a thousands comma), or %s.%s (with a decimal comma), more decimals than %s has: type %s, or a point and at most %d decimals.",
			s, Format(asThousands, code), whole, frac, code, Plain(asThousands, code), digits)
	}
	asDecimal := minorUnits(whole, short, digits)
	return fmt.Sprintf("“%s” could be %s (with a thousands comma) or %s (with a decimal comma): type %s or %s.",
		s, Format(asThousands, code), Format(asDecimal, code), Plain(asThousands, code), Plain(asDecimal, code))
}

// minorUnits is whole.frac in minor units of a currency with digits
// decimals; whole has at most 15 digits and frac at most digits.
func minorUnits(whole, frac string, digits int) int64 {
	return atoi(whole)*pow10(digits) + atoi(frac+strings.Repeat("0", digits-len(frac)))
}

// PriceTooHigh is the sentence that refuses a price above MaxPriceMinor in
// code, naming the largest.
func PriceTooHigh(code string) string {
	return fmt.Sprintf("the largest price of a seat is %s (%d in minor units)", Format(MaxPriceMinor, code), MaxPriceMinor)
}

// ungroup takes the group separators out of whole: every group after the
// first has three digits, or two before a last of three (Indian grouping,
// 12,34,567).
func ungroup(whole, sep string) (string, error) {
	groups := strings.Split(whole, sep)
	first, rest := groups[0], groups[1:]
	if first == "" || len(first) > 3 || len(rest) == 0 || len(rest[len(rest)-1]) != 3 {
		return "", fmt.Errorf("groups %q", groups)
	}
	for _, g := range rest[:len(rest)-1] {
		if len(g) != 3 && len(g) != 2 {
			return "", fmt.Errorf("groups %q", groups)
		}
		if len(g) != len(rest[0]) {
			return "", fmt.Errorf("groups %q", groups)
		}
	}
	return strings.Join(groups, ""), nil
}

// separatorName names a separator in a message.
func separatorName(sep string) string {
	if sep == "," {
		return "comma"
	}
	return "point"
}

// atoi is the value of a string of at most 18 decimal digits ("" is 0).
func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// Pattern is how Format writes code's amounts, in parts a script can follow
// without Intl.NumberFormat (whose first use costs a long task on a slow
// phone): what comes before and after the number, the size of the digit
// groups after the last three (2 for the lakh grouping of rupees, 3
// otherwise), and the decimals, written only when an amount has some.
type Pattern struct {
	Prefix, Suffix string
	Group, Digits  int
}

// PatternOf is code's Pattern, read off Format's own writing of one unit.
func PatternOf(code string) Pattern {
	p := Pattern{Group: 3, Digits: Digits(code)}
	if Locale(code) == "en-IN" {
		p.Group = 2
	}
	p.Prefix, p.Suffix, _ = strings.Cut(Format(pow10(p.Digits), code), "1")
	return p
}
