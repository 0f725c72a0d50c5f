package dist

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/zelvior/aidex/internal/companion"
)

// EmbeddedOptions configure the coordinator's own NATS server. StoreDir
// holds JetStream's files; Listen is host:port ("": a random loopback
// port). A non-loopback Listen needs TLS (TLSCert and TLSKey, PEM files)
// and a Token, else Embedded refuses to start; Token "" picks a random
// one (the server always requires a token).
type EmbeddedOptions struct {
	StoreDir string
	Listen   string
	Token    string
	TLSCert  string
	TLSKey   string
}

// HelperName is the NATS helper program (cmd/aidex-nats, ".exe" added on
// Windows) StartEmbedded looks for beside the running executable, then on
// PATH.
const HelperName = "aidex-nats"

// HelperArg, as the first argument, asks the running executable itself to
// be the NATS helper: StartEmbedded starts it so when it finds no
// aidex-nats, which only test binaries serve (natsd.RunIfArg); aidex
// answers with an error naming the missing helper.
const HelperArg = "__nats"

// Embedded is a running embedded NATS server with JetStream, in the
// aidex-nats helper process.
type Embedded struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	token string
	url   string
}

// helperOptions is the JSON line the helper reads (natsd.Options).
type helperOptions struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Token    string `json:"token"`
	StoreDir string `json:"store_dir"`
	TLSCert  string `json:"tls_cert,omitempty"`
	TLSKey   string `json:"tls_key,omitempty"`
}

// StartEmbedded starts the server in the aidex-nats helper and waits until
// it accepts clients. Errors: a non-loopback listen address without TLS
// and credentials, a bad address, a store that cannot be created, a
// missing helper, a server that does not come up within 10 s.
func StartEmbedded(o EmbeddedOptions) (*Embedded, error) {
	ho, err := embeddedOptions(o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.StoreDir, 0o700); err != nil {
		return nil, fmt.Errorf("nats store %s: %w", o.StoreDir, err)
	}
	path, args := findHelper()
	if path == "" {
		return nil, errHelperMissing
	}
	cmd := exec.Command(path, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("embedded nats: start %s: %w (%w)", path, err, errHelperMissing)
	}
	e := &Embedded{cmd: cmd, stdin: stdin, token: ho.Token}
	if e.url, err = handshake(stdin, stdout, ho); err != nil {
		e.Shutdown()
		return nil, err
	}
	return e, nil
}

var errHelperMissing = errors.New("the NATS helper " + HelperName + " is not installed beside aidex: install both with go install ./cmd/... or install.sh (install.ps1 on Windows)")

// embeddedOptions checks the listen address and fills in a random token.
func embeddedOptions(o EmbeddedOptions) (helperOptions, error) {
	ho := helperOptions{Host: "127.0.0.1", Port: -1, Token: o.Token, StoreDir: o.StoreDir, TLSCert: o.TLSCert, TLSKey: o.TLSKey}
	if o.Listen != "" {
		h, p, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return ho, fmt.Errorf("--nats-listen %q: want HOST:PORT: %w", o.Listen, err)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 65535 {
			return ho, fmt.Errorf("--nats-listen %q: port %q is not a port number", o.Listen, p)
		}
		ho.Host, ho.Port = h, n
		if !isLoopback(h) && (o.TLSCert == "" || o.TLSKey == "" || o.Token == "") {
			return ho, fmt.Errorf("--nats-listen %s is not a loopback address: it needs TLS and credentials (--nats-tls-cert, --nats-tls-key and --nats-token), or listen on 127.0.0.1", o.Listen)
		}
	}
	if ho.Token == "" {
		ho.Token = randomHex(24)
	}
	return ho, nil
}

// handshake sends the options and reads the helper's ready line: the
// server's URL, or its error.
func handshake(stdin io.Writer, stdout io.Reader, ho helperOptions) (string, error) {
	b, _ := json.Marshal(ho)
	if _, err := stdin.Write(append(b, '\n')); err != nil {
		return "", fmt.Errorf("embedded nats: send options to %s: %w", HelperName, err)
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		return "", fmt.Errorf("embedded nats: no answer from %s: %w", HelperName, err)
	}
	var r struct {
		URL   string `json:"url"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return "", fmt.Errorf("embedded nats: answer %q from %s: %w (%w)", bytes.TrimSpace(line), HelperName, err, errHelperMissing)
	}
	if r.Error != "" || r.URL == "" {
		return "", fmt.Errorf("embedded nats: %s", r.Error)
	}
	return r.URL, nil
}

// findHelper finds aidex-nats beside the running executable, then on
// PATH; else the running executable itself with HelperArg.
func findHelper() (path string, args []string) {
	name := HelperName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	if p, _, ok := companion.Find(exe, name, exec.LookPath); ok {
		return p, nil
	}
	if exe == "" {
		return "", nil
	}
	return exe, []string{HelperArg}
}

// URL is the server's client URL (nats://127.0.0.1:PORT).
func (e *Embedded) URL() string { return e.url }

// Token is the token clients must present.
func (e *Embedded) Token() string { return e.token }

// Connect opens a client connection to the embedded server.
func (e *Embedded) Connect(name string) (*nats.Conn, error) {
	return Connect(ConnOptions{URL: e.url, Token: e.token, Name: name})
}

// Shutdown stops the server (it ends when its standard input closes) and
// waits for the helper to exit, killing it after 10 s.
func (e *Embedded) Shutdown() {
	_ = e.stdin.Close()
	done := make(chan struct{})
	go func() { _ = e.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = e.cmd.Process.Kill()
		<-done
	}
}

// ConnOptions say how to reach a NATS server: URL (nats:// or tls://;
// several comma-separated), Creds (a .creds file: JWT and NKey), Token,
// CAFile (PEM roots for tls://, "" for the system's), Name (shown by the
// server).
type ConnOptions struct {
	URL    string
	Creds  string
	Token  string
	CAFile string
	Name   string
}

// Connect connects with reconnects on. Errors name the URL.
func Connect(o ConnOptions) (*nats.Conn, error) {
	if o.URL == "" {
		return nil, errors.New("no NATS URL: pass --nats URL or set NATS_URL")
	}
	opts := []nats.Option{nats.Name(o.Name), nats.MaxReconnects(-1), nats.ReconnectWait(500 * time.Millisecond)}
	if o.Creds != "" {
		if _, err := os.Stat(o.Creds); err != nil {
			return nil, fmt.Errorf("NATS credentials: %w", err)
		}
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	if o.Token != "" {
		opts = append(opts, nats.Token(o.Token))
	}
	if u, err := url.Parse(o.URL); err == nil && u.Scheme == "tls" {
		opts = append(opts, nats.Secure(&tls.Config{MinVersion: tls.VersionTLS12}))
	}
	if o.CAFile != "" {
		opts = append(opts, nats.RootCAs(o.CAFile))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", o.URL, err)
	}
	return nc, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// NoHelperMain is what aidex answers when started as the NATS helper
// (HelperArg first) because no aidex-nats was found: the ready line with
// the error naming the missing helper. It returns the exit code, 1.
func NoHelperMain(out io.Writer) int {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{errHelperMissing.Error()})
	_, _ = out.Write(append(b, '\n'))
	return 1
}
