package money_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/money"
)

func TestValidCurrency(t *testing.T) {
	for code, want := range map[string]bool{
		"INR": true, "USD": true, "EUR": true, "JPY": true, "KWD": true, "GBP": true,
		"XYZ": false, // never assigned
		"DEM": false, // withdrawn in 2002
		"XXX": false, // no currency
		"inr": false, "": false, "INRR": false, "IN": false,
	} {
		if got := money.ValidCurrency(code); got != want {
			t.Errorf("ValidCurrency(%q) = %v, want %v", code, got, want)
		}
	}
}

func TestDigits(t *testing.T) {
	for code, want := range map[string]int{"INR": 2, "USD": 2, "EUR": 2, "JPY": 0, "KWD": 3, "IDR": 2} {
		if got := money.Digits(code); got != want {
			t.Errorf("Digits(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		minor int64
		code  string
		want  string
	}{
		{45000, "INR", "₹450"},
		{45050, "INR", "₹450.50"},
		{123456789, "INR", "₹12,34,567.89"}, // lakh grouping for rupees only
		{123456789, "USD", "$1,234,567.89"},
		{123456789, "EUR", "€1,234,567.89"},
		{1500, "JPY", "¥1,500"}, // yen have no decimals
		{1250, "KWD", "KWD\u00a01.250"},
		{1000, "KWD", "KWD\u00a01"},
		{5, "USD", "$0.05"},
		{-45050, "INR", "-₹450.50"},
		{money.MaxPriceMinor, "JPY", "¥1,000,000,000"},
	} {
		if got := money.Format(c.minor, c.code); got != c.want {
			t.Errorf("Format(%d, %s) = %q, want %q", c.minor, c.code, got, c.want)
		}
	}
}

func TestPlain(t *testing.T) {
	for _, c := range []struct {
		minor int64
		code  string
		want  string
	}{
		{25000, "INR", "250"}, {25050, "INR", "250.50"}, {5, "EUR", "0.05"},
		{1500, "JPY", "1500"}, {1250, "KWD", "1.250"}, {3000, "KWD", "3"},
	} {
		if got := money.Plain(c.minor, c.code); got != c.want {
			t.Errorf("Plain(%d, %s) = %q, want %q", c.minor, c.code, got, c.want)
		}
	}
}

func TestParsePrice(t *testing.T) {
	for _, c := range []struct {
		typed, code string
		want        int64
	}{
		{"250", "INR", 25000},
		{" 250.5 ", "INR", 25050},
		{"7,50", "EUR", 750}, // a decimal comma
		{"7,5", "EUR", 750},
		{"1,23", "INR", 123},
		{"1.234,50", "EUR", 123450},
		{"1,234.50", "EUR", 123450},
		{"1,234.50", "USD", 123450},
		{"1,234,567", "USD", 123456700},
		{"1.234.567", "EUR", 123456700},
		{"12,34,567.89", "INR", 123456789},
		{"1,500", "JPY", 1500}, // JPY has no decimals: a thousands comma
		{"1.500", "JPY", 1500},
		{"1500", "JPY", 1500},
		{"1.5", "KWD", 1500},
		{"1.505", "KWD", 1505}, // a point is a decimal point
		{"2,125", "KWD", 0},    // ambiguous: see below
		{"0", "EUR", 0},
		{"10000000", "INR", money.MaxPriceMinor},
		{"1000000000", "JPY", money.MaxPriceMinor},
		{"1000000", "KWD", money.MaxPriceMinor},
	} {
		got, err := money.ParsePrice(c.typed, c.code)
		if c.typed == "2,125" {
			if err == nil {
				t.Errorf("ParsePrice(%q, %s) = %d, want it refused as ambiguous", c.typed, c.code, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParsePrice(%q, %s) = %d, %v; want %d", c.typed, c.code, got, err, c.want)
		}
	}
}

func TestParsePriceRefuses(t *testing.T) {
	for _, c := range []struct {
		typed, code string
		says        []string // what the message must show: the readings and what to type
	}{
		{"1,500", "EUR", []string{"could be €1,500", "or €1.50", "type 1500 or 1.50"}},
		{"1,505", "EUR", []string{"could be €1,505", "1.505", "type 1505"}},
		{"2,125", "KWD", []string{"KWD\u00a02,125", "KWD\u00a02.125", "type 2125 or 2.125"}},
		{"7.505", "EUR", []string{"reads as 7.505", "EUR has 2 decimals", "such as 7.50", "7505 without a point for €7,505"}},
		{"15.5", "JPY", []string{"reads as 15.5", "JPY has no decimals", "such as 15"}},
		{"-5", "INR", []string{"negative"}},
		{"abc", "INR", []string{"not a number", "such as 250 or 250.55"}},
		{"", "INR", []string{"Give a price"}},
		{"1,2,3", "INR", []string{"every three digits"}},
		{"7.", "EUR", []string{"not a whole price"}},
		{"10000000.01", "INR", []string{"more than a seat may cost", "₹1,00,00,000", "type 10000000"}},
		{"9223372036854775807", "INR", []string{"more than a seat may cost", "₹1,00,00,000"}},
		{"99999999999999999999999", "JPY", []string{"more than a seat may cost", "¥1,000,000,000"}},
		{"1000000001", "JPY", []string{"more than a seat may cost", "type 1000000000"}},
	} {
		got, err := money.ParsePrice(c.typed, c.code)
		var pe *money.PriceError
		if !errors.As(err, &pe) {
			t.Errorf("ParsePrice(%q, %s) = %d, %v; want a PriceError", c.typed, c.code, got, err)
			continue
		}
		for _, s := range c.says {
			if !strings.Contains(pe.Message, s) {
				t.Errorf("ParsePrice(%q, %s): %q does not say %q", c.typed, c.code, pe.Message, s)
			}
		}
	}
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"250", "7,50", "1.234,50", "1,500", "12,34,567.89", "9223372036854775807", "1e9"} {
		f.Add(s, "EUR")
		f.Add(s, "JPY")
		f.Add(s, "KWD")
	}
	f.Fuzz(func(t *testing.T, typed, code string) {
		if !money.ValidCurrency(code) {
			return
		}
		minor, err := money.ParsePrice(typed, code)
		if err != nil {
			return
		}
		if !money.ValidPrice(minor) {
			t.Fatalf("ParsePrice(%q, %s) = %d, outside the price bounds", typed, code, minor)
		}
		// What Plain writes reads back as the same amount.
		if again, err := money.ParsePrice(money.Plain(minor, code), code); err != nil || again != minor {
			t.Fatalf("ParsePrice(Plain(%d, %s) = %q) = %d, %v", minor, code, money.Plain(minor, code), again, err)
		}
	})
}
