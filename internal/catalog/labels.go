package catalog

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// PriceLabel formats what m costs for `aidex models`: "FREE" when m is free
// (or both prices are 0), "$0.15/$0.60 per 1M" (USD per 1M input/output
// tokens) when the price is known, "" when it is unknown.
func PriceLabel(m Model) string {
	if m.Free || (m.Price != nil && m.Price.Input == 0 && m.Price.Output == 0) {
		return "FREE"
	}
	if m.Price == nil {
		return ""
	}
	return "$" + formatUSD(m.Price.Input) + "/$" + formatUSD(m.Price.Output) + " per 1M"
}

// formatUSD prints at least two decimals and at most four, so 0.6 → "0.60",
// 3 → "3.00", 0.0375 → "0.0375", 0.123456 → "0.1235".
func formatUSD(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return "?"
	}
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(s, "0")
	if dot := strings.IndexByte(s, '.'); dot >= 0 {
		for len(s)-dot-1 < 2 {
			s += "0"
		}
	}
	return s
}

// ContextLabel formats a context window in tokens: 8192 → "8K", 131072 and
// 128000 → "128K", 200000 → "200K", 1048576 and 1000000 → "1M", 1500000 →
// "1.5M", under 1000 → the plain number; 0 or less → "" (unknown). Values
// that are multiples of 1024 but not of 1000 are read in binary units
// (1K = 1024), others in decimal.
func ContextLabel(tokens int) string {
	if tokens <= 0 {
		return ""
	}
	if tokens < 1000 {
		return strconv.Itoa(tokens)
	}
	kilo, mega := 1000.0, 1_000_000.0
	if tokens%1024 == 0 && tokens%1000 != 0 {
		kilo, mega = 1024, 1024*1024
	}
	t := float64(tokens)
	if t >= mega*0.995 {
		return trimUnit(t/mega) + "M"
	}
	return trimUnit(t/kilo) + "K"
}

// trimUnit prints v with no decimals when it is at least 100 or within 5% of
// a whole number (so 1047576 tokens reads "1M"), else with one decimal.
func trimUnit(v float64) string {
	r := math.Round(v)
	if r > 0 && math.Abs(v-r)/r < 0.05 || v >= 100 {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// ageLabel formats how long ago something happened: "just now", "5m", "3h",
// "2d".
func ageLabel(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
}
