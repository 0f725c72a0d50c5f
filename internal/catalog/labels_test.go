package catalog

import (
	"testing"
	"time"
)

func TestPriceLabel(t *testing.T) {
	cases := []struct {
		m    Model
		want string
	}{
		{Model{Price: &Price{Input: 0.15, Output: 0.6}}, "$0.15/$0.60 per 1M"},
		{Model{Price: &Price{Input: 3, Output: 15}}, "$3.00/$15.00 per 1M"},
		{Model{Price: &Price{Input: 0.0375, Output: 0.15}}, "$0.0375/$0.15 per 1M"},
		{Model{Price: &Price{Input: 0.123456, Output: 1.5}}, "$0.1235/$1.50 per 1M"},
		{Model{Price: &Price{Input: 0, Output: 0}}, "FREE"},
		{Model{Free: true, Price: &Price{Input: 0.3, Output: 2.5}}, "FREE"},
		{Model{Free: true}, "FREE"},
		{Model{}, ""},
		{Model{Price: &Price{Input: -1, Output: 2}}, "$?/$2.00 per 1M"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, PriceLabel(tc.m), "%+v", tc.m.Price)
	}
}

func TestContextLabel(t *testing.T) {
	cases := map[int]string{
		0: "", -5: "", 512: "512", 999: "999",
		1000: "1K", 1500: "1.5K", 4096: "4K", 8192: "8K", 8000: "8K", 32768: "32K",
		40960: "40K", 128000: "128K", 131072: "128K", 163840: "160K", 200000: "200K",
		256000: "256K", 262144: "256K", 400000: "400K", 990000: "990K",
		1000000: "1M", 1047576: "1M", 1048576: "1M", 1500000: "1.5M", 2000000: "2M", 2097152: "2M",
	}
	for tokens, want := range cases {
		require.Equal(t, want, ContextLabel(tokens), "ContextLabel(%d)", tokens)
	}
}

func TestAgeLabel(t *testing.T) {
	require.Equal(t, "just now", ageLabel(10*time.Second))
	require.Equal(t, "5m ago", ageLabel(5*time.Minute+3*time.Second))
	require.Equal(t, "3h ago", ageLabel(3*time.Hour+59*time.Minute))
	require.Equal(t, "47h ago", ageLabel(47*time.Hour))
	require.Equal(t, "3d ago", ageLabel(80*time.Hour))
}
