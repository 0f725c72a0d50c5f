// Package natsd is the aidex-nats helper: the embedded NATS server with
// JetStream that `aidex ralph serve` and `aidex ralph run --workers N`
// start. It lives in its own program (cmd/aidex-nats, installed beside
// aidex) so that nats-server's packages, ~190 KB of allocations at
// package init, are not linked into aidex and do not cost every start
// (issue 40). aidex talks to it over the helper's standard streams
// (internal/ralph/dist.StartEmbedded): one JSON Options line in, one JSON
// Ready line out, and the server runs until its standard input closes.
package natsd

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options is the first line the helper reads: Host and Port to listen on
// (Port -1: a random one), the Token clients must present (never empty),
// StoreDir for JetStream's files (created by aidex), and TLSCert/TLSKey
// (PEM files; both or neither). aidex validates the listen address.
type Options struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Token    string `json:"token"`
	StoreDir string `json:"store_dir"`
	TLSCert  string `json:"tls_cert,omitempty"`
	TLSKey   string `json:"tls_key,omitempty"`
}

// Ready is the line the helper writes once the server accepts clients:
// URL (nats:// or tls://HOST:PORT), or Error saying why it did not start.
type Ready struct {
	URL   string `json:"url,omitempty"`
	Error string `json:"error,omitempty"`
}

// Main runs the helper: it reads Options from in, starts the server,
// writes Ready to out, and shuts the server down when in reaches its end
// (aidex closed it or exited). It returns the exit code: 0, or 1 when the
// server did not start.
func Main(in io.Reader, out io.Writer) int {
	r := bufio.NewReader(in)
	line, err := r.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		writeReady(out, Ready{Error: fmt.Sprintf("aidex-nats: no options on standard input: %v (it is started by aidex ralph, not by hand)", err)})
		return 1
	}
	var o Options
	if err := json.Unmarshal(line, &o); err != nil {
		writeReady(out, Ready{Error: fmt.Sprintf("aidex-nats: options: %v (aidex and aidex-nats must come from the same install)", err)})
		return 1
	}
	srv, u, err := start(o)
	if err != nil {
		writeReady(out, Ready{Error: err.Error()})
		return 1
	}
	writeReady(out, Ready{URL: u})
	_, _ = io.Copy(io.Discard, r)
	srv.Shutdown()
	srv.WaitForShutdown()
	return 0
}

// RunIfArg makes a test binary serve as the helper: when the first
// argument is arg (dist.HelperArg, which dist.StartEmbedded passes when it
// finds no aidex-nats and re-executes the running executable) it runs
// Main on the standard streams and exits; otherwise it returns at once.
// Call it first in TestMain.
func RunIfArg(arg string) {
	if len(os.Args) > 1 && os.Args[1] == arg {
		os.Exit(Main(os.Stdin, os.Stdout))
	}
}

func writeReady(out io.Writer, r Ready) {
	b, _ := json.Marshal(r)
	_, _ = out.Write(append(b, '\n'))
}

// start starts the server and waits until it accepts clients. Errors: a
// TLS key pair that does not load, options nats-server refuses, a server
// that does not come up within 10 s.
func start(o Options) (*server.Server, string, error) {
	if o.Token == "" {
		return nil, "", errors.New("aidex-nats: no token")
	}
	opts := &server.Options{Host: o.Host, Port: o.Port, JetStream: true, StoreDir: o.StoreDir,
		Authorization: o.Token, NoSigs: true, NoLog: true, MaxPayload: 1 << 20, ServerName: "aidex-ralph"}
	scheme := "nats"
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, "", fmt.Errorf("nats TLS certificate: %w", err)
		}
		opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		opts.TLS, scheme = true, "tls"
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, "", fmt.Errorf("embedded nats: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, "", errors.New("embedded nats: not ready after 10s")
	}
	addr := srv.Addr().(*net.TCPAddr)
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(o.Host, strconv.Itoa(addr.Port))}
	return srv, u.String(), nil
}
