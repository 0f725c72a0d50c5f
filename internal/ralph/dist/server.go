package dist

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
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

// Embedded is a running embedded NATS server with JetStream.
type Embedded struct {
	srv   *server.Server
	token string
	url   string
}

// StartEmbedded starts the server and waits until it accepts clients.
// Errors: a non-loopback listen address without TLS and credentials, a
// bad address, a store that cannot be created, a server that does not
// come up within 10 s.
func StartEmbedded(o EmbeddedOptions) (*Embedded, error) {
	host, port := "127.0.0.1", -1
	if o.Listen != "" {
		h, p, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return nil, fmt.Errorf("--nats-listen %q: want HOST:PORT: %w", o.Listen, err)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 65535 {
			return nil, fmt.Errorf("--nats-listen %q: port %q is not a port number", o.Listen, p)
		}
		host, port = h, n
		if !isLoopback(h) && (o.TLSCert == "" || o.TLSKey == "" || o.Token == "") {
			return nil, fmt.Errorf("--nats-listen %s is not a loopback address: it needs TLS and credentials (--nats-tls-cert, --nats-tls-key and --nats-token), or listen on 127.0.0.1", o.Listen)
		}
	}
	if o.Token == "" {
		o.Token = randomHex(24)
	}
	if err := os.MkdirAll(o.StoreDir, 0o700); err != nil {
		return nil, fmt.Errorf("nats store %s: %w", o.StoreDir, err)
	}
	opts := &server.Options{Host: host, Port: port, JetStream: true, StoreDir: o.StoreDir,
		Authorization: o.Token, NoSigs: true, NoLog: true, MaxPayload: 1 << 20, ServerName: "aidex-ralph"}
	scheme := "nats"
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("nats TLS certificate: %w", err)
		}
		opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		opts.TLS, scheme = true, "tls"
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("embedded nats: not ready after 10s")
	}
	addr := srv.Addr().(*net.TCPAddr)
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.Itoa(addr.Port))}
	return &Embedded{srv: srv, token: o.Token, url: u.String()}, nil
}

// URL is the server's client URL (nats://127.0.0.1:PORT).
func (e *Embedded) URL() string { return e.url }

// Token is the token clients must present.
func (e *Embedded) Token() string { return e.token }

// Connect opens a client connection to the embedded server.
func (e *Embedded) Connect(name string) (*nats.Conn, error) {
	return Connect(ConnOptions{URL: e.url, Token: e.token, Name: name})
}

// Shutdown stops the server and waits for it.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
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
