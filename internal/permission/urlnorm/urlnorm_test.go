package urlnorm

import "testing"

func TestNormalizeForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://blocked.example/x", "https://blocked.example/x"},
		{"HTTPS://BLOCKED.EXAMPLE/x", "https://blocked.example/x"},
		{"https://blocked.example:443/x", "https://blocked.example/x"},
		{"https://blocked.example:0443/x", "https://blocked.example/x"},
		{"http://blocked.example:80/x", "http://blocked.example/x"},
		{"https://blocked.example:80/x", "https://blocked.example:80/x"},
		{"https://blocked.example:/x", "https://blocked.example/x"},
		{"https://blocked.example./x", "https://blocked.example/x"},
		{"https://blocked.example../x", "https://blocked.example/x"},
		{"https://u@blocked.example/x", "https://blocked.example/x"},
		{"https://u:p@blocked.example/x", "https://blocked.example/x"},
		{" https://blocked.example/x", "https://blocked.example/x"},
		{"\thttps://blocked.example/x \n", "https://blocked.example/x"},
		{"https://blocked%2Eexample/x", "https://blocked.example/x"},
		{"https://BL%4FCKED.example/x", "https://blocked.example/x"},
		{"https://ｂｌｏｃｋｅｄ.example/x", "https://blocked.example/x"},
		{"https://bücher.example/", "https://xn--bcher-kva.example/"},
		{"https://blocked.example", "https://blocked.example/"},
		{"https://blocked.example?q=1", "https://blocked.example/?q=1"},
		{"https://blocked.example/x#frag", "https://blocked.example/x"},
		{"https://blocked.example/a/../x", "https://blocked.example/x"},
		{"https://blocked.example/a/%2e%2e/x", "https://blocked.example/x"},
		{"https://blocked.example/./x/.", "https://blocked.example/x/"},
		{"https://blocked.example/%7euser/%2f", "https://blocked.example/~user/%2F"},
		{"http://[::ffff:127.0.0.1]/", "http://127.0.0.1/"},
		{"http://[0:0::1]:8080/", "http://[::1]:8080/"},
		{"http://127.0.0.1./", "http://127.0.0.1/"},
	} {
		got, err := Normalize(c.in)
		if err != nil || got != c.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestNormalizeRefuses(t *testing.T) {
	for _, in := range []string{"", "blocked.example/x", "https:blocked.example/x", "https://./x",
		"https://blocked.example:99999/", "https://blocked.example:x/", "https://a b/", "http://xn--a.example/"} {
		if got, err := Normalize(in); err == nil {
			t.Errorf("Normalize(%q) = %q, want an error", in, got)
		}
	}
}

func TestPattern(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://blocked.example/*", "https://blocked.example/*"},
		{"HTTPS://Blocked.Example:443/*", "https://blocked.example/*"},
		{"https://blocked.example./*", "https://blocked.example/*"},
		{"https://*.Example.COM/*", "https://*.example.com/*"},
		{"https://blocked.example", "https://blocked.example/"},
		{"https://bücher.example/*", "https://xn--bcher-kva.example/*"},
		{"http://h:80/x", "http://h/x"},
		{"*blocked.example*", "*blocked.example*"},
		{"*://Blocked.example/*", "*://blocked.example/*"},
	} {
		if got := Pattern(c.in); got != c.want {
			t.Errorf("Pattern(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
