package web

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/zelvior/aidex/internal/atomicfile"
)

// DefaultPort is the first port `aidex web` tries.
const DefaultPort = 8420

// portScan is how many ports from DefaultPort are tried.
const portScan = 100

// NewToken returns a new random URL-safe token of 32 bytes (256 bits,
// 43 base64url characters). Errors come from the system's random source.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("web token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Listen opens the server's TCP listener on host: port > 0 binds exactly
// that port, port == 0 any free port, port < 0 the first free port from
// DefaultPort (8420..8519). Errors name the address and the fix.
func Listen(host string, port int) (net.Listener, error) {
	if port >= 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return nil, fmt.Errorf("listen on %s: %w (pick another --port, or --port 0 for any free port)", net.JoinHostPort(host, strconv.Itoa(port)), err)
		}
		return ln, nil
	}
	var last error
	for p := DefaultPort; p < DefaultPort+portScan; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err == nil {
			return ln, nil
		}
		last = err
		if !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
	}
	return nil, fmt.Errorf("listen on %s: no free port in %d-%d: %w (use --port 0 for any free port)", host, DefaultPort, DefaultPort+portScan-1, last)
}

// IsLoopback reports whether host names only this machine ("127.0.0.1",
// "::1", "localhost" and the rest of 127.0.0.0/8).
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL returns the page's address for a listener bound to host, with the
// token: "http://127.0.0.1:PORT/?token=TOKEN". A wildcard host gives the
// loopback address.
func URL(host string, addr net.Addr, token string) string {
	_, port, _ := net.SplitHostPort(addr.String())
	switch host {
	case "", "0.0.0.0", "::":
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/?token=" + token
}

// LoginURL returns the page's address with a one-time login code
// (Server.NewLoginCode) instead of the token:
// "http://127.0.0.1:PORT/?code=CODE". It is what `aidex web --open` hands
// to the browser opener, whose command line other users can read.
func LoginURL(host string, addr net.Addr, code string) string {
	return strings.Replace(URL(host, addr, code), "/?token=", "/?code=", 1)
}

// TokenFile is the content of the file `aidex web` writes in the state
// directory while it runs: the page URL with the token, the token, the
// port, the process id and the workspace.
type TokenFile struct {
	URL       string `json:"url"`
	Token     string `json:"token"`
	Port      int    `json:"port"`
	PID       int    `json:"pid"`
	Workspace string `json:"workspace"`
}

// TokenFilePath returns where the token file for port lives:
// STATEDIR/web/PORT.json.
func TokenFilePath(stateDir string, port int) string {
	return filepath.Join(stateDir, "web", strconv.Itoa(port)+".json")
}

// WriteTokenFile writes tf as JSON to TokenFilePath(stateDir, tf.Port)
// atomically, mode 0600 in a 0700 folder, and returns the path. Errors are
// I/O failures.
func WriteTokenFile(stateDir string, tf TokenFile) (string, error) {
	if stateDir == "" {
		return "", errors.New("web token file: no state directory (set HOME or XDG_STATE_HOME)")
	}
	path := TokenFilePath(stateDir, tf.Port)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("web token file: %w", err)
	}
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return "", fmt.Errorf("web token file: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("web token file %s: %w", path, err)
	}
	return path, nil
}
