package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/config"
)

// fakeEnv selects a fake stdio server: the test binary run again with it set
// serves MCP on stdin/stdout instead of running tests.
const fakeEnv = "AIDEX_MCP_FAKE_SERVER"

// TestMain runs a fake server when fakeEnv is set, else the tests.
func TestMain(m *testing.M) {
	if kind := os.Getenv(fakeEnv); kind != "" {
		os.Exit(runFake(kind))
	}
	os.Exit(m.Run())
}

// startChild starts the test binary again as a "sleep" fake and writes
// its pid to $AIDEX_MCP_FAKE_PIDFILE.
func startChild() error {
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), fakeEnv+"=sleep")
	if err := child.Start(); err != nil {
		return err
	}
	return os.WriteFile(os.Getenv("AIDEX_MCP_FAKE_PIDFILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o600)
}

// fake returns the config of a fake stdio server of the kind: "crashy"
// (tool boom appends a line to $AIDEX_MCP_FAKE_LOG and exits; echo echoes),
// "parent" (starts a child that sleeps; see startChild), "slow" (prints an npm line on stderr and waits $AIDEX_MCP_FAKE_DELAY
// before it serves).
func fake(t testing.TB, name, kind string, env map[string]string) config.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{fakeEnv: kind}
	for k, v := range env {
		e[k] = v
	}
	return config.MCPServer{Name: name, Command: exe, Env: e, StartupTimeoutSec: 30, Source: "test"}
}

type echoArgs struct {
	Message string `json:"message"`
}

func runFake(kind string) int {
	srv := sdk.NewServer(&sdk.Implementation{Name: "fake-" + kind, Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + a.Message}}}, nil, nil
	})
	switch kind {
	case "sleep": // a server's own child, left running
		time.Sleep(time.Minute)
		return 0
	case "parent": // starts a child that outlives it unless its group ends
		if err := startChild(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "slow": // a package runner's first start: it installs, then serves
		fmt.Fprintln(os.Stderr, "npm warn exec installing @example/server\x1b[2J")
		d, _ := time.ParseDuration(os.Getenv("AIDEX_MCP_FAKE_DELAY"))
		time.Sleep(d)
	case "crashy":
		sdk.AddTool(srv, &sdk.Tool{Name: "boom"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			f, err := os.OpenFile(os.Getenv("AIDEX_MCP_FAKE_LOG"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err == nil {
				fmt.Fprintln(f, "boom")
				_ = f.Close()
			}
			os.Exit(7)
			return nil, nil, nil
		})
	}
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
